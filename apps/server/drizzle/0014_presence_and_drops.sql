CREATE TABLE "device_drops" (
	"device_id" integer NOT NULL,
	"reason" text NOT NULL,
	"count" bigint DEFAULT 0 NOT NULL,
	"lastat" timestamp with time zone NOT NULL,
	CONSTRAINT "device_drops_device_id_reason_pk" PRIMARY KEY("device_id","reason")
);
--> statement-breakpoint
CREATE TABLE "device_connections" (
	"device_id" integer PRIMARY KEY NOT NULL,
	"instance_id" text,
	"keepalive" integer DEFAULT 0 NOT NULL,
	"connectedat" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "server_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"address" text DEFAULT '' NOT NULL,
	"startedat" timestamp with time zone NOT NULL,
	"heartbeatat" timestamp with time zone NOT NULL,
	"stoppedat" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "device_drops" ADD CONSTRAINT "device_drops_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_connections" ADD CONSTRAINT "device_connections_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_connections_instance_idx" ON "device_connections" USING btree ("instance_id") WHERE "device_connections"."instance_id" is not null;