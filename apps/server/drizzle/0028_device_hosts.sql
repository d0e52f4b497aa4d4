-- 0028_device_hosts: TCP/UDP servers for DTUs in socket mode (issue 18, docs/device-hosts.md).
CREATE TABLE "device_hosts" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"protocol" text NOT NULL,
	"bind" text DEFAULT '0.0.0.0' NOT NULL,
	"port" integer NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"register_by" text DEFAULT 'sn' NOT NULL,
	"register_format" text DEFAULT 'text' NOT NULL,
	"register_pattern" text NOT NULL,
	"heartbeat_format" text DEFAULT 'text' NOT NULL,
	"heartbeat_data" text DEFAULT '' NOT NULL,
	"heartbeat_interval" integer DEFAULT 60 NOT NULL,
	"idle_timeout" integer DEFAULT 180 NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "device_hosts_port_idx" ON "device_hosts" USING btree ("port");
