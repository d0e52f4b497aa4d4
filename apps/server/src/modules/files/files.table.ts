import { bigint, boolean, customType, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdat } from '../../db/columns';

/** `bytea` as a Buffer on both drivers (node-postgres and PGlite answer a Buffer or a Uint8Array). */
const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

/**
 * Files of the PostgreSQL file store (FILE_STORE=postgres, lib/file-store-pg.ts; docs/storage.md): firmware
 * binaries, application packages and scene images shared by every instance on one database. `key` is
 * `<area>/<file_id>`; the row exists from the first byte of an upload, and only a `complete` file is ever read.
 */
export const storedFiles = pgTable('stored_files', {
  key: text('key').primaryKey(),
  size: bigint('size', { mode: 'number' }).notNull().default(0),
  /** Bytes per chunk (the last one may be shorter): a Range read computes which chunks it needs. */
  chunkSize: integer('chunk_size').notNull(),
  complete: boolean('complete').notNull().default(false),
  createdat: createdat(),
});

/** The bytes of a stored file in chunks of `chunk_size`, numbered from 0; deleting the file deletes them. */
export const storedFileChunks = pgTable(
  'stored_file_chunks',
  {
    key: text('key')
      .notNull()
      .references(() => storedFiles.key, { onDelete: 'cascade' }),
    idx: integer('idx').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.idx] })],
);
