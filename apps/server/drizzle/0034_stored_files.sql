-- 0034_stored_files: the PostgreSQL file store (FILE_STORE=postgres, issue 21): files shared by every instance,
-- in 256 KiB bytea chunks so a Range download reads only the chunks it needs and an upload never sits in memory.
CREATE TABLE "stored_files" (
	"key" text PRIMARY KEY NOT NULL,
	"size" bigint DEFAULT 0 NOT NULL,
	"chunk_size" integer NOT NULL,
	"complete" boolean DEFAULT false NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stored_file_chunks" (
	"key" text NOT NULL,
	"idx" integer NOT NULL,
	"data" bytea NOT NULL,
	CONSTRAINT "stored_file_chunks_key_idx_pk" PRIMARY KEY("key","idx")
);
--> statement-breakpoint
ALTER TABLE "stored_file_chunks" ADD CONSTRAINT "stored_file_chunks_key_stored_files_key_fk" FOREIGN KEY ("key") REFERENCES "public"."stored_files"("key") ON DELETE cascade ON UPDATE no action;
