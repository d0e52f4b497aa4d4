CREATE TABLE "inbox_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"kind" text NOT NULL,
	"category" text NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"target_type" text,
	"target_key" text,
	"dedupe_key" text,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"read_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "inbox_messages" ADD CONSTRAINT "inbox_messages_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "inbox_messages_uid_idx" ON "inbox_messages" USING btree ("uid","category","id");--> statement-breakpoint
CREATE INDEX "inbox_messages_unread_idx" ON "inbox_messages" USING btree ("uid","category") WHERE "inbox_messages"."read_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "inbox_messages_dedupe_uq" ON "inbox_messages" USING btree ("uid","dedupe_key");