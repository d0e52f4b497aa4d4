-- 0020_hardware_production: hardware catalogue, groups and device reports; production tasks and groups.
CREATE TABLE "device_hardware" (
	"device_id" integer PRIMARY KEY NOT NULL,
	"task_id" integer,
	"module_model" text DEFAULT '' NOT NULL,
	"module_fw" text DEFAULT '' NOT NULL,
	"mcu_id" text DEFAULT '' NOT NULL,
	"mac" text DEFAULT '' NOT NULL,
	"board_revision" text DEFAULT '' NOT NULL,
	"test_ok" boolean,
	"test_items" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"mismatch" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"first_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hw_group_values" (
	"group_id" integer NOT NULL,
	"type" text NOT NULL,
	"value_id" integer NOT NULL,
	CONSTRAINT "hw_group_values_group_id_type_pk" PRIMARY KEY("group_id","type")
);
--> statement-breakpoint
CREATE TABLE "hw_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hw_values" (
	"id" serial PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"value" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "production_task_devices" (
	"device_id" integer PRIMARY KEY NOT NULL,
	"task_id" integer NOT NULL,
	"position" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "production_tasks" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"product_key" text NOT NULL,
	"hw_group_id" integer NOT NULL,
	"quantity" integer NOT NULL,
	"sn_rule" jsonb NOT NULL,
	"firmware_version_id" integer,
	"planned_date" date NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"state" text DEFAULT 'draft' NOT NULL,
	"created_by" integer,
	"startedat" timestamp with time zone,
	"finishedat" timestamp with time zone,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "productive_group_devices" (
	"group_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "productive_group_devices_group_id_device_id_pk" PRIMARY KEY("group_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "productive_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_hardware" ADD CONSTRAINT "device_hardware_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hw_group_values" ADD CONSTRAINT "hw_group_values_group_id_hw_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."hw_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hw_group_values" ADD CONSTRAINT "hw_group_values_value_id_hw_values_id_fk" FOREIGN KEY ("value_id") REFERENCES "public"."hw_values"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_task_devices" ADD CONSTRAINT "production_task_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_task_devices" ADD CONSTRAINT "production_task_devices_task_id_production_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."production_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_tasks" ADD CONSTRAINT "production_tasks_product_key_products_product_key_fk" FOREIGN KEY ("product_key") REFERENCES "public"."products"("product_key") ON DELETE no action ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "production_tasks" ADD CONSTRAINT "production_tasks_hw_group_id_hw_groups_id_fk" FOREIGN KEY ("hw_group_id") REFERENCES "public"."hw_groups"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_tasks" ADD CONSTRAINT "production_tasks_firmware_version_id_firmware_versions_id_fk" FOREIGN KEY ("firmware_version_id") REFERENCES "public"."firmware_versions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_tasks" ADD CONSTRAINT "production_tasks_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "productive_group_devices" ADD CONSTRAINT "productive_group_devices_group_id_productive_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."productive_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "productive_group_devices" ADD CONSTRAINT "productive_group_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_hardware_task_idx" ON "device_hardware" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "hw_group_values_value_idx" ON "hw_group_values" USING btree ("value_id");--> statement-breakpoint
CREATE UNIQUE INDEX "hw_values_type_value_idx" ON "hw_values" USING btree ("type",lower("value"));--> statement-breakpoint
CREATE INDEX "production_task_devices_task_idx" ON "production_task_devices" USING btree ("task_id","position");--> statement-breakpoint
CREATE INDEX "production_tasks_state_idx" ON "production_tasks" USING btree ("state","id");--> statement-breakpoint
CREATE INDEX "productive_group_devices_device_idx" ON "productive_group_devices" USING btree ("device_id");