CREATE TABLE "notify_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"channel" text NOT NULL,
	"recipient" text NOT NULL,
	"template" text NOT NULL,
	"subject" text,
	"body" text NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"uid" integer,
	"contact_id" integer,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 6 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"provider_message_id" text,
	"sentat" timestamp with time zone,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notify_deliveries" ADD CONSTRAINT "notify_deliveries_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notify_deliveries_idempotency_key_uq" ON "notify_deliveries" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "notify_deliveries_due_idx" ON "notify_deliveries" USING btree ("next_attempt_at") WHERE "notify_deliveries"."status" in ('pending', 'sending');--> statement-breakpoint
CREATE INDEX "notify_deliveries_recipient_idx" ON "notify_deliveries" USING btree ("channel","recipient","sentat");--> statement-breakpoint
CREATE INDEX "notify_deliveries_contact_idx" ON "notify_deliveries" USING btree ("contact_id","createdat");--> statement-breakpoint
CREATE INDEX "notify_deliveries_uid_idx" ON "notify_deliveries" USING btree ("uid","createdat");