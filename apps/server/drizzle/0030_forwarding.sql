-- 0030_forwarding: forwarding rules, their delivery queue (dead letters included) and per-minute counters (issue 19).
CREATE TABLE "forward_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"product_key" text,
	"sns" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"kinds" jsonb NOT NULL,
	"target" jsonb NOT NULL,
	"secret" text NOT NULL,
	"password" text,
	"paused_at" timestamp with time zone,
	"paused_reason" text,
	"failing_since" timestamp with time zone,
	"last_error" text,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forward_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rule_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"sn" text NOT NULL,
	"kind" text NOT NULL,
	"message_id" text NOT NULL,
	"message" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"stored_at" timestamp with time zone NOT NULL,
	"died_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "forward_stats" (
	"rule_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"dead" integer DEFAULT 0 NOT NULL,
	"latency_sum" bigint DEFAULT 0 NOT NULL,
	"latency_max" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "forward_stats_rule_id_bucket_pk" PRIMARY KEY("rule_id","bucket")
);
--> statement-breakpoint
ALTER TABLE "forward_rules" ADD CONSTRAINT "forward_rules_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forward_messages" ADD CONSTRAINT "forward_messages_rule_id_forward_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."forward_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forward_stats" ADD CONSTRAINT "forward_stats_rule_id_forward_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."forward_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "forward_rules_uid_idx" ON "forward_rules" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "forward_messages_queue_idx" ON "forward_messages" USING btree ("rule_id","device_id","id") WHERE "forward_messages"."status" in ('pending', 'taken');--> statement-breakpoint
CREATE INDEX "forward_messages_dead_idx" ON "forward_messages" USING btree ("rule_id","id") WHERE "forward_messages"."status" = 'dead';
