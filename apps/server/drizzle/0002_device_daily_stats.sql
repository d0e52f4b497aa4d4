CREATE TABLE "device_daily_stats" (
	"device_id" integer NOT NULL,
	"day" date NOT NULL,
	"messages" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "device_daily_stats_device_id_day_pk" PRIMARY KEY("device_id","day")
);
--> statement-breakpoint
CREATE INDEX "device_daily_stats_day_idx" ON "device_daily_stats" USING btree ("day");