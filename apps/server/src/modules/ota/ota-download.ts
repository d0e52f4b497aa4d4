import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';
import { getFirmwareVersionFile } from '../firmware/firmware.service';
import { verifyDownloadToken } from './ota-token';
import { otaDevices, otaTasks } from './ota.table';

export interface DownloadAnswer {
  status: 200 | 206;
  headers: Record<string, string>;
  stream: ReadStream | undefined;
  /** The upgrade log row the token was for (its downloads are counted). */
  rowId: number;
}

/** Wrong, tampered, superseded or expired tokens all answer the same (71004, HTTP 403). */
const denied = () => new AppError(71004);

/**
 * `Range: bytes=a-b | a- | -n` against a file of `size` bytes: the inclusive byte span, `undefined` to send the whole
 * file (no header, or several ranges, which a DTU resuming a download never asks for), or `null` when it cannot be
 * satisfied (416).
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

type FileCache = Map<number, { at: number; file: Awaited<ReturnType<typeof getFirmwareVersionFile>> }>;
/** Per app (its data folder): version files looked up in the last few seconds, so 10,000 devices need one query. */
const caches = new WeakMap<Deps, FileCache>();

async function versionFile(deps: Deps, versionId: number) {
  let fileCache = caches.get(deps);
  if (!fileCache) caches.set(deps, (fileCache = new Map()));
  const hit = fileCache.get(versionId);
  if (hit && Date.now() - hit.at < 5000) return hit.file;
  const file = await getFirmwareVersionFile(deps, versionId);
  fileCache.set(versionId, { at: Date.now(), file });
  if (fileCache.size > 100) fileCache.delete(fileCache.keys().next().value!);
  return file;
}

/**
 * GET /api/ota/download/:token. The token (ota-token.ts) names one upgrade log row and attempt and expires 24 h
 * after the dispatch; a later attempt of the same device gets a new token and the old one stops working. Answers
 * Range requests (206, 416), `If-Range` (a changed ETag sends the whole file), `ETag` = the firmware checksum.
 */
export async function openDownload(
  deps: Deps,
  token: string,
  headers: { range?: string; ifRange?: string },
): Promise<DownloadAnswer> {
  const grant = verifyDownloadToken(deps.box, token);
  if (!grant || grant.expiresAt <= deps.now().getTime()) throw denied();
  const [row] = await deps.db
    .select({
      id: otaDevices.id,
      attempts: otaDevices.attempts,
      versionId: otaTasks.versionId,
      checksum: otaTasks.checksum,
      version: otaTasks.version,
    })
    .from(otaDevices)
    .innerJoin(otaTasks, eq(otaTasks.id, otaDevices.taskId))
    .where(eq(otaDevices.id, grant.rowId));
  if (!row || row.attempts !== grant.attempt) throw denied();
  const file = await versionFile(deps, row.versionId);
  if (!file) throw new AppError(70001);
  let size: number;
  try {
    size = (await stat(file.path)).size;
  } catch {
    throw new AppError(50003);
  }
  const etag = `"${row.checksum}"`;
  const out: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'accept-ranges': 'bytes',
    etag,
    'content-disposition': `attachment; filename="${file.version.replace(/[^A-Za-z0-9._+-]/g, '_')}.bin"`,
    'cache-control': 'private, no-store',
  };
  // If-Range with another validator: the file changed since the partial download began, so send all of it.
  const range = headers.ifRange !== undefined && headers.ifRange !== etag ? undefined : headers.range;
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
      stream: createReadStream(file.path, { start: span.start, end: span.end }),
      rowId: row.id,
    };
  }
  out['content-length'] = String(size);
  return {
    status: 200,
    headers: out,
    stream: size > 0 ? createReadStream(file.path) : undefined,
    rowId: row.id,
  };
}
