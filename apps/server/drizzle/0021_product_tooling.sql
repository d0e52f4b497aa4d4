CREATE TABLE "command_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"product_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "group_commands" (
	"id" serial PRIMARY KEY NOT NULL,
	"group_id" integer NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"data" text NOT NULL,
	"params" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reply_pattern" text DEFAULT '' NOT NULL,
	"timeout_s" integer DEFAULT 30 NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "command_groups" ADD CONSTRAINT "command_groups_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_commands" ADD CONSTRAINT "group_commands_group_id_command_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."command_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "command_groups_product_idx" ON "command_groups" USING btree ("product_id","id");--> statement-breakpoint
CREATE INDEX "group_commands_group_idx" ON "group_commands" USING btree ("group_id","id");--> statement-breakpoint
ALTER TABLE "device_commands" ADD COLUMN "command_ref" jsonb;
--> statement-breakpoint
CREATE TABLE "product_events" (
	"product_id" integer NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"name_us" text DEFAULT '' NOT NULL,
	"level" text DEFAULT 'info' NOT NULL,
	"output" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "product_events_product_id_key_pk" PRIMARY KEY("product_id","key")
);
--> statement-breakpoint
CREATE TABLE "product_services" (
	"product_id" integer NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"name_us" text DEFAULT '' NOT NULL,
	"input" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"output" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "product_services_product_id_key_pk" PRIMARY KEY("product_id","key")
);
--> statement-breakpoint
ALTER TABLE "product_events" ADD CONSTRAINT "product_events_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_services" ADD CONSTRAINT "product_services_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "product_features" (
	"id" serial PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"name_us" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"panels" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "product_features_key_uq" UNIQUE("key")
);
--> statement-breakpoint
CREATE TABLE "product_feature_links" (
	"feature_id" integer NOT NULL,
	"product_id" integer NOT NULL,
	CONSTRAINT "product_feature_links_feature_id_product_id_pk" PRIMARY KEY("feature_id","product_id")
);
--> statement-breakpoint
ALTER TABLE "product_feature_links" ADD CONSTRAINT "product_feature_links_feature_id_product_features_id_fk" FOREIGN KEY ("feature_id") REFERENCES "public"."product_features"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_feature_links" ADD CONSTRAINT "product_feature_links_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "product_feature_links_product_idx" ON "product_feature_links" USING btree ("product_id");
