/**
 * Sending a stored file: Range requests (206 / 416), If-Range, the ETag and a Content-Disposition that keeps any
 * file name (RFC 6266 / RFC 5987). Shared by the OTA download of devices and the downloads of people.
 */
import type { Readable } from 'node:stream';
import { AppError } from './app-error';
import type { ByteSpan } from './file-store-types';

/**
 * `Range: bytes=a-b | a- | -n` against a file of `size` bytes: the inclusive byte span, `undefined` to send the whole
 * file (no header, or several ranges, which a client resuming a download never asks for), or `null` when it cannot
 * be satisfied (416).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | undefined | null {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return null;
  const spec = m[1]!.trim();
  if (spec.includes(',')) return undefined;
  const r = /^(\d*)-(\d*)$/.exec(spec);
  if (!r || (r[1] === '' && r[2] === '')) return null;
  if (r[1] === '') {
    const suffix = Number(r[2]);
    if (suffix === 0 || size === 0) return null;
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(r[1]);
  const end = r[2] === '' ? size - 1 : Math.min(Number(r[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size || end < start) return null;
  return { start, end };
}

/**
 * `attachment` with the name twice: an ASCII fallback (`filename=`, anything else as `_`) for old clients and the
 * exact UTF-8 name (`filename*=UTF-8''...`, RFC 5987) that every current browser prefers, so a Chinese name survives.
 */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'download';
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export interface FileAnswer {
  status: 200 | 206;
  headers: Record<string, string>;
  /** Undefined for an empty file. */
  stream: Readable | undefined;
}

/**
 * The answer for a stored file of `size` bytes read by `read` (a FileStore's, lib/file-store.ts): the whole file, or the asked span (206) when `range`
 * holds one and `ifRange` (if sent) is still the file's ETag; an unsatisfiable span throws 416 / 10113 with
 * `Content-Range: bytes *\/size`. `headers` are added to the answer (content type, disposition, cache control).
 */
export function fileAnswer(
  file: { read: (span?: ByteSpan) => Readable; size: number; etag: string },
  request: { range?: string; ifRange?: string },
  headers: Record<string, string>,
): FileAnswer {
  const { size } = file;
  const out: Record<string, string> = { ...headers, 'accept-ranges': 'bytes', etag: file.etag };
  // If-Range with another validator: the file changed since the partial download began, so send all of it.
  const range = request.ifRange !== undefined && request.ifRange !== file.etag ? undefined : request.range;
  const span = parseRange(range, size);
  if (span === null) {
    const err = new AppError(10113, 416, 'Range not satisfiable', [
      { field: 'range', message: 'not satisfiable' },
    ]);
    err.headers['content-range'] = `bytes */${size}`;
    throw err;
  }
  if (span) {
    out['content-range'] = `bytes ${span.start}-${span.end}/${size}`;
    out['content-length'] = String(span.end - span.start + 1);
    return {
      status: 206,
      headers: out,
      stream: file.read(span),
    };
  }
  out['content-length'] = String(size);
  return { status: 200, headers: out, stream: size > 0 ? file.read() : undefined };
}
