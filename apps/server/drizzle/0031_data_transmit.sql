-- 0031_data_transmit: data transmission rules and their devices with per-device counters (issue 19).
CREATE TABLE "data_transmit_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"status" smallint DEFAULT 1 NOT NULL,
	"group_name" text DEFAULT '' NOT NULL,
	"address_mode" text DEFAULT 'all' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "data_transmit_devices" (
	"rule_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"role" text NOT NULL,
	"addresses" integer[] DEFAULT '{}' NOT NULL,
	"frames_up" bigint DEFAULT 0 NOT NULL,
	"bytes_up" bigint DEFAULT 0 NOT NULL,
	"frames_down" bigint DEFAULT 0 NOT NULL,
	"bytes_down" bigint DEFAULT 0 NOT NULL,
	"drops" bigint DEFAULT 0 NOT NULL,
	"last_error" integer,
	"last_error_at" timestamp with time zone,
	"latency_ms" double precision,
	"latency_avg_ms" double precision,
	"last_frame_at" timestamp with time zone,
	CONSTRAINT "data_transmit_devices_rule_id_device_id_pk" PRIMARY KEY("rule_id","device_id")
);
--> statement-breakpoint
ALTER TABLE "data_transmit_rules" ADD CONSTRAINT "data_transmit_rules_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_transmit_devices" ADD CONSTRAINT "data_transmit_devices_rule_id_data_transmit_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."data_transmit_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_transmit_devices" ADD CONSTRAINT "data_transmit_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "data_transmit_rules_uid_idx" ON "data_transmit_rules" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "data_transmit_devices_device_idx" ON "data_transmit_devices" USING btree ("device_id");
