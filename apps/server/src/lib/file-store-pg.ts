/**
 * FILE_STORE=postgres (docs/storage.md): files in the database, shared by every instance on it. A file is a row of
 * `stored_files` and its bytes are rows of `stored_file_chunks`, CHUNK_BYTES each: an upload writes one chunk at a
 * time (never the whole file in memory, never one long transaction), and a Range download reads only the chunks
 * its span touches, a few at a time. A file becomes readable when its upload commits (`complete`); an aborted
 * upload deletes its rows, and deleting the file row deletes its chunks (ON DELETE CASCADE). An upload the server
 * died under stays incomplete until `sweepPartial` removes it (hourly, after a day).
 *
 * Files stored under FILE_STORE=dir before the switch are still read from DATA_DIR (`legacy`), and removed there.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { and, asc, between, eq, inArray, lt } from 'drizzle-orm';
import type { Db } from '../db/client';
import { storedFileChunks, storedFiles } from '../modules/files/files.table';
import type { ByteSpan, FileRef, FileStore, FileWriter } from './file-store-types';

/** 256 KiB: a Range read wastes at most two partial chunks; a 64 MiB firmware is 256 rows. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks per query of a download: about 1 MiB held per download in flight. */
const READ_BATCH = 4;

const keyOf = (ref: FileRef): string => `${ref.area}/${ref.fileId}`;

export function pgFileStore(db: Db, legacy?: FileStore, chunkBytes = CHUNK_BYTES): FileStore {
  const head = async (key: string) => {
    const [f] = await db
      .select({ size: storedFiles.size, chunkSize: storedFiles.chunkSize })
      .from(storedFiles)
      .where(and(eq(storedFiles.key, key), eq(storedFiles.complete, true)));
    return f;
  };

  async function* bytes(ref: FileRef, span: ByteSpan | undefined): AsyncGenerator<Buffer> {
    const key = keyOf(ref);
    const f = await head(key);
    if (!f) {
      if (legacy && (await legacy.size(ref)) !== undefined) {
        for await (const b of legacy.read(ref, span)) yield b as Buffer;
        return;
      }
      throw new Error(`stored file ${key} not found`);
    }
    const start = span?.start ?? 0;
    const end = Math.min(span?.end ?? f.size - 1, f.size - 1);
    if (end < start) return;
    const cs = f.chunkSize;
    const last = Math.floor(end / cs);
    for (let first = Math.floor(start / cs); first <= last; first += READ_BATCH) {
      const upTo = Math.min(last, first + READ_BATCH - 1);
      const rows = await db
        .select({ idx: storedFileChunks.idx, data: storedFileChunks.data })
        .from(storedFileChunks)
        .where(and(eq(storedFileChunks.key, key), between(storedFileChunks.idx, first, upTo)))
        .orderBy(asc(storedFileChunks.idx));
      if (rows.length !== upTo - first + 1) throw new Error(`stored file ${key} is missing chunks`);
      for (const r of rows) {
        const base = r.idx * cs;
        yield r.data.subarray(Math.max(0, start - base), Math.min(r.data.length, end - base + 1));
      }
    }
  }

  return {
    kind: 'postgres',
    writer(area: string): FileWriter {
      const fileId = randomUUID();
      const key = keyOf({ area, fileId });
      let parts: Buffer[] = [];
      let buffered = 0;
      let idx = 0;
      let size = 0;
      let started = false;
      const begin = async () => {
        if (started) return;
        await db.insert(storedFiles).values({ key, chunkSize: chunkBytes });
        started = true;
      };
      const put = async (data: Buffer) => {
        await begin();
        await db.insert(storedFileChunks).values({ key, idx, data });
        idx++;
        size += data.length;
      };
      return {
        async write(chunk) {
          parts.push(chunk);
          buffered += chunk.length;
          if (buffered < chunkBytes) return;
          let all = Buffer.concat(parts, buffered);
          while (all.length >= chunkBytes) {
            await put(all.subarray(0, chunkBytes));
            all = all.subarray(chunkBytes);
          }
          parts = all.length ? [all] : [];
          buffered = all.length;
        },
        async commit() {
          if (buffered > 0) await put(Buffer.concat(parts, buffered));
          parts = [];
          buffered = 0;
          await begin();
          await db.update(storedFiles).set({ size, complete: true }).where(eq(storedFiles.key, key));
          return fileId;
        },
        async abort() {
          parts = [];
          buffered = 0;
          if (started) await db.delete(storedFiles).where(eq(storedFiles.key, key));
        },
      };
    },
    read: (ref, span) => Readable.from(bytes(ref, span), { objectMode: false }),
    async size(ref) {
      const f = await head(keyOf(ref));
      if (f) return f.size;
      return legacy?.size(ref);
    },
    async remove(area, fileIds) {
      if (fileIds.length === 0) return;
      await db.delete(storedFiles).where(
        inArray(
          storedFiles.key,
          fileIds.map((fileId) => keyOf({ area, fileId })),
        ),
      );
      await legacy?.remove(area, fileIds);
    },
    async sweepPartial(before) {
      // An upload's row is written with its first chunk; its chunks go with it (ON DELETE CASCADE).
      const gone = await db
        .delete(storedFiles)
        .where(and(eq(storedFiles.complete, false), lt(storedFiles.createdat, before)))
        .returning({ key: storedFiles.key });
      return gone.length + ((await legacy?.sweepPartial(before)) ?? 0);
    },
  };
}
