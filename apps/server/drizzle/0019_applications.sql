CREATE TABLE "applications" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"platform" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"icon" text DEFAULT '' NOT NULL,
	"created_by" integer,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "application_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"application_id" integer NOT NULL,
	"version" text NOT NULL,
	"notes_zh" text DEFAULT '' NOT NULL,
	"notes_en" text DEFAULT '' NOT NULL,
	"file_id" text NOT NULL,
	"filename" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"content_type" text NOT NULL,
	"latest" boolean DEFAULT false NOT NULL,
	"force_update" boolean DEFAULT false NOT NULL,
	"created_by" integer,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "application_versions" ADD CONSTRAINT "application_versions_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "application_versions" ADD CONSTRAINT "application_versions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "applications_platform_idx" ON "applications" USING btree ("platform");--> statement-breakpoint
CREATE UNIQUE INDEX "application_versions_version_uq" ON "application_versions" USING btree ("application_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "application_versions_latest_uq" ON "application_versions" USING btree ("application_id") WHERE "application_versions"."latest";
