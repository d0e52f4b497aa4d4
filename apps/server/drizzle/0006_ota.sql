CREATE TABLE "ota_devices" (
	"id" serial PRIMARY KEY NOT NULL,
	"task_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"sn" text NOT NULL,
	"product_key" text NOT NULL,
	"seq" integer NOT NULL,
	"wave" integer NOT NULL,
	"status" smallint DEFAULT 0 NOT NULL,
	"phase" text DEFAULT 'pending' NOT NULL,
	"result" text DEFAULT '' NOT NULL,
	"progress" real,
	"attempts" integer DEFAULT 0 NOT NULL,
	"upgrade_id" text,
	"from_version" text,
	"timed_out" boolean DEFAULT false NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"dispatched_at" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"deadline_at" timestamp with time zone,
	"reported_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"downloads" integer DEFAULT 0 NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ota_tasks" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"product_key" text NOT NULL,
	"firmware_id" integer NOT NULL,
	"firmware_name" text NOT NULL,
	"version_id" integer NOT NULL,
	"version" text NOT NULL,
	"size" bigint NOT NULL,
	"checksum" text NOT NULL,
	"algorithm" text NOT NULL,
	"status" text DEFAULT 'inactive' NOT NULL,
	"pause_reason" text,
	"targets" jsonb NOT NULL,
	"policy" jsonb NOT NULL,
	"plan_time" timestamp with time zone,
	"start_time" timestamp with time zone,
	"end_time" timestamp with time zone,
	"window_end" timestamp with time zone,
	"wave_size" integer NOT NULL,
	"wave_count" integer NOT NULL,
	"current_wave" integer DEFAULT 0 NOT NULL,
	"next_wave_at" timestamp with time zone,
	"fail_base" integer DEFAULT 0 NOT NULL,
	"ended_base" integer DEFAULT 0 NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ota_devices" ADD CONSTRAINT "ota_devices_task_id_ota_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."ota_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ota_devices" ADD CONSTRAINT "ota_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ota_tasks" ADD CONSTRAINT "ota_tasks_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ota_devices_task_device_uq" ON "ota_devices" USING btree ("task_id","device_id");--> statement-breakpoint
CREATE INDEX "ota_devices_task_seq_idx" ON "ota_devices" USING btree ("task_id","seq");--> statement-breakpoint
CREATE INDEX "ota_devices_task_phase_idx" ON "ota_devices" USING btree ("task_id","phase","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "ota_devices_upgrade_id_uq" ON "ota_devices" USING btree ("upgrade_id");--> statement-breakpoint
CREATE INDEX "ota_devices_device_idx" ON "ota_devices" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "ota_devices_deadline_idx" ON "ota_devices" USING btree ("deadline_at") WHERE "ota_devices"."phase" = 'dispatched';--> statement-breakpoint
CREATE INDEX "ota_tasks_uid_idx" ON "ota_tasks" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "ota_tasks_status_idx" ON "ota_tasks" USING btree ("status");--> statement-breakpoint
CREATE INDEX "ota_tasks_version_idx" ON "ota_tasks" USING btree ("version_id");