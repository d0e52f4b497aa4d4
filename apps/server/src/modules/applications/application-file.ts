/**
 * What an application package and an icon are: the name endings and signatures of packages (the bytes are streamed
 * into the shared store, lib/file-store.ts) and the checks of an inline icon.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  APPLICATION_EXTENSIONS,
  APPLICATION_ICON_MAX_BYTES,
  APPLICATION_ICON_TYPES,
} from '@cellhub/contract/applications';
import { AppError, formError } from '../../lib/app-error';
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

type Extension = (typeof APPLICATION_EXTENSIONS)[number];

const AREA = 'applications';

/** Where the `dir` store keeps packages (DATA_DIR/files/applications). */
export const applicationDir = (deps: Pick<Deps, 'config'>): string => filesDir(deps, AREA);

/** A version's package in the file store (FILE_STORE). */
export const applicationFileRef = (fileId: string): FileRef => ({ area: AREA, fileId });

/** The type a package is sent with. Always an attachment, so no type here is ever rendered by the browser. */
const CONTENT_TYPES: Record<Extension, string> = {
  '.exe': 'application/vnd.microsoft.portable-executable',
  '.msi': 'application/x-msi',
  '.apk': 'application/vnd.android.package-archive',
  '.aab': 'application/octet-stream',
  '.ipa': 'application/octet-stream',
  '.zip': 'application/zip',
  '.7z': 'application/x-7z-compressed',
  '.tar.gz': 'application/gzip',
  '.tgz': 'application/gzip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.deb': 'application/vnd.debian.binary-package',
  '.rpm': 'application/x-rpm',
  '.appimage': 'application/octet-stream',
  '.dmg': 'application/x-apple-diskimage',
  '.pkg': 'application/octet-stream',
  '.jar': 'application/java-archive',
  '.bin': 'application/octet-stream',
};

/** The allowed ending of `filename`, or a 50002 refusal. */
export function applicationExtension(filename: string): Extension {
  const base = path.basename(filename.trim()).toLowerCase();
  const ext = APPLICATION_EXTENSIONS.find((e) => base.endsWith(e) && base.length > e.length);
  if (ext) return ext;
  throw fileTypeError(`the file name must end with one of ${APPLICATION_EXTENSIONS.join(' ')}`);
}

export const contentTypeOf = (ext: Extension): string => CONTENT_TYPES[ext];

const ZIP = [0x50, 0x4b, 0x03, 0x04];

/**
 * Why the first bytes cannot be a package of that ending, or undefined when they can. Formats with a signature
 * must carry it; the others (.dmg, .pkg, .bin) must at least not be text, a web page or a script.
 */
export function sniffApplication(head: Buffer, ext: Extension, complete: boolean): string | undefined {
  if (looksLikeMarkup(head)) return 'the file is a web page or a script, not an application package';
  const sig = (bytes: number[], what: string) => (startsWith(head, bytes) ? undefined : `not ${what}`);
  switch (ext) {
    case '.exe':
      return sig([0x4d, 0x5a], 'a Windows executable');
    case '.msi':
      return sig([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 'a Windows installer');
    case '.apk':
    case '.aab':
    case '.ipa':
    case '.jar':
    case '.zip':
      return sig(ZIP, 'a zip archive');
    case '.7z':
      return sig([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], 'a 7z archive');
    case '.tar.gz':
    case '.tgz':
    case '.gz':
      return sig([0x1f, 0x8b], 'a gzip file');
    case '.tar':
      return head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar'
        ? undefined
        : 'not a tar archive';
    case '.deb':
      return head.subarray(0, 8).toString('latin1') === '!<arch>\n' ? undefined : 'not a Debian package';
    case '.rpm':
      return sig([0xed, 0xab, 0xee, 0xdb], 'an RPM package');
    case '.appimage':
      return sig([0x7f, 0x45, 0x4c, 0x46], 'an AppImage (ELF)');
    default:
      return looksLikeText(withoutBom(head), complete)
        ? 'the file is text, not an application package'
        : undefined;
  }
}

export const packageTooLarge = (max: number): AppError =>
  new AppError(50001, 413, `The package is larger than the limit of ${max} bytes`, { max_bytes: max });

/**
 * Streams a package into the file store (FILE_STORE). Refusals: 50002 for the name or the first bytes, 50001 past
 * APPLICATION_MAX_BYTES, 10113 for an empty file or a SHA-256 other than `expectSha256`.
 */
export async function storeApplicationStream(
  deps: FileStoreDeps,
  source: Readable,
  filename: string,
  expectSha256: string,
): Promise<StoredFile & { contentType: string }> {
  const max = deps.config.applicationMaxBytes;
  let refused: AppError | undefined;
  let ext: Extension = '.bin';
  try {
    ext = applicationExtension(filename);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    refused = err;
  }
  try {
    const stored = await storeStream(source, {
      store: fileStore(deps),
      area: AREA,
      maxBytes: max,
      tooLarge: () => packageTooLarge(max),
      sniff: (head, complete) => sniffApplication(head, ext, complete),
      refused,
      expect: expectSha256 ? { algorithm: 'sha256', checksum: expectSha256 } : undefined,
      drainOnFailure: true,
    });
    return { ...stored, contentType: contentTypeOf(ext) };
  } catch (err) {
    // The contract names the expected digest `sha256`; the store names it `checksum`.
    if (err instanceof AppError && err.code === 10113 && JSON.stringify(err.details).includes('"checksum"')) {
      throw new AppError(10113, 400, err.message, [
        { field: 'sha256', message: (err.details as { message: string }[])[0]?.message ?? 'mismatch' },
      ]);
    }
    throw err;
  }
}

export const removeApplicationFiles = (deps: FileStoreDeps, fileIds: string[]): Promise<void> =>
  removeStoredFiles(deps, AREA, fileIds);

const ICON_SIGNATURES: Record<(typeof APPLICATION_ICON_TYPES)[number], (b: Buffer) => boolean> = {
  'image/png': (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  'image/webp': (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

const iconTypeError = (reason: string) =>
  new AppError(50002, 415, `File type error: ${reason}`, [{ field: 'icon', message: reason }]);

/**
 * The icon as it is stored: '' stays '', a data URL is decoded and checked (PNG, JPEG or WebP by its bytes, at most
 * APPLICATION_ICON_MAX_BYTES) and written back in one normal form. SVG and every other type answer 415 / 50002, since
 * an SVG can carry script and the list shows icons to every user.
 */
export function checkIcon(icon: string): string {
  if (icon === '') return '';
  const m = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)(;[^,]*)?,(.*)$/is.exec(icon);
  if (!m) throw formError('icon', 'must be a data URL');
  const type = m[1]!.toLowerCase();
  if (!(APPLICATION_ICON_TYPES as readonly string[]).includes(type)) {
    throw iconTypeError(`the icon must be one of ${APPLICATION_ICON_TYPES.join(' ')}`);
  }
  if (!/;base64$/i.test(m[2] ?? '')) throw formError('icon', 'must be base64 encoded');
  const data = m[3]!.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 === 1)
    throw formError('icon', 'invalid base64');
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length === 0) throw formError('icon', 'the image is empty');
  if (bytes.length > APPLICATION_ICON_MAX_BYTES) {
    throw new AppError(50001, 413, `The icon is larger than ${APPLICATION_ICON_MAX_BYTES} bytes`, {
      max_bytes: APPLICATION_ICON_MAX_BYTES,
    });
  }
  if (!ICON_SIGNATURES[type as keyof typeof ICON_SIGNATURES](bytes)) {
    throw iconTypeError(`the bytes are not a ${type} image`);
  }
  return `data:${type};base64,${bytes.toString('base64')}`;
}
