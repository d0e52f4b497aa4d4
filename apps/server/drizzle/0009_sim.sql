CREATE TABLE "balance_ledger" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"kind" text NOT NULL,
	"amount_fen" bigint NOT NULL,
	"balance_after_fen" bigint NOT NULL,
	"order_id" integer,
	"note" text DEFAULT '' NOT NULL,
	"operator_uid" integer,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "balances" (
	"uid" integer PRIMARY KEY NOT NULL,
	"balance_fen" bigint DEFAULT 0 NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "balances_not_negative" CHECK ("balances"."balance_fen" >= 0)
);
--> statement-breakpoint
CREATE TABLE "sim_card_logs" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer,
	"source" text NOT NULL,
	"filename" text DEFAULT '' NOT NULL,
	"total" integer NOT NULL,
	"created" integer NOT NULL,
	"failed" integer NOT NULL,
	"failures" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"iccids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_cards" (
	"id" serial PRIMARY KEY NOT NULL,
	"iccid" text NOT NULL,
	"msisdn" text DEFAULT '' NOT NULL,
	"imsi" text DEFAULT '' NOT NULL,
	"operator" text NOT NULL,
	"provider_id" integer NOT NULL,
	"package_id" integer,
	"uid" integer,
	"status" text DEFAULT 'inactive' NOT NULL,
	"raw_status" text,
	"activated_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"operator_expires_at" timestamp with time zone,
	"allowance_type" text,
	"allowance_bytes" bigint,
	"period_start" timestamp with time zone,
	"quota_total_bytes" bigint,
	"quota_used_bytes" bigint,
	"quota_remaining_bytes" bigint,
	"exhausted" boolean DEFAULT false NOT NULL,
	"last_synced_at" timestamp with time zone,
	"sync_error" text,
	"remark" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_swaps" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"sn" text NOT NULL,
	"old_iccid" text NOT NULL,
	"new_iccid" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_usage_daily" (
	"card_id" integer NOT NULL,
	"day" date NOT NULL,
	"used_bytes" bigint NOT NULL,
	"source" text NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sim_usage_daily_card_id_day_pk" PRIMARY KEY("card_id","day")
);
--> statement-breakpoint
CREATE TABLE "sim_usage_monthly" (
	"card_id" integer NOT NULL,
	"month" text NOT NULL,
	"used_bytes" bigint NOT NULL,
	"source" text NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sim_usage_monthly_card_id_month_pk" PRIMARY KEY("card_id","month")
);
--> statement-breakpoint
CREATE TABLE "sim_order_cards" (
	"order_id" integer NOT NULL,
	"card_id" integer NOT NULL,
	"iccid" text NOT NULL,
	"kind" text NOT NULL,
	"before_package_id" integer,
	"before_allowance_type" text,
	"before_allowance_bytes" bigint,
	"before_period_start" timestamp with time zone,
	"before_expires_at" timestamp with time zone,
	"after_expires_at" timestamp with time zone,
	"after_allowance_bytes" bigint,
	"after_period_start" timestamp with time zone,
	"reverted" boolean,
	CONSTRAINT "sim_order_cards_order_id_card_id_pk" PRIMARY KEY("order_id","card_id")
);
--> statement-breakpoint
CREATE TABLE "sim_orders" (
	"id" serial PRIMARY KEY NOT NULL,
	"order_no" text NOT NULL,
	"uid" integer NOT NULL,
	"package_id" integer NOT NULL,
	"package_name" text NOT NULL,
	"package_code" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"card_count" integer NOT NULL,
	"unit_price_fen" integer NOT NULL,
	"amount_fen" bigint NOT NULL,
	"payment_method" text,
	"idempotency_key" text,
	"pay_key" text,
	"note" text DEFAULT '' NOT NULL,
	"paid_at" timestamp with time zone,
	"refunded_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_packages" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"code" text NOT NULL,
	"operator" text NOT NULL,
	"type" text NOT NULL,
	"validity_unit" text NOT NULL,
	"validity_count" integer NOT NULL,
	"flow_mb" integer NOT NULL,
	"price_fen" integer NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"on_sale" boolean DEFAULT true NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_providers" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"operator" text NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secrets" text DEFAULT '' NOT NULL,
	"sync_interval_min" integer DEFAULT 60 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_sync_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"provider_id" integer NOT NULL,
	"trigger" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"cards_total" integer DEFAULT 0 NOT NULL,
	"cards_updated" integer DEFAULT 0 NOT NULL,
	"cards_not_found" integer DEFAULT 0 NOT NULL,
	"cards_flagged" integer DEFAULT 0 NOT NULL,
	"error" text,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "devices_product_key_idx";--> statement-breakpoint
DROP INDEX "devices_online_idx";--> statement-breakpoint
ALTER TABLE "balance_ledger" ADD CONSTRAINT "balance_ledger_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balance_ledger" ADD CONSTRAINT "balance_ledger_order_id_sim_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."sim_orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balances" ADD CONSTRAINT "balances_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_card_logs" ADD CONSTRAINT "sim_card_logs_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_cards" ADD CONSTRAINT "sim_cards_provider_id_sim_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."sim_providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_cards" ADD CONSTRAINT "sim_cards_package_id_sim_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."sim_packages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_cards" ADD CONSTRAINT "sim_cards_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_swaps" ADD CONSTRAINT "sim_swaps_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_usage_daily" ADD CONSTRAINT "sim_usage_daily_card_id_sim_cards_id_fk" FOREIGN KEY ("card_id") REFERENCES "public"."sim_cards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_usage_monthly" ADD CONSTRAINT "sim_usage_monthly_card_id_sim_cards_id_fk" FOREIGN KEY ("card_id") REFERENCES "public"."sim_cards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_order_cards" ADD CONSTRAINT "sim_order_cards_order_id_sim_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."sim_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_order_cards" ADD CONSTRAINT "sim_order_cards_card_id_sim_cards_id_fk" FOREIGN KEY ("card_id") REFERENCES "public"."sim_cards"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_orders" ADD CONSTRAINT "sim_orders_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_orders" ADD CONSTRAINT "sim_orders_package_id_sim_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."sim_packages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_sync_runs" ADD CONSTRAINT "sim_sync_runs_provider_id_sim_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."sim_providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "balance_ledger_uid_idx" ON "balance_ledger" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "sim_card_logs_createdat_idx" ON "sim_card_logs" USING btree ("createdat");--> statement-breakpoint
CREATE UNIQUE INDEX "sim_cards_iccid_uq" ON "sim_cards" USING btree ("iccid");--> statement-breakpoint
CREATE INDEX "sim_cards_provider_idx" ON "sim_cards" USING btree ("provider_id","id");--> statement-breakpoint
CREATE INDEX "sim_cards_uid_idx" ON "sim_cards" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "sim_cards_package_idx" ON "sim_cards" USING btree ("package_id");--> statement-breakpoint
CREATE INDEX "sim_cards_expires_idx" ON "sim_cards" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "sim_swaps_old_idx" ON "sim_swaps" USING btree ("old_iccid","at");--> statement-breakpoint
CREATE INDEX "sim_swaps_new_idx" ON "sim_swaps" USING btree ("new_iccid","at");--> statement-breakpoint
CREATE INDEX "sim_swaps_device_idx" ON "sim_swaps" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "sim_order_cards_card_idx" ON "sim_order_cards" USING btree ("card_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sim_orders_order_no_uq" ON "sim_orders" USING btree ("order_no");--> statement-breakpoint
CREATE UNIQUE INDEX "sim_orders_idempotency_uq" ON "sim_orders" USING btree ("uid","idempotency_key");--> statement-breakpoint
CREATE INDEX "sim_orders_uid_idx" ON "sim_orders" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "sim_orders_status_idx" ON "sim_orders" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "sim_orders_package_idx" ON "sim_orders" USING btree ("package_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sim_packages_code_uq" ON "sim_packages" USING btree ("code");--> statement-breakpoint
CREATE UNIQUE INDEX "sim_sync_runs_active_uq" ON "sim_sync_runs" USING btree ("provider_id") WHERE "sim_sync_runs"."status" in ('queued', 'running', 'retry_wait');--> statement-breakpoint
CREATE INDEX "sim_sync_runs_due_idx" ON "sim_sync_runs" USING btree ("next_attempt_at") WHERE "sim_sync_runs"."status" in ('queued', 'running', 'retry_wait');--> statement-breakpoint
CREATE INDEX "sim_sync_runs_provider_idx" ON "sim_sync_runs" USING btree ("provider_id","id");--> statement-breakpoint
CREATE INDEX "devices_uid_product_idx" ON "devices" USING btree ("uid","product_key","id","online");--> statement-breakpoint
CREATE INDEX "devices_uid_online_idx" ON "devices" USING btree ("uid","online","id");--> statement-breakpoint
CREATE INDEX "devices_search_trgm_idx" ON "devices" USING gin (("sn" || chr(31) || "name" || chr(31) || "imei" || chr(31) || "iccid") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "devices_product_key_idx" ON "devices" USING btree ("product_key","id","online");--> statement-breakpoint
CREATE INDEX "devices_online_idx" ON "devices" USING btree ("online","id");