CREATE TABLE "device_commands" (
	"id" text PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"uid" integer,
	"type" text NOT NULL,
	"data" text NOT NULL,
	"status" text DEFAULT 'sent' NOT NULL,
	"code" integer,
	"reply" text,
	"sentat" timestamp with time zone NOT NULL,
	"repliedat" timestamp with time zone,
	"timeoutat" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"event" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" serial PRIMARY KEY NOT NULL,
	"sn" text NOT NULL,
	"uid" integer,
	"product_key" text NOT NULL,
	"secret" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"imsi" text DEFAULT '' NOT NULL,
	"iccid" text DEFAULT '' NOT NULL,
	"imei" text DEFAULT '' NOT NULL,
	"ipaddress" text DEFAULT '' NOT NULL,
	"protocol" text DEFAULT '' NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"address" text DEFAULT '' NOT NULL,
	"rssi" double precision,
	"csq" double precision,
	"status" smallint DEFAULT 0 NOT NULL,
	"hw_version" text DEFAULT '' NOT NULL,
	"fw_version" text DEFAULT '' NOT NULL,
	"online" smallint DEFAULT 0 NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"expect_config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"config_version" integer DEFAULT 0 NOT NULL,
	"expect_config_version" integer DEFAULT 0 NOT NULL,
	"config_version_different" boolean DEFAULT false NOT NULL,
	"activatedat" timestamp with time zone,
	"lastcommunicationat" timestamp with time zone,
	"latitude" double precision,
	"longitude" double precision,
	"description" text DEFAULT '' NOT NULL,
	"uplink" text DEFAULT '' NOT NULL,
	"login_protocol" text DEFAULT '' NOT NULL,
	"bootloader_version" text DEFAULT '' NOT NULL,
	"cellular_mode" text DEFAULT '' NOT NULL,
	"signal_strength" double precision,
	"band" text DEFAULT '' NOT NULL,
	"pci" text DEFAULT '' NOT NULL,
	"cell_id" text DEFAULT '' NOT NULL,
	"iot_platform_param" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"registeredat" timestamp with time zone,
	"rejected_count" integer DEFAULT 0 NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_properties" (
	"product_id" integer NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"name_us" text DEFAULT '' NOT NULL,
	"charttype" text DEFAULT 'line' NOT NULL,
	"datatype" text DEFAULT 'number' NOT NULL,
	"unit" text DEFAULT '' NOT NULL,
	"cycles" integer DEFAULT 0 NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "product_properties_product_id_key_pk" PRIMARY KEY("product_id","key")
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"product_key" text NOT NULL,
	"product_secret" text NOT NULL,
	"uid" integer,
	"nodetype" text DEFAULT 'direct' NOT NULL,
	"protocol" text DEFAULT 'mqtt' NOT NULL,
	"dataformat" text DEFAULT 'json' NOT NULL,
	"product_code" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"iot_platform_id" integer,
	"iot_platform_config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"device_config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"config_post_size" integer DEFAULT 0 NOT NULL,
	"mqtt_interval" integer DEFAULT 60 NOT NULL,
	"property_interval" integer DEFAULT 60 NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "products_product_key_uq" UNIQUE("product_key")
);
--> statement-breakpoint
CREATE TABLE "device_properties" (
	"device_id" integer NOT NULL,
	"key" text NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"num" double precision,
	"txt" text,
	"bool" boolean
);
--> statement-breakpoint
CREATE TABLE "device_property_latest" (
	"device_id" integer NOT NULL,
	"key" text NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"num" double precision,
	"txt" text,
	"bool" boolean,
	CONSTRAINT "device_property_latest_device_id_key_pk" PRIMARY KEY("device_id","key")
);
--> statement-breakpoint
CREATE TABLE "raw_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"direction" text NOT NULL,
	"data" text NOT NULL,
	"size" integer NOT NULL,
	"truncated" boolean DEFAULT false NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_commands" ADD CONSTRAINT "device_commands_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_logs" ADD CONSTRAINT "device_logs_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_product_key_products_product_key_fk" FOREIGN KEY ("product_key") REFERENCES "public"."products"("product_key") ON DELETE no action ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "product_properties" ADD CONSTRAINT "product_properties_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_property_latest" ADD CONSTRAINT "device_property_latest_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "raw_messages" ADD CONSTRAINT "raw_messages_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_commands_device_idx" ON "device_commands" USING btree ("device_id","sentat");--> statement-breakpoint
CREATE INDEX "device_commands_pending_idx" ON "device_commands" USING btree ("status","timeoutat");--> statement-breakpoint
CREATE INDEX "device_logs_device_idx" ON "device_logs" USING btree ("device_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "devices_sn_uq" ON "devices" USING btree ("sn");--> statement-breakpoint
CREATE INDEX "devices_uid_idx" ON "devices" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "devices_product_key_idx" ON "devices" USING btree ("product_key","id");--> statement-breakpoint
CREATE INDEX "devices_online_idx" ON "devices" USING btree ("online") WHERE "devices"."online" = 1;--> statement-breakpoint
CREATE INDEX "products_uid_idx" ON "products" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "device_properties_device_key_ts_idx" ON "device_properties" USING btree ("device_id","key","ts");--> statement-breakpoint
CREATE INDEX "raw_messages_device_idx" ON "raw_messages" USING btree ("device_id","id");