/**
 * The uploaded-file store shared by firmware, applications and scenes. A file is streamed into a FileStore while its
 * size is counted, its first bytes are checked and MD5 and SHA-256 are computed; it becomes readable under a new id
 * only when every check passed. Nothing is ever held whole in memory, and a refused file leaves nothing behind.
 *
 * Two stores (FILE_STORE, docs/storage.md): `dir` keeps files at DATA_DIR/files/<area>/<file_id> (one instance;
 * an upload goes to a temporary file beside its final place, so the rename is atomic); `postgres` keeps them in
 * the database in chunks (lib/file-store-pg.ts), so every instance on one database serves every file.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { AppError, formError } from './app-error';
import type { Deps } from './deps';
import { pgFileStore } from './file-store-pg';
import type { FileRef, FileStore } from './file-store-types';

export type { ByteSpan, FileRef, FileStore, FileWriter } from './file-store-types';

export type FileStoreDeps = Pick<Deps, 'config' | 'db' | 'log'>;

export interface StoredFile {
  fileId: string;
  size: number;
  md5: string;
  sha256: string;
}

export interface StreamStoreOptions {
  store: FileStore;
  /** The area (a folder name): `firmware`, `applications`, `scenes`. */
  area: string;
  maxBytes: number;
  /** The 50001 refusal past `maxBytes` (its message names what is too large). */
  tooLarge: () => AppError;
  /**
   * Why the first bytes (at most SNIFF_BYTES; `complete` when that is the whole file) cannot be a file of this
   * kind, or undefined when they can. A reason answers 415 / 50002.
   */
  sniff: (head: Buffer, complete: boolean) => string | undefined;
  /** A refusal known before the first byte (the file name): the source is still drained when asked to. */
  refused?: AppError;
  /** The digest the caller expects; a mismatch refuses the file (10113 on `checksum`). */
  expect?: { algorithm: 'md5' | 'sha256'; checksum: string };
  /**
   * Keep reading the source to its end after a refusal. An HTTP upload must be read to the end for the client to
   * receive the answer; a download of our own is better cut short.
   */
  drainOnFailure: boolean;
}

export const SNIFF_BYTES = 512;

/** The directory of an area's files under DATA_DIR (the `dir` store; the `postgres` store reads old files there). */
export const filesDir = (deps: Pick<Deps, 'config'>, area: string): string =>
  path.join(deps.config.dataDir, 'files', area);

/** A stored file's path; `fileId` is reduced to its base name so it can never leave the directory. */
export const storedFilePath = (dir: string, fileId: string): string => path.join(dir, path.basename(fileId));

/** FILE_STORE=dir: DATA_DIR/files/<area>/<file_id>; uploads in progress in <area>/tmp/. */
export function dirFileStore(dataDir: string): FileStore {
  const dirOf = (area: string) => path.join(dataDir, 'files', path.basename(area));
  const pathOf = (ref: FileRef) => storedFilePath(dirOf(ref.area), ref.fileId);
  return {
    kind: 'dir',
    writer(area) {
      const tmp = path.join(dirOf(area), 'tmp', `${randomUUID()}.part`);
      let out: ReturnType<typeof createWriteStream> | undefined;
      let outDone: Promise<unknown> = Promise.resolve();
      // A write error is raised by the next write or by commit; this keeps it from being an unhandled 'error'.
      let writeError: Error | undefined;
      const open = async () => {
        await mkdir(path.dirname(tmp), { recursive: true });
        const s = createWriteStream(tmp, { flags: 'wx' });
        outDone = once(s, 'close');
        s.on('error', (err) => (writeError = err));
        return s;
      };
      return {
        async write(chunk) {
          out ??= await open();
          if (writeError) throw writeError;
          if (!out.write(chunk)) await once(out, 'drain');
        },
        async commit() {
          out ??= await open();
          out.end();
          await outDone;
          if (writeError) {
            await rm(tmp, { force: true });
            throw writeError;
          }
          const fileId = randomUUID();
          await rename(tmp, pathOf({ area, fileId }));
          return fileId;
        },
        async abort() {
          if (!out) return;
          out.destroy();
          await outDone.catch(() => undefined);
          await rm(tmp, { force: true });
        },
      };
    },
    read: (ref, span) => createReadStream(pathOf(ref), span ? { start: span.start, end: span.end } : {}),
    async size(ref) {
      try {
        const st = await stat(pathOf(ref));
        return st.isFile() ? st.size : undefined;
      } catch {
        return undefined;
      }
    },
    async remove(area, fileIds) {
      await Promise.all(fileIds.map((id) => rm(pathOf({ area, fileId: id }), { force: true })));
    },
    async sweepPartial(before) {
      let removed = 0;
      const areas = await readdir(path.join(dataDir, 'files')).catch(() => [] as string[]);
      for (const area of areas) {
        const tmp = path.join(dirOf(area), 'tmp');
        const parts = await readdir(tmp).catch(() => [] as string[]);
        for (const name of parts.filter((n) => n.endsWith('.part'))) {
          const file = path.join(tmp, name);
          // The last write's time: an upload still going is never taken.
          const st = await stat(file).catch(() => undefined);
          if (!st || st.mtime >= before) continue;
          await rm(file, { force: true });
          removed++;
        }
      }
      return removed;
    },
  };
}

/** Uploads left unfinished this long are removed (`sweepPartialUploads`). */
export const PARTIAL_UPLOAD_MAX_AGE_MS = 24 * 3_600_000;

/**
 * Removes what uploads interrupted by a crash left behind (a temporary file, or an incomplete file's rows in the
 * database), once nothing was written to them for PARTIAL_UPLOAD_MAX_AGE_MS; answers how many. Run hourly
 * (modules/files/files.plugin.ts).
 */
export async function sweepPartialUploads(deps: FileStoreDeps, now: Date): Promise<number> {
  const removed = await fileStore(deps).sweepPartial(new Date(now.getTime() - PARTIAL_UPLOAD_MAX_AGE_MS));
  if (removed > 0) deps.log.info({ removed }, 'removed unfinished uploads');
  return removed;
}

/** The store FILE_STORE names. Stateless: cheap to ask for on every call. */
export function fileStore(deps: FileStoreDeps): FileStore {
  const dir = dirFileStore(deps.config.dataDir);
  return deps.config.fileStore === 'postgres' ? pgFileStore(deps.db, dir) : dir;
}

export const fileTypeError = (reason: string): AppError =>
  new AppError(50002, 415, `File type error: ${reason}`, [{ field: 'file', message: reason }]);

export const startsWith = (b: Buffer, sig: number[], at = 0): boolean => sig.every((v, i) => b[at + i] === v);

/** Valid UTF-8 made only of printable characters and ordinary white space: a text file, not a binary. */
export function looksLikeText(b: Buffer, complete: boolean): boolean {
  if (b.length === 0) return false;
  // A multi-byte character cut at the end of the sniffed window is still text.
  let end = b.length;
  if (!complete) {
    let i = b.length - 1;
    let back = 0;
    while (i >= 0 && back < 3 && (b[i]! & 0xc0) === 0x80) {
      i--;
      back++;
    }
    if (i >= 0 && b[i]! >= 0xc0) end = i;
  }
  const text = b.subarray(0, end);
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(text);
  } catch {
    return false;
  }
  for (const c of text) {
    if (c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x1b) continue;
    if (c < 0x20 || c === 0x7f) return false;
  }
  return true;
}

const MARKUP = /^\s*(<!doctype|<html|<\?xml|<\?php|<script|<svg|<head|<body|<%|#!)/i;

/** True when the first bytes (after a UTF-8 BOM) open a web page, markup or a script. */
export function looksLikeMarkup(head: Buffer): boolean {
  const withoutBom = startsWith(head, [0xef, 0xbb, 0xbf]) ? head.subarray(3) : head;
  return MARKUP.test(withoutBom.subarray(0, 64).toString('latin1'));
}

/** `head` without a leading UTF-8 byte order mark. */
export const withoutBom = (head: Buffer): Buffer =>
  startsWith(head, [0xef, 0xbb, 0xbf]) ? head.subarray(3) : head;

/**
 * Streams `source` into `options.store` under `options.area`. Refusals: 50002 for `refused` or the first bytes,
 * 50001 past `maxBytes`, 10113 for an empty file or a checksum mismatch. A refused file leaves nothing behind.
 */
export async function storeStream(source: Readable, options: StreamStoreOptions): Promise<StoredFile> {
  const max = options.maxBytes;
  let failure: AppError | undefined = options.refused;
  if (failure && !options.drainOnFailure) throw failure;

  const out = options.store.writer(options.area);
  const md5 = createHash('md5');
  const sha256 = createHash('sha256');
  let size = 0;
  let head: Buffer = Buffer.alloc(0);
  let sniffed = false;

  try {
    for await (const data of source) {
      if (failure) {
        if (options.drainOnFailure) continue;
        break;
      }
      const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as Uint8Array);
      size += chunk.length;
      if (size > max) {
        failure = options.tooLarge();
        continue;
      }
      if (!sniffed) {
        head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
        if (head.length >= SNIFF_BYTES) {
          sniffed = true;
          const reason = options.sniff(head, false);
          if (reason) {
            failure = fileTypeError(reason);
            continue;
          }
        }
      }
      md5.update(chunk);
      sha256.update(chunk);
      await out.write(chunk);
    }
    if (!failure && size === 0) failure = formError('file', 'the file is empty');
    if (!failure && !sniffed) {
      const reason = options.sniff(head, true);
      if (reason) failure = fileTypeError(reason);
    }
  } catch (err) {
    await out.abort();
    // A multipart limit of the request (one byte over the maximum) ends the part with a 413 error.
    if ((err as { statusCode?: number }).statusCode === 413) throw options.tooLarge();
    throw err;
  }
  if (failure) {
    await out.abort();
    throw failure;
  }

  const digests = { md5: md5.digest('hex'), sha256: sha256.digest('hex') };
  if (options.expect?.checksum && digests[options.expect.algorithm] !== options.expect.checksum) {
    await out.abort();
    throw new AppError(10113, 400, 'The checksum does not match the file', [
      {
        field: 'checksum',
        message: `does not match the file (its ${options.expect.algorithm} is ${digests[options.expect.algorithm]})`,
      },
    ]);
  }
  const fileId = await out.commit();
  return { fileId, size, ...digests };
}

/** Removes stored files; a file already gone is fine, any other failure is logged, never thrown. */
export async function removeStoredFiles(deps: FileStoreDeps, area: string, fileIds: string[]): Promise<void> {
  if (fileIds.length === 0) return;
  await fileStore(deps)
    .remove(area, fileIds)
    .catch((err: unknown) => deps.log.warn({ err, area, fileIds }, 'could not remove stored files'));
}

/**
 * The name a file is recorded with: its base name, printable, at most 255 characters, or `fallback`. Bidi controls
 * go too: `invoice\u202Egpj.exe` would show as `invoiceexe.jpg` in a download dialog.
 */
export const cleanFilename = (name: string, fallback: string): string =>
  (name.split(/[\\/]/).pop() ?? '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .slice(-255) || fallback;
