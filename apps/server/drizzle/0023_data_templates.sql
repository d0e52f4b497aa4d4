-- 0023_data_templates: Modbus data templates, their slaves and variables; templates applied to devices and products.
CREATE TABLE "data_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"type" text DEFAULT 'modbus_rtu' NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"collect_mode" text DEFAULT 'dtu' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "data_template_slaves" (
	"id" serial PRIMARY KEY NOT NULL,
	"template_id" integer NOT NULL,
	"name" text NOT NULL,
	"address" smallint NOT NULL,
	"serial_port" text DEFAULT 'rs485' NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "data_template_variables" (
	"id" serial PRIMARY KEY NOT NULL,
	"template_id" integer NOT NULL,
	"slave_id" integer NOT NULL,
	"name" text NOT NULL,
	"tag" text NOT NULL,
	"unit" text DEFAULT '' NOT NULL,
	"register_type" text NOT NULL,
	"register_address" integer NOT NULL,
	"data_format" text NOT NULL,
	"byte_order" text DEFAULT 'AB' NOT NULL,
	"decimals" smallint DEFAULT 0 NOT NULL,
	"access" text DEFAULT 'r' NOT NULL,
	"capture_formula" text DEFAULT '' NOT NULL,
	"control_formula" text DEFAULT '' NOT NULL,
	"report_method" text DEFAULT 'cycle' NOT NULL,
	"sampling_cycle_s" integer DEFAULT 60 NOT NULL,
	"function_code" smallint NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_data_templates" (
	"device_id" integer PRIMARY KEY NOT NULL,
	"template_id" integer NOT NULL,
	"applied_by" integer,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_data_templates" (
	"product_id" integer PRIMARY KEY NOT NULL,
	"template_id" integer NOT NULL,
	"applied_by" integer,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "data_templates" ADD CONSTRAINT "data_templates_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_template_slaves" ADD CONSTRAINT "data_template_slaves_template_id_data_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."data_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_template_variables" ADD CONSTRAINT "data_template_variables_template_id_data_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."data_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_template_variables" ADD CONSTRAINT "data_template_variables_slave_id_data_template_slaves_id_fk" FOREIGN KEY ("slave_id") REFERENCES "public"."data_template_slaves"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_data_templates" ADD CONSTRAINT "device_data_templates_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_data_templates" ADD CONSTRAINT "device_data_templates_template_id_data_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."data_templates"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_data_templates" ADD CONSTRAINT "device_data_templates_applied_by_users_id_fk" FOREIGN KEY ("applied_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_data_templates" ADD CONSTRAINT "product_data_templates_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_data_templates" ADD CONSTRAINT "product_data_templates_template_id_data_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."data_templates"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_data_templates" ADD CONSTRAINT "product_data_templates_applied_by_users_id_fk" FOREIGN KEY ("applied_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "data_templates_uid_idx" ON "data_templates" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "data_template_slaves_template_idx" ON "data_template_slaves" USING btree ("template_id","position","id");--> statement-breakpoint
CREATE UNIQUE INDEX "data_template_variables_tag_uq" ON "data_template_variables" USING btree ("template_id","tag");--> statement-breakpoint
CREATE INDEX "data_template_variables_slave_idx" ON "data_template_variables" USING btree ("slave_id","position","id");--> statement-breakpoint
CREATE INDEX "device_data_templates_template_idx" ON "device_data_templates" USING btree ("template_id");--> statement-breakpoint
CREATE INDEX "product_data_templates_template_idx" ON "product_data_templates" USING btree ("template_id");
