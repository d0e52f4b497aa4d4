-- 0029_gateway_rules: gateways and the sub-devices bound to them (issue 18, docs/gateway-rules.md).
CREATE TABLE "gateway_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"gateway_device_id" integer NOT NULL,
	"name" text NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gateway_rules_gateway_uq" UNIQUE("gateway_device_id")
);
--> statement-breakpoint
CREATE TABLE "gateway_sub_devices" (
	"device_id" integer PRIMARY KEY NOT NULL,
	"rule_id" integer NOT NULL,
	"address" text DEFAULT '' NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gateway_rules" ADD CONSTRAINT "gateway_rules_gateway_device_id_devices_id_fk" FOREIGN KEY ("gateway_device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway_sub_devices" ADD CONSTRAINT "gateway_sub_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway_sub_devices" ADD CONSTRAINT "gateway_sub_devices_rule_id_gateway_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."gateway_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "gateway_sub_devices_rule_idx" ON "gateway_sub_devices" USING btree ("rule_id");
