import type { Readable } from 'node:stream';
import { eq, inArray } from 'drizzle-orm';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';
import { fileAnswer } from '../../lib/file-download';
import { fileStore } from '../../lib/file-store';
import { BatchQueue, BatchQueueStoppedError } from '../../jobs/batch-queue';
import { getFirmwareVersionFile } from '../firmware/firmware.service';
import { verifyDownloadToken } from './ota-token';
import { otaDevices, otaTasks } from './ota.table';

export interface DownloadAnswer {
  status: 200 | 206;
  headers: Record<string, string>;
  stream: Readable | undefined;
  /** The upgrade log row the token was for (its downloads are counted). */
  rowId: number;
}

/** Wrong, tampered, superseded or expired tokens all answer the same (71004, HTTP 403). */
const denied = () => new AppError(71004);

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
    const store = fileStore(this.deps);
    const read = (span?: { start: number; end: number }) => store.read(file.file, span);
    const answer = fileAnswer({ read, size, etag: `"${row.checksum}"` }, headers, {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${file.version.replace(/[^A-Za-z0-9._+-]/g, '_')}.bin"`,
      'cache-control': 'private, no-store',
    });
    return { ...answer, rowId: row.id };
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
      // The store's own size: a file missing from it is 50003, not a download cut short.
      const size = await fileStore(this.deps).size(f.file);
      if (size === undefined) throw new AppError(50003);
      return { file: f, size };
    })();
    this.files.set(versionId, { at: Date.now(), file });
    // A failed look-up is not kept: the next download asks again.
    file.catch(() => this.files.delete(versionId));
    if (this.files.size > 100) this.files.delete(this.files.keys().next().value!);
    return file;
  }
}
