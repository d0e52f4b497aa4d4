ALTER TABLE "device_commands" ADD COLUMN "queuedat" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "device_commands" ADD COLUMN "expiresat" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "device_commands" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
CREATE INDEX "device_commands_queue_idx" ON "device_commands" USING btree ("device_id","seq") WHERE "device_commands"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "device_commands_expiry_idx" ON "device_commands" USING btree ("expiresat") WHERE "device_commands"."status" = 'pending';