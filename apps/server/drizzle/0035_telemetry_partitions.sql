-- 0035_telemetry_partitions: telemetry at scale (issue 21, docs/telemetry-scale.md).
-- device_properties becomes a table partitioned by range of ts. The existing table is attached as the DEFAULT
-- partition, so no row is copied here: the telemetry maintenance job later moves its rows into weekly partitions
-- (one week per transaction) and creates the weeks ahead. No primary key, as before (append-only history, see
-- telemetry.table.ts); the (device_id, key, ts) index is declared on the parent, so every partition gets it.
ALTER TABLE "device_properties" RENAME TO "device_properties_default";--> statement-breakpoint
ALTER INDEX "device_properties_device_key_ts_idx" RENAME TO "device_properties_default_device_key_ts_idx";--> statement-breakpoint
CREATE TABLE "device_properties" (
	"device_id" integer NOT NULL,
	"key" text NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"num" double precision,
	"txt" text,
	"bool" boolean
) PARTITION BY RANGE ("ts");--> statement-breakpoint
CREATE INDEX "device_properties_device_key_ts_idx" ON "device_properties" USING btree ("device_id","key","ts");--> statement-breakpoint
ALTER TABLE "device_properties" ATTACH PARTITION "device_properties_default" DEFAULT;--> statement-breakpoint
-- Time ranges (rollups, retention, moving rows out of the default partition) read rows by ts alone: a BRIN index
-- serves them for a few pages per partition, and costs ingest next to nothing (rows arrive roughly in time order).
CREATE INDEX "device_properties_ts_brin_idx" ON "device_properties" USING brin ("ts");--> statement-breakpoint
-- Hourly rollups for charts older than a week: values are coalesce(num, bool::int) as the chart reads them;
-- `count` counts every value (text too), `values` the numeric ones (avg = sum / values).
CREATE TABLE "device_property_hourly" (
	"device_id" integer NOT NULL,
	"key" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	"values" integer NOT NULL,
	"sum" double precision,
	"min" double precision,
	"max" double precision,
	CONSTRAINT "device_property_hourly_pk" PRIMARY KEY("device_id","key","hour")
);--> statement-breakpoint
CREATE INDEX "device_property_hourly_hour_idx" ON "device_property_hourly" USING btree ("hour");--> statement-breakpoint
-- One row: hours before `rolled_to` are in device_property_hourly.
CREATE TABLE "telemetry_rollup_state" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"rolled_to" timestamp with time zone,
	CONSTRAINT "telemetry_rollup_state_one_row" CHECK ("id" = 1)
);--> statement-breakpoint
INSERT INTO "telemetry_rollup_state" ("id", "rolled_to") VALUES (1, NULL);--> statement-breakpoint
-- Days of property history a product keeps; NULL keeps it for ever.
ALTER TABLE "products" ADD COLUMN "retention_days" integer;
