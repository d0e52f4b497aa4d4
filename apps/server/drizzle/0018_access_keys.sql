CREATE TABLE "access_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" integer NOT NULL,
	"access_key" text NOT NULL,
	"secret" text NOT NULL,
	"name" text NOT NULL,
	"scopes" text[] NOT NULL,
	"ip_allow" text[] NOT NULL,
	"expires_at" timestamp with time zone,
	"enabled" boolean DEFAULT true NOT NULL,
	"verified" boolean DEFAULT false NOT NULL,
	"last_used_at" timestamp with time zone,
	"last_used_ip" text,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "access_key_nonces" (
	"access_key_id" integer NOT NULL,
	"nonce" text NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "access_key_nonces_access_key_id_nonce_pk" PRIMARY KEY("access_key_id","nonce")
);
--> statement-breakpoint
CREATE TABLE "access_key_uses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"access_key_id" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"ip" text NOT NULL,
	"code" integer NOT NULL,
	"status" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "access_key_codes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"access_key_id" integer NOT NULL,
	"channel" text NOT NULL,
	"target" text NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "access_keys" ADD CONSTRAINT "access_keys_uid_users_id_fk" FOREIGN KEY ("uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_key_nonces" ADD CONSTRAINT "access_key_nonces_access_key_id_access_keys_id_fk" FOREIGN KEY ("access_key_id") REFERENCES "public"."access_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_key_uses" ADD CONSTRAINT "access_key_uses_access_key_id_access_keys_id_fk" FOREIGN KEY ("access_key_id") REFERENCES "public"."access_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_key_codes" ADD CONSTRAINT "access_key_codes_access_key_id_access_keys_id_fk" FOREIGN KEY ("access_key_id") REFERENCES "public"."access_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "access_keys_access_key_uq" ON "access_keys" USING btree ("access_key");--> statement-breakpoint
CREATE INDEX "access_keys_uid_idx" ON "access_keys" USING btree ("uid","id");--> statement-breakpoint
CREATE INDEX "access_key_nonces_seen_idx" ON "access_key_nonces" USING btree ("seen_at");--> statement-breakpoint
CREATE INDEX "access_key_uses_key_at_idx" ON "access_key_uses" USING btree ("access_key_id","at");--> statement-breakpoint
CREATE INDEX "access_key_uses_at_idx" ON "access_key_uses" USING btree ("at");--> statement-breakpoint
CREATE INDEX "access_key_codes_key_idx" ON "access_key_codes" USING btree ("access_key_id","id");
