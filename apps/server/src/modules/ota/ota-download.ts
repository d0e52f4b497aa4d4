import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { eq, inArray } from 'drizzle-orm';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';
import { BatchQueue, BatchQueueStoppedError } from '../../jobs/batch-queue';
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

interface RowGrant {
  id: number;
  attempts: number;
  versionId: number;
  checksum: string;
}

type VersionFile = NonNullable<Awaited<ReturnType<typeof getFirmwareVersionFile>>>;

/**
 * GET /api/ota/download/:token for one server instance. During a rollout a thousand devices download at once:
 * their token rows are read together (one statement per batch, jobs/batch-queue; on PGlite every statement
 * takes the one connection the reports and the dispatcher need), and a version's file entry and size are kept
 * for a few seconds, so 10,000 downloads cost a few dozen queries rather than 20,000.
 */
export class OtaDownloads {
  private readonly rows: BatchQueue<number, RowGrant | undefined>;
  private readonly files = new Map<
    number,
    { at: number; file: Promise<{ file: VersionFile; size: number } | null> }
  >();

  constructor(private readonly deps: Deps) {
    this.rows = new BatchQueue<number, RowGrant | undefined>({
      name: 'ota download tokens',
      run: (ids) => this.loadRows(ids),
      maxBatch: 1000,
      // A download waits for no company: the rows asked for while one read runs form the next read.
      maxDelayMs: 0,
      maxQueued: 20_000,
    });
  }

  /**
   * The token (ota-token.ts) names one upgrade log row and attempt and expires 24 h after the dispatch; a later
   * attempt of the same device gets a new token and the old one stops working. Answers Range requests (206,
   * 416), `If-Range` (a changed ETag sends the whole file), `ETag` = the firmware checksum.
   */
  async open(token: string, headers: { range?: string; ifRange?: string }): Promise<DownloadAnswer> {
    const grant = verifyDownloadToken(this.deps.box, token);
    if (!grant || grant.expiresAt <= this.deps.now().getTime()) throw denied();
    const row = await this.rows.add(grant.rowId).catch((err: unknown) => {
      if (err instanceof BatchQueueStoppedError) throw new AppError(10105);
      throw err;
    });
    if (!row || row.attempts !== grant.attempt) throw denied();
    const entry = await this.versionFile(row.versionId);
    if (!entry) throw new AppError(70001);
    const { file, size } = entry;
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

  /** Reads what is queued, then refuses new downloads. */
  stop(): Promise<void> {
    return this.rows.stop();
  }

  private async loadRows(ids: readonly number[]): Promise<(RowGrant | undefined)[]> {
    const rows = await this.deps.db
      .select({
        id: otaDevices.id,
        attempts: otaDevices.attempts,
        versionId: otaTasks.versionId,
        checksum: otaTasks.checksum,
      })
      .from(otaDevices)
      .innerJoin(otaTasks, eq(otaTasks.id, otaDevices.taskId))
      .where(inArray(otaDevices.id, [...new Set(ids)]));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id));
  }

  /** The version's file and its size, looked up at most every 5 s (a version's file never changes). */
  private versionFile(versionId: number): Promise<{ file: VersionFile; size: number } | null> {
    const hit = this.files.get(versionId);
    if (hit && Date.now() - hit.at < 5000) return hit.file;
    const file = (async () => {
      const f = await getFirmwareVersionFile(this.deps, versionId);
      if (!f) return null;
      try {
        return { file: f, size: (await stat(f.path)).size };
      } catch {
        throw new AppError(50003);
      }
    })();
    this.files.set(versionId, { at: Date.now(), file });
    // A failed look-up is not kept: the next download asks again.
    file.catch(() => this.files.delete(versionId));
    if (this.files.size > 100) this.files.delete(this.files.keys().next().value!);
    return file;
  }
}
