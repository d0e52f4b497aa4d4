-- 0025_modbus_polling: per-variable read counters, last value and last error of platform polling (issue 16).
CREATE TABLE "modbus_variable_status" (
	"device_id" integer NOT NULL,
	"tag" text NOT NULL,
	"reads" bigint DEFAULT 0 NOT NULL,
	"timeouts" bigint DEFAULT 0 NOT NULL,
	"exceptions" bigint DEFAULT 0 NOT NULL,
	"crc_errors" bigint DEFAULT 0 NOT NULL,
	"invalid" bigint DEFAULT 0 NOT NULL,
	"last_value" double precision,
	"last_read_at" timestamp with time zone,
	"last_error" text DEFAULT '' NOT NULL,
	"last_error_at" timestamp with time zone,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "modbus_variable_status_device_id_tag_pk" PRIMARY KEY("device_id","tag")
);
--> statement-breakpoint
ALTER TABLE "modbus_variable_status" ADD CONSTRAINT "modbus_variable_status_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;
