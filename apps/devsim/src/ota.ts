import { createHash } from 'node:crypto';
import type { DownlinkHandler, VirtualDevice } from './device';
import { hashSeed, seededRandom } from './telemetry';

/**
 * Firmware upgrades as a DTU takes them (`P/down/ota`, docs/device-protocol.md): accept (5) or refuse (6), download
 * the file from the command's URL, resume a broken download with `Range`, check size and checksum, report a failed
 * download (2), a failed update (3) or success (4), then report the new `fw_version` on `P/up/info`.
 * What goes wrong is drawn per upgrade id from the ratios, so a retried upgrade may go right.
 */
export interface OtaOptions {
  /** Share of upgrades the device refuses (status 6). */
  refuse: number;
  /** Share of downloads that arrive corrupted (one byte flipped): the checksum fails, status 2. */
  failDownload: number;
  /** Share of updates that fail after a good download (status 3). */
  failUpdate: number;
  /** Share of downloads whose connection breaks midway; the device resumes them with a Range request. */
  interrupt: number;
  /** Time to flash and reboot before reporting success, in ms. */
  updateMs: number;
  /** Report download progress every this many percent (0: only the final statuses). */
  progressStep: number;
  /** Connections a download may use before the device gives up (network errors, 5xx; resumed with Range). */
  downloadTries: number;
  /** Wait before the n-th retry of a download: n x this, in ms. */
  retryDelayMs: number;
  seed: number;
  /** fetch, replaceable in tests. */
  fetch?: typeof fetch;
}

export const DEFAULT_OTA_OPTIONS: OtaOptions = {
  refuse: 0,
  failDownload: 0,
  failUpdate: 0,
  interrupt: 0,
  updateMs: 200,
  progressStep: 0,
  downloadTries: 3,
  retryDelayMs: 1000,
  seed: 1,
};

export interface OtaStats {
  /** Upgrade commands received (duplicates of one id counted once). */
  commands: number;
  refused: number;
  downloads: number;
  /** Downloads that broke and were resumed with Range. */
  resumed: number;
  /** Connections retried after a network error or a 5xx. */
  downloadRetries: number;
  downloadBytes: number;
  downloadFailed: number;
  updateFailed: number;
  succeeded: number;
  /** Duplicate commands (same upgrade id) answered with the status already reached. */
  duplicates: number;
  /** Why the last download connection failed (network error or answer), for the status line. */
  lastDownloadError: string;
}

export const newOtaStats = (): OtaStats => ({
  commands: 0,
  refused: 0,
  downloads: 0,
  resumed: 0,
  downloadRetries: 0,
  downloadBytes: 0,
  downloadFailed: 0,
  updateFailed: 0,
  succeeded: 0,
  duplicates: 0,
  lastDownloadError: '',
});

export interface OtaCommand {
  id: string;
  version: string;
  url: string;
  size: number;
  checksum: string;
  algorithm: 'md5' | 'sha256';
}

function parseCommand(body: Record<string, unknown>): OtaCommand | undefined {
  const { id, version, url, size, checksum, algorithm } = body;
  if (typeof id !== 'string' || typeof version !== 'string' || typeof url !== 'string') return undefined;
  if (typeof size !== 'number' || typeof checksum !== 'string') return undefined;
  if (algorithm !== 'md5' && algorithm !== 'sha256') return undefined;
  return { id, version, url, size, checksum: checksum.toLowerCase(), algorithm };
}

/** fetch says only "fetch failed"; the cause (ECONNRESET, a connect timeout) is what an operator needs. */
function describe(err: unknown): string {
  const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
  const why = cause ? `: ${cause.code ?? cause.message ?? ''}` : '';
  return `${(err as Error).message}${why}`;
}

/** A download answer not worth another try (the token is refused, the range does not fit). */
class FinalError extends Error {}

interface DeviceOta {
  /** Upgrade ids seen, with the last status reported for each (undefined while in progress). */
  seen: Map<string, number | undefined>;
}

/** Reads up to `limit` bytes of a response body (all when undefined); `aborted` if the stream broke. */
async function readBody(
  res: Response,
  limit: number | undefined,
  onChunk: (n: number) => void,
): Promise<{ bytes: Buffer; complete: boolean }> {
  const chunks: Buffer[] = [];
  let n = 0;
  const reader = res.body?.getReader();
  if (!reader) return { bytes: Buffer.alloc(0), complete: true };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let chunk = Buffer.from(value);
    if (limit !== undefined && n + chunk.length >= limit) {
      chunk = chunk.subarray(0, limit - n);
      chunks.push(chunk);
      n += chunk.length;
      onChunk(chunk.length);
      // The cell drops: the rest of the body never arrives.
      await reader.cancel().catch(() => undefined);
      return { bytes: Buffer.concat(chunks), complete: false };
    }
    chunks.push(chunk);
    n += chunk.length;
    onChunk(chunk.length);
  }
  return { bytes: Buffer.concat(chunks), complete: true };
}

/** The `ota` downlink handler of a fleet; `stats` are shared by its devices. */
export function otaHandler(
  options: Partial<OtaOptions> = {},
  stats: OtaStats = newOtaStats(),
): DownlinkHandler {
  const opts = { ...DEFAULT_OTA_OPTIONS, ...options };
  const doFetch = opts.fetch ?? fetch;
  const state = new WeakMap<VirtualDevice, DeviceOta>();

  /**
   * The whole image, as a DTU gets it: the download may break (`cutAt`: a share of the file after which the first
   * connection drops, or a network error); it is resumed with `Range: bytes=<have>-` and `If-Range`, up to
   * `downloadTries` connections in all, waiting a little longer before each. An answer 4xx is final.
   * `progress(-1)` means the file changed and the download started over.
   */
  async function fetchImage(
    cmd: OtaCommand,
    cutAt: number | undefined,
    progress: (n: number) => void,
  ): Promise<Buffer> {
    let image: Buffer = Buffer.alloc(0);
    let etag: string | null = null;
    let cut = cutAt === undefined ? undefined : Math.max(1, Math.floor(cmd.size * cutAt));
    for (let attempt = 1; ; attempt++) {
      try {
        const resume = image.length > 0;
        const res: Response = await doFetch(
          cmd.url,
          resume
            ? { headers: { range: `bytes=${image.length}-`, ...(etag ? { 'if-range': etag } : {}) } }
            : {},
        );
        if (resume && res.status === 206) {
          const expected = `bytes ${image.length}-`;
          if (!res.headers.get('content-range')?.startsWith(expected))
            throw new FinalError(`resume answered ${res.headers.get('content-range')}`);
        } else if (res.status === 200) {
          if (resume) progress(-1); // the file changed (If-Range): start over with the whole of it
          image = Buffer.alloc(0) as Buffer;
          etag = res.headers.get('etag');
        } else {
          const msg = `${resume ? 'resume' : 'download'} answered ${res.status}`;
          throw res.status < 500 ? new FinalError(msg) : new Error(msg);
        }
        const part = await readBody(res, cut, progress);
        cut = undefined;
        image = Buffer.concat([image, part.bytes]);
        if (part.complete) return image;
        stats.resumed++;
      } catch (err) {
        stats.lastDownloadError = describe(err);
        if (err instanceof FinalError || attempt >= opts.downloadTries) throw err;
        stats.downloadRetries++;
        await new Promise((r) => setTimeout(r, opts.retryDelayMs * attempt));
      }
    }
  }

  return async (device, body) => {
    const cmd = parseCommand(body);
    if (!cmd) return;
    let mine = state.get(device);
    if (!mine) state.set(device, (mine = { seen: new Map() }));
    if (mine.seen.has(cmd.id)) {
      // The platform sent this upgrade again (it restarted before recording the first send): the same id is
      // the same upgrade. Repeat where it ended; one in progress just goes on.
      stats.duplicates++;
      const last = mine.seen.get(cmd.id);
      if (last !== undefined) await device.publish('ota', { id: cmd.id, status: last });
      return;
    }
    mine.seen.set(cmd.id, undefined);
    stats.commands++;
    const report = async (status: number, extra: { progress?: number; message?: string } = {}) => {
      if (status !== 0 && status !== 1 && status !== 5) mine!.seen.set(cmd.id, status);
      await device.publish('ota', { id: cmd.id, status, ...extra });
    };
    // Draws per upgrade id: the same command meets the same fate in every run with the same seed.
    const random = seededRandom(hashSeed(`${opts.seed}:${device.identity.sn}:${cmd.id}`));
    if (random() < opts.refuse) {
      stats.refused++;
      await report(6, { message: 'refused by device' });
      return;
    }
    await report(5);

    stats.downloads++;
    let received = 0;
    let lastStep = 0;
    const onChunk = (n: number) => {
      received += n;
      stats.downloadBytes += n;
      if (opts.progressStep > 0 && cmd.size > 0) {
        const pct = Math.floor((received * 100) / cmd.size);
        if (pct - lastStep >= opts.progressStep && pct < 100) {
          lastStep = pct;
          void report(5, { progress: pct }).catch(() => undefined);
        }
      }
    };
    let image: Buffer;
    try {
      image = await fetchImage(cmd, random() < opts.interrupt ? 0.2 + random() * 0.6 : undefined, (n) => {
        if (n < 0) received = 0;
        else onChunk(n);
      });
    } catch (err) {
      stats.downloadFailed++;
      await report(2, { message: describe(err).slice(0, 200) });
      return;
    }
    if (random() < opts.failDownload && image.length > 0) {
      // Corrupted on the way (flash or radio): the checksum check below must catch it.
      image = Buffer.from(image);
      image[Math.floor(image.length / 2)]! ^= 0xff;
    }
    const digest = createHash(cmd.algorithm).update(image).digest('hex');
    if (image.length !== cmd.size || digest !== cmd.checksum) {
      stats.downloadFailed++;
      await report(2, {
        message: image.length !== cmd.size ? `size ${image.length} != ${cmd.size}` : 'checksum mismatch',
      });
      return;
    }
    await report(1, { progress: 100 });
    if (random() < opts.failUpdate) {
      stats.updateFailed++;
      await report(3, { message: 'flash write failed' });
      return;
    }
    if (opts.updateMs > 0) await new Promise((r) => setTimeout(r, opts.updateMs));
    device.fwVersion = cmd.version;
    stats.succeeded++;
    await report(4);
    await device.publish('info', { fw_version: cmd.version });
  };
}
