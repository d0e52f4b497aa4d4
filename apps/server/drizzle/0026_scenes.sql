-- 0026_scenes: scene models, scenes, their derived devices, read-only shares and uploaded images (issue 17).
CREATE TABLE "scene_models" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"slots" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"document" jsonb NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scenes" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"model_id" integer,
	"document" jsonb NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scene_devices" (
	"scene_id" integer NOT NULL,
	"sn" text NOT NULL,
	CONSTRAINT "scene_devices_scene_id_sn_pk" PRIMARY KEY("scene_id","sn")
);
--> statement-breakpoint
CREATE TABLE "scene_shares" (
	"scene_id" integer NOT NULL,
	"uid" integer NOT NULL,
	"right" text DEFAULT 'view' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scene_shares_scene_id_uid_pk" PRIMARY KEY("scene_id","uid")
);
--> statement-breakpoint
CREATE TABLE "scene_images" (
	"file_id" text PRIMARY KEY NOT NULL,
	"scene_id" integer NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scene_models" ADD CONSTRAINT "scene_models_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scenes" ADD CONSTRAINT "scenes_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scenes" ADD CONSTRAINT "scenes_model_id_scene_models_id_fk" FOREIGN KEY ("model_id") REFERENCES "public"."scene_models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scene_devices" ADD CONSTRAINT "scene_devices_scene_id_scenes_id_fk" FOREIGN KEY ("scene_id") REFERENCES "public"."scenes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scene_shares" ADD CONSTRAINT "scene_shares_scene_id_scenes_id_fk" FOREIGN KEY ("scene_id") REFERENCES "public"."scenes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scene_shares" ADD CONSTRAINT "scene_shares_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scene_images" ADD CONSTRAINT "scene_images_scene_id_scenes_id_fk" FOREIGN KEY ("scene_id") REFERENCES "public"."scenes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scene_models_uid_idx" ON "scene_models" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "scenes_uid_idx" ON "scenes" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "scenes_model_idx" ON "scenes" USING btree ("model_id");--> statement-breakpoint
CREATE INDEX "scene_devices_sn_idx" ON "scene_devices" USING btree ("sn");--> statement-breakpoint
CREATE INDEX "scene_shares_uid_idx" ON "scene_shares" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "scene_images_scene_idx" ON "scene_images" USING btree ("scene_id");
