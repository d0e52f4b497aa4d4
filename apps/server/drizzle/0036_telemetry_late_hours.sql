-- 0036_telemetry_late_hours: hours whose rollup a late reading changed (docs/telemetry-scale.md, "Late readings").
-- The property writer marks the (device, hour) of a row older than the rollup watermark in the same statement that
-- stores it; the maintenance job rolls those hours up again from the raw rows and removes the marks.
CREATE TABLE "telemetry_rollup_dirty" (
	"device_id" integer NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "telemetry_rollup_dirty_pk" PRIMARY KEY("device_id","hour")
);
