ALTER TABLE "ota_devices" ADD COLUMN "result_code" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "ota_devices" ADD COLUMN "result_params" jsonb DEFAULT '{}'::jsonb NOT NULL;
--> statement-breakpoint
UPDATE "ota_devices" SET "result_code" = 'offline_pending' WHERE "result" = 'offline: sent when it connects';--> statement-breakpoint
UPDATE "ota_devices" SET "result_code" = 'window_ended' WHERE "result" = 'window ended';--> statement-breakpoint
UPDATE "ota_devices" SET "result_code" = 'task_cancelled' WHERE "result" = 'task cancelled';--> statement-breakpoint
UPDATE "ota_devices" SET "result_code" = 'already_on_version', "result_params" = jsonb_build_object('version', substr("result", 20)) WHERE "result" LIKE 'already on version %';--> statement-breakpoint
UPDATE "ota_devices" SET "result_code" = 'reported_version', "result_params" = jsonb_build_object('version', substr("result", 21)) WHERE "result" LIKE 'reported fw_version %';--> statement-breakpoint
UPDATE "ota_devices" SET "result_code" = 'sim_refused', "result_params" = jsonb_build_object('reason', substr("result", 6)) WHERE "result" LIKE 'SIM: %';--> statement-breakpoint
UPDATE "ota_devices" SET "result_code" = 'timeout', "result_params" = jsonb_build_object('seconds', substring("result" from '^timeout after (\d+) s$')::int) WHERE "result" ~ '^timeout after \d+ s$';
