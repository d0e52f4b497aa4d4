-- 0033_script_keep_raw: whether a script's decoded raw uplinks are also kept as raw messages (issue 16).
-- Off by default: a frame the script decodes is stored as its values; a frame it cannot decode is always kept raw.
ALTER TABLE "scripts" ADD COLUMN "keep_raw" boolean DEFAULT false NOT NULL;
