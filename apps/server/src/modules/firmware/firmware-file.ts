/**
 * The firmware artifact store: binaries live at DATA_DIR/files/firmware/<file_id>. A binary is streamed to a
 * temporary file beside its final place (same file system, so the rename is atomic) while its size is counted, its
 * first bytes are checked and MD5 and SHA-256 are computed; it is renamed into place only when every check passed.
 * Nothing is ever held whole in memory.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { type ChecksumAlgorithm, FIRMWARE_EXTENSIONS } from '@cellhub/contract/firmware';
import { AppError, formError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';

export interface StoredFirmwareFile {
  fileId: string;
  /** Absolute. */
  path: string;
  size: number;
  md5: string;
  sha256: string;
}

export interface StoreOptions {
  /** The uploaded or fetched file's name; its ending must be one of FIRMWARE_EXTENSIONS. */
  filename: string;
  /** A name without any ending passes (a URL like /download?id=3); its bytes are still checked. */
  allowNoExtension?: boolean;
  /** The digest the admin expects; a mismatch refuses the file (10113 on `checksum`). */
  expect?: { algorithm: ChecksumAlgorithm; checksum: string };
  /**
   * Keep reading the source to its end after a refusal. An HTTP upload must be read to the end for the client to
   * receive the answer; a download of our own is better cut short.
   */
  drainOnFailure: boolean;
}

export const firmwareDir = (deps: Pick<Deps, 'config'>): string =>
  path.join(deps.config.dataDir, 'files', 'firmware');

export const firmwareFilePath = (deps: Pick<Deps, 'config'>, fileId: string): string =>
  path.join(firmwareDir(deps), path.basename(fileId));

const SNIFF_BYTES = 512;

const typeError = (reason: string) =>
  new AppError(50002, 415, `File type error: ${reason}`, [{ field: 'file', message: reason }]);

/** The allowed ending of `filename` ('' when it has none), or a 50002 refusal. */
export function firmwareExtension(filename: string, allowNoExtension = false): string {
  const base = path.basename(filename.trim()).toLowerCase();
  const ext = FIRMWARE_EXTENSIONS.find((e) => base.endsWith(e) && base.length > e.length);
  if (ext) return ext;
  if (allowNoExtension && !base.includes('.')) return '';
  throw typeError(`the file name must end with one of ${FIRMWARE_EXTENSIONS.join(' ')}`);
}

const startsWith = (b: Buffer, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);

/** Valid UTF-8 made only of printable characters and ordinary white space: a text file, not a binary. */
function looksLikeText(b: Buffer, complete: boolean): boolean {
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

/**
 * Why the first bytes of a file cannot be a firmware binary of that ending, or undefined when they can.
 * Archives must carry their own signature; Intel HEX (.hex) is text of its own form; anything else must not be
 * text: a web page, a script or a text file renamed to .bin is refused (it would brick nothing, but it is a mistake).
 */
export function sniffFirmware(head: Buffer, ext: string, complete: boolean): string | undefined {
  const withoutBom = startsWith(head, [0xef, 0xbb, 0xbf]) ? head.subarray(3) : head;
  const start = withoutBom.subarray(0, 64).toString('latin1');
  if (MARKUP.test(start)) return 'the file is a web page or a script, not a firmware binary';
  switch (ext) {
    case '.zip':
      return startsWith(head, [0x50, 0x4b, 0x03, 0x04]) ? undefined : 'not a zip archive';
    case '.gz':
    case '.tgz':
      return startsWith(head, [0x1f, 0x8b]) ? undefined : 'not a gzip file';
    case '.tar':
      return head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar'
        ? undefined
        : 'not a tar archive';
    case '.hex':
      return /^:[0-9A-Fa-f]{10}/.test(head.toString('latin1')) &&
        /^[:0-9A-Fa-f\r\n]*$/.test(head.toString('latin1'))
        ? undefined
        : 'not an Intel HEX file';
    default:
      return looksLikeText(withoutBom, complete) ? 'the file is text, not a firmware binary' : undefined;
  }
}

/**
 * Streams `source` into the store. Refusals: 50002 for the name or the first bytes, 50001 past
 * FIRMWARE_MAX_BYTES, 10113 for an empty file or a checksum mismatch. A refused file leaves nothing behind.
 */
export async function storeFirmwareStream(
  deps: Pick<Deps, 'config'>,
  source: Readable,
  options: StoreOptions,
): Promise<StoredFirmwareFile> {
  const max = deps.config.firmwareMaxBytes;
  let failure: AppError | undefined;
  let ext = '';
  try {
    ext = firmwareExtension(options.filename, options.allowNoExtension);
  } catch (err) {
    if (!(err instanceof AppError) || !options.drainOnFailure) throw err;
    failure = err;
  }

  const dir = firmwareDir(deps);
  const tmpDir = path.join(dir, 'tmp');
  await mkdir(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, `${randomUUID()}.part`);
  const out = createWriteStream(tmp, { flags: 'wx' });
  const outDone = once(out, 'close');
  // A write error is raised by `drain` or `finish` below; this keeps it from being an unhandled 'error' event.
  let writeError: Error | undefined;
  out.on('error', (err) => (writeError = err));

  const md5 = createHash('md5');
  const sha256 = createHash('sha256');
  let size = 0;
  let head: Buffer = Buffer.alloc(0);
  let sniffed = false;

  const cleanUp = async () => {
    out.destroy();
    await outDone.catch(() => undefined);
    await rm(tmp, { force: true });
  };

  try {
    for await (const data of source) {
      if (failure) {
        if (options.drainOnFailure) continue;
        break;
      }
      const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as Uint8Array);
      size += chunk.length;
      if (size > max) {
        failure = new AppError(50001, 413, `The firmware is larger than the limit of ${max} bytes`, {
          max_bytes: max,
        });
        continue;
      }
      if (!sniffed) {
        head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
        if (head.length >= SNIFF_BYTES) {
          sniffed = true;
          const reason = sniffFirmware(head, ext, false);
          if (reason) {
            failure = typeError(reason);
            continue;
          }
        }
      }
      md5.update(chunk);
      sha256.update(chunk);
      if (writeError) throw writeError;
      if (!out.write(chunk)) await once(out, 'drain');
    }
    if (!failure && size === 0) failure = formError('file', 'the file is empty');
    if (!failure && !sniffed) {
      const reason = sniffFirmware(head, ext, true);
      if (reason) failure = typeError(reason);
    }
  } catch (err) {
    await cleanUp();
    // The multipart limit of the request (one byte over FIRMWARE_MAX_BYTES) ends the part with a 413 error.
    if ((err as { statusCode?: number }).statusCode === 413) {
      throw new AppError(50001, 413, `The firmware is larger than the limit of ${max} bytes`, {
        max_bytes: max,
      });
    }
    throw err;
  }
  if (failure) {
    await cleanUp();
    throw failure;
  }

  out.end();
  await outDone;
  if (writeError) {
    await rm(tmp, { force: true });
    throw writeError;
  }
  const digests = { md5: md5.digest('hex'), sha256: sha256.digest('hex') };
  if (options.expect?.checksum && digests[options.expect.algorithm] !== options.expect.checksum) {
    await rm(tmp, { force: true });
    throw new AppError(10113, 400, 'The checksum does not match the file', [
      {
        field: 'checksum',
        message: `does not match the file (its ${options.expect.algorithm} is ${digests[options.expect.algorithm]})`,
      },
    ]);
  }
  const fileId = randomUUID();
  const finalPath = firmwareFilePath(deps, fileId);
  await rename(tmp, finalPath);
  return { fileId, path: finalPath, size, ...digests };
}

/** Removes stored binaries; a file already gone is fine, any other failure is logged, never thrown. */
export async function removeFirmwareFiles(
  deps: Pick<Deps, 'config' | 'log'>,
  fileIds: string[],
): Promise<void> {
  await Promise.all(
    fileIds.map((id) =>
      rm(firmwareFilePath(deps, id), { force: true }).catch((err: unknown) =>
        deps.log.warn({ err, fileId: id }, 'could not remove a firmware file'),
      ),
    ),
  );
}
