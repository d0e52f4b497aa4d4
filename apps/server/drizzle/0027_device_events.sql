-- 0027_device_events: occurrences of thing model events reported by devices on P/up/event (issue 15).
CREATE TABLE "device_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"event" text NOT NULL,
	"level" text DEFAULT 'info' NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_events" ADD CONSTRAINT "device_events_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_events_device_ts_idx" ON "device_events" USING btree ("device_id","ts");
