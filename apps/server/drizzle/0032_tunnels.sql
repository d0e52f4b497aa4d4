-- 0032_tunnels: remote tunnels to a port on a device's LAN, as history; live state is in memory (issue 19).
CREATE TABLE "tunnels" (
	"id" serial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"uid" integer NOT NULL,
	"opened_by" text NOT NULL,
	"name" text NOT NULL,
	"protocol" text DEFAULT 'tcp' NOT NULL,
	"local_ip" text NOT NULL,
	"local_port" integer NOT NULL,
	"endpoint" text NOT NULL,
	"host" text NOT NULL,
	"port" integer,
	"allowed_ip" text NOT NULL,
	"status" text DEFAULT 'opening' NOT NULL,
	"reason" text,
	"bytes_in" bigint DEFAULT 0 NOT NULL,
	"bytes_out" bigint DEFAULT 0 NOT NULL,
	"connections" integer DEFAULT 0 NOT NULL,
	"idle_timeout" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tunnels" ADD CONSTRAINT "tunnels_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tunnels_device_idx" ON "tunnels" USING btree ("device_id","id");--> statement-breakpoint
CREATE INDEX "tunnels_live_idx" ON "tunnels" USING btree ("endpoint") WHERE "tunnels"."status" in ('opening', 'open');
