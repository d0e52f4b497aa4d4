CREATE TABLE "alert_config_contacts" (
	"config_id" integer NOT NULL,
	"contact_id" integer NOT NULL,
	CONSTRAINT "alert_config_contacts_config_id_contact_id_pk" PRIMARY KEY("config_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "alert_config_triggers" (
	"config_id" integer NOT NULL,
	"trigger_id" integer NOT NULL,
	CONSTRAINT "alert_config_triggers_config_id_trigger_id_pk" PRIMARY KEY("config_id","trigger_id")
);
--> statement-breakpoint
CREATE TABLE "alert_configs" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"enable" smallint DEFAULT 1 NOT NULL,
	"methods" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"interval_s" integer NOT NULL,
	"push_mode" text DEFAULT 'once' NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_contact_codes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"contact_id" integer NOT NULL,
	"channel" text NOT NULL,
	"target" text NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_contacts" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"email" text DEFAULT '' NOT NULL,
	"phone_verified" boolean DEFAULT false NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"trigger_id" integer,
	"trigger_name" text NOT NULL,
	"device_id" integer NOT NULL,
	"sn" text NOT NULL,
	"device_name" text DEFAULT '' NOT NULL,
	"product_key" text DEFAULT '' NOT NULL,
	"key" text,
	"type" smallint NOT NULL,
	"a" double precision,
	"b" double precision,
	"status" text DEFAULT 'active' NOT NULL,
	"raised_at" timestamp with time zone NOT NULL,
	"raised_value" jsonb,
	"recovered_at" timestamp with time zone,
	"recovered_value" jsonb,
	"push_count" integer DEFAULT 0 NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"acknowledged_by" integer
);
--> statement-breakpoint
CREATE TABLE "alert_states" (
	"trigger_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"status" text DEFAULT 'normal' NOT NULL,
	"since" timestamp with time zone DEFAULT now() NOT NULL,
	"history_id" bigint,
	"last_value" jsonb,
	"last_sent_at" timestamp with time zone,
	"marks" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_states_trigger_id_device_id_pk" PRIMARY KEY("trigger_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "alert_trigger_contacts" (
	"trigger_id" integer NOT NULL,
	"contact_id" integer NOT NULL,
	CONSTRAINT "alert_trigger_contacts_trigger_id_contact_id_pk" PRIMARY KEY("trigger_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "alert_triggers" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"enable" smallint DEFAULT 1 NOT NULL,
	"source" text DEFAULT 'device' NOT NULL,
	"device_id" integer,
	"scene_id" integer,
	"key" text,
	"type" smallint NOT NULL,
	"a" double precision,
	"b" double precision,
	"push_content" text DEFAULT '' NOT NULL,
	"recovery_content" text DEFAULT '' NOT NULL,
	"silence_s" integer DEFAULT 300 NOT NULL,
	"push_mode" text DEFAULT 'once' NOT NULL,
	"methods" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_config_contacts" ADD CONSTRAINT "alert_config_contacts_config_id_alert_configs_id_fk" FOREIGN KEY ("config_id") REFERENCES "public"."alert_configs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_config_contacts" ADD CONSTRAINT "alert_config_contacts_contact_id_alert_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."alert_contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_config_triggers" ADD CONSTRAINT "alert_config_triggers_config_id_alert_configs_id_fk" FOREIGN KEY ("config_id") REFERENCES "public"."alert_configs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_config_triggers" ADD CONSTRAINT "alert_config_triggers_trigger_id_alert_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."alert_triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_configs" ADD CONSTRAINT "alert_configs_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_contact_codes" ADD CONSTRAINT "alert_contact_codes_contact_id_alert_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."alert_contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_contacts" ADD CONSTRAINT "alert_contacts_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_history" ADD CONSTRAINT "alert_history_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_history" ADD CONSTRAINT "alert_history_trigger_id_alert_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."alert_triggers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_history" ADD CONSTRAINT "alert_history_acknowledged_by_users_id_fk" FOREIGN KEY ("acknowledged_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_states" ADD CONSTRAINT "alert_states_trigger_id_alert_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."alert_triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_states" ADD CONSTRAINT "alert_states_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_trigger_contacts" ADD CONSTRAINT "alert_trigger_contacts_trigger_id_alert_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."alert_triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_trigger_contacts" ADD CONSTRAINT "alert_trigger_contacts_contact_id_alert_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."alert_contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_triggers" ADD CONSTRAINT "alert_triggers_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_triggers" ADD CONSTRAINT "alert_triggers_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_config_contacts_contact_idx" ON "alert_config_contacts" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "alert_config_triggers_trigger_idx" ON "alert_config_triggers" USING btree ("trigger_id");--> statement-breakpoint
CREATE INDEX "alert_configs_uid_idx" ON "alert_configs" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "alert_contact_codes_contact_idx" ON "alert_contact_codes" USING btree ("contact_id","channel","id");--> statement-breakpoint
CREATE INDEX "alert_contacts_uid_idx" ON "alert_contacts" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "alert_history_uid_idx" ON "alert_history" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "alert_history_trigger_idx" ON "alert_history" USING btree ("trigger_id","id");--> statement-breakpoint
CREATE INDEX "alert_history_sn_idx" ON "alert_history" USING btree ("sn","id");--> statement-breakpoint
CREATE INDEX "alert_history_active_idx" ON "alert_history" USING btree ("id") WHERE "alert_history"."status" = 'active';--> statement-breakpoint
CREATE INDEX "alert_trigger_contacts_contact_idx" ON "alert_trigger_contacts" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "alert_triggers_uid_idx" ON "alert_triggers" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "alert_triggers_device_idx" ON "alert_triggers" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "alert_triggers_enabled_idx" ON "alert_triggers" USING btree ("id") WHERE "alert_triggers"."enable" = 1;