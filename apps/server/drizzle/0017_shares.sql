CREATE TABLE "device_shares" (
	"id" serial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"owner_uid" integer NOT NULL,
	"grantee_uid" integer NOT NULL,
	"right" text NOT NULL,
	"expires_at" timestamp with time zone,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL,
	"updatedat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "share_links" (
	"id" serial PRIMARY KEY NOT NULL,
	"owner_uid" integer NOT NULL,
	"token_hash" text NOT NULL,
	"right" text NOT NULL,
	"expires_at" timestamp with time zone,
	"max_uses" integer,
	"uses" integer DEFAULT 0 NOT NULL,
	"revoked_at" timestamp with time zone,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "share_link_devices" (
	"link_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	CONSTRAINT "share_link_devices_link_id_device_id_pk" PRIMARY KEY("link_id","device_id")
);
--> statement-breakpoint
ALTER TABLE "device_shares" ADD CONSTRAINT "device_shares_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_shares" ADD CONSTRAINT "device_shares_owner_uid_users_id_fk" FOREIGN KEY ("owner_uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_shares" ADD CONSTRAINT "device_shares_grantee_uid_users_id_fk" FOREIGN KEY ("grantee_uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_owner_uid_users_id_fk" FOREIGN KEY ("owner_uid") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_link_devices" ADD CONSTRAINT "share_link_devices_link_id_share_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."share_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_link_devices" ADD CONSTRAINT "share_link_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "device_shares_device_grantee_uq" ON "device_shares" USING btree ("device_id","grantee_uid");--> statement-breakpoint
CREATE INDEX "device_shares_grantee_idx" ON "device_shares" USING btree ("grantee_uid");--> statement-breakpoint
CREATE INDEX "device_shares_owner_idx" ON "device_shares" USING btree ("owner_uid");--> statement-breakpoint
CREATE UNIQUE INDEX "share_links_token_hash_uq" ON "share_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "share_links_owner_idx" ON "share_links" USING btree ("owner_uid","id") WHERE "share_links"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "share_link_devices_device_idx" ON "share_link_devices" USING btree ("device_id");--> statement-breakpoint
-- A device's shares (and its place in links) end when its owner changes: unbind (owner to none), transfer or an
-- import that gives it to another user. In the database, so no path that writes devices.uid can forget it.
CREATE FUNCTION "device_shares_end_on_owner_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM "device_shares" WHERE "device_id" = NEW."id";
	DELETE FROM "share_link_devices" WHERE "device_id" = NEW."id";
	RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "devices_owner_change_ends_shares" AFTER UPDATE OF "uid" ON "devices" FOR EACH ROW WHEN (OLD."uid" IS DISTINCT FROM NEW."uid") EXECUTE FUNCTION "device_shares_end_on_owner_change"();--> statement-breakpoint
-- Every ended share (revoked, left, owner changed, device deleted) is announced to the instances on PostgreSQL,
-- whichever statement deleted it: their share audience caches drop the device at once (shares.plugin.ts).
CREATE FUNCTION "device_shares_announce_end"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('cellhub_share_changes', OLD."device_id"::text);
	RETURN OLD;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "device_shares_end_announced" AFTER DELETE ON "device_shares" FOR EACH ROW EXECUTE FUNCTION "device_shares_announce_end"();
