CREATE TABLE "platform_device_credentials" (
	"device_id" integer NOT NULL,
	"platform_id" integer NOT NULL,
	"device_name" text DEFAULT '' NOT NULL,
	"secret" text NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_device_credentials_device_id_platform_id_pk" PRIMARY KEY("device_id","platform_id")
);
--> statement-breakpoint
CREATE TABLE "platforms" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"platform_type" text NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secrets" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "platform_device_credentials" ADD CONSTRAINT "platform_device_credentials_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_device_credentials" ADD CONSTRAINT "platform_device_credentials_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "platform_device_credentials_platform_idx" ON "platform_device_credentials" USING btree ("platform_id");