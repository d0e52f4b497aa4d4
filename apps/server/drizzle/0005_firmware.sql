CREATE TABLE "firmware_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"firmware_id" integer NOT NULL,
	"product_key" text NOT NULL,
	"version" text NOT NULL,
	"url" text DEFAULT '' NOT NULL,
	"filename" text NOT NULL,
	"file_id" text NOT NULL,
	"size" bigint NOT NULL,
	"md5" text NOT NULL,
	"sha256" text NOT NULL,
	"algorithm" text DEFAULT 'md5' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"latest" boolean DEFAULT false NOT NULL,
	"uid" integer,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "firmwares" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"product_key" text NOT NULL,
	"type" smallint DEFAULT 0 NOT NULL,
	"objname" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"public" boolean DEFAULT false NOT NULL,
	"uid" integer,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "firmware_versions" ADD CONSTRAINT "firmware_versions_firmware_id_firmwares_id_fk" FOREIGN KEY ("firmware_id") REFERENCES "public"."firmwares"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "firmware_versions" ADD CONSTRAINT "firmware_versions_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "firmwares" ADD CONSTRAINT "firmwares_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "firmware_versions_version_uq" ON "firmware_versions" USING btree ("firmware_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "firmware_versions_latest_uq" ON "firmware_versions" USING btree ("product_key") WHERE "firmware_versions"."latest";--> statement-breakpoint
CREATE INDEX "firmware_versions_product_key_idx" ON "firmware_versions" USING btree ("product_key");--> statement-breakpoint
CREATE INDEX "firmwares_product_key_idx" ON "firmwares" USING btree ("product_key");