/**
 * The firmware artifact store: binaries live in the file store (FILE_STORE: DATA_DIR/files/firmware/<file_id> or
 * the database), streamed in by the shared store (lib/file-store.ts: size, first bytes, MD5 and SHA-256 while
 * streaming, nothing held in memory). This file knows
 * what a firmware binary is: its name endings, its signatures and its size limit.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import { type ChecksumAlgorithm, FIRMWARE_EXTENSIONS } from '@cellhub/contract/firmware';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';
import {
  type FileRef,
  fileStore,
  type FileStoreDeps,
  fileTypeError,
  filesDir,
  looksLikeMarkup,
  looksLikeText,
  removeStoredFiles,
  startsWith,
  type StoredFile,
  storeStream,
  withoutBom,
} from '../../lib/file-store';

export type StoredFirmwareFile = StoredFile;

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

const AREA = 'firmware';

/** Where the `dir` store keeps binaries (DATA_DIR/files/firmware). */
export const firmwareDir = (deps: Pick<Deps, 'config'>): string => filesDir(deps, AREA);

/** A version's binary in the file store (FILE_STORE). */
export const firmwareFileRef = (fileId: string): FileRef => ({ area: AREA, fileId });

/** The allowed ending of `filename` ('' when it has none), or a 50002 refusal. */
export function firmwareExtension(filename: string, allowNoExtension = false): string {
  const base = path.basename(filename.trim()).toLowerCase();
  const ext = FIRMWARE_EXTENSIONS.find((e) => base.endsWith(e) && base.length > e.length);
  if (ext) return ext;
  if (allowNoExtension && !base.includes('.')) return '';
  throw fileTypeError(`the file name must end with one of ${FIRMWARE_EXTENSIONS.join(' ')}`);
}

/**
 * Why the first bytes of a file cannot be a firmware binary of that ending, or undefined when they can.
 * Archives must carry their own signature; Intel HEX (.hex) is text of its own form; anything else must not be
 * text: a web page, a script or a text file renamed to .bin is refused (it would brick nothing, but it is a mistake).
 */
export function sniffFirmware(head: Buffer, ext: string, complete: boolean): string | undefined {
  if (looksLikeMarkup(head)) return 'the file is a web page or a script, not a firmware binary';
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
      return looksLikeText(withoutBom(head), complete)
        ? 'the file is text, not a firmware binary'
        : undefined;
  }
}

/**
 * Streams `source` into the store. Refusals: 50002 for the name or the first bytes, 50001 past
 * FIRMWARE_MAX_BYTES, 10113 for an empty file or a checksum mismatch. A refused file leaves nothing behind.
 */
export async function storeFirmwareStream(
  deps: FileStoreDeps,
  source: Readable,
  options: StoreOptions,
): Promise<StoredFirmwareFile> {
  const max = deps.config.firmwareMaxBytes;
  let refused: AppError | undefined;
  let ext = '';
  try {
    ext = firmwareExtension(options.filename, options.allowNoExtension);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    refused = err;
  }
  return storeStream(source, {
    store: fileStore(deps),
    area: AREA,
    maxBytes: max,
    tooLarge: () =>
      new AppError(50001, 413, `The firmware is larger than the limit of ${max} bytes`, { max_bytes: max }),
    sniff: (head, complete) => sniffFirmware(head, ext, complete),
    refused,
    expect: options.expect,
    drainOnFailure: options.drainOnFailure,
  });
}

/** Removes stored binaries; a file already gone is fine, any other failure is logged, never thrown. */
export async function removeFirmwareFiles(deps: FileStoreDeps, fileIds: string[]): Promise<void> {
  await removeStoredFiles(deps, AREA, fileIds);
}
