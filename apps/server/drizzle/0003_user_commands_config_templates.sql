CREATE TABLE "config_apply_results" (
	"apply_id" integer NOT NULL,
	"position" integer NOT NULL,
	"sn" text NOT NULL,
	"device_id" integer,
	"version" integer,
	"sent" boolean DEFAULT false NOT NULL,
	CONSTRAINT "config_apply_results_apply_id_position_pk" PRIMARY KEY("apply_id","position")
);
--> statement-breakpoint
CREATE TABLE "config_template_applies" (
	"id" serial PRIMARY KEY NOT NULL,
	"template_id" integer NOT NULL,
	"uid" integer NOT NULL,
	"total" integer NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "config_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"config" jsonb NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_command_results" (
	"run_id" integer NOT NULL,
	"position" integer NOT NULL,
	"sn" text NOT NULL,
	"command_id" text,
	"status" text NOT NULL,
	"code" integer,
	CONSTRAINT "user_command_results_run_id_position_pk" PRIMARY KEY("run_id","position")
);
--> statement-breakpoint
CREATE TABLE "user_command_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_command_id" integer NOT NULL,
	"uid" integer NOT NULL,
	"type" text NOT NULL,
	"data" text NOT NULL,
	"total" integer NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_commands" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"data" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "config_apply_results" ADD CONSTRAINT "config_apply_results_apply_id_config_template_applies_id_fk" FOREIGN KEY ("apply_id") REFERENCES "public"."config_template_applies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "config_template_applies" ADD CONSTRAINT "config_template_applies_template_id_config_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."config_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "config_templates" ADD CONSTRAINT "config_templates_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_command_results" ADD CONSTRAINT "user_command_results_run_id_user_command_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."user_command_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_command_runs" ADD CONSTRAINT "user_command_runs_user_command_id_user_commands_id_fk" FOREIGN KEY ("user_command_id") REFERENCES "public"."user_commands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_commands" ADD CONSTRAINT "user_commands_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "config_template_applies_template_idx" ON "config_template_applies" USING btree ("template_id","id");--> statement-breakpoint
CREATE INDEX "config_templates_uid_idx" ON "config_templates" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "user_command_runs_command_idx" ON "user_command_runs" USING btree ("user_command_id","id");--> statement-breakpoint
CREATE INDEX "user_commands_uid_idx" ON "user_commands" USING btree ("uid","id");