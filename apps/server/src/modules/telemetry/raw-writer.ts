import { sql } from 'drizzle-orm';
import { MAX_RAW_BYTES } from '@cellhub/contract/protocol';
import type { Db } from '../../db/client';

interface RawRow {
  deviceId: number;
  /** Base64: A-Z a-z 0-9 + / =, nothing an array literal would have to escape. */
  data: string;
  size: number;
  truncated: boolean;
}

interface Pending {
  row: RawRow;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Rows of one INSERT at most. */
const BATCH_MAX = 1000;

/**
 * How long the first row of an idle writer waits for company before its INSERT goes out. Without it, thousands of
 * devices sending now and then (socket-mode DTUs, one frame a second each) make one statement per frame: each
 * statement ends before the next frame arrives, so no batch ever forms (bench/sockets.mjs, issue 18).
 */
export const RAW_WRITER_DELAY_MS = 10;

/**
 * Raw uplinks (`P/up/raw`) written as group commits: the first row waits `delayMs` for others, and while one
 * multi-row INSERT is in flight the next messages wait and go in the next one, so a steady stream costs one
 * statement per round trip instead of one per message. `add` resolves once its row is committed (the gateway
 * acknowledges the device then), and rejects with the batch's error.
 */
export class RawWriter {
  private queue: Pending[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly delayMs = RAW_WRITER_DELAY_MS,
  ) {}

  /** Keeps the bytes (cut at MAX_RAW_BYTES, as storeRaw does) of a device's uplink. */
  add(deviceId: number, bytes: Buffer): Promise<void> {
    const truncated = bytes.length > MAX_RAW_BYTES;
    const row: RawRow = {
      deviceId,
      data: bytes.subarray(0, MAX_RAW_BYTES).toString('base64'),
      size: bytes.length,
      truncated,
    };
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      this.running ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    try {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, BATCH_MAX);
        try {
          await this.insert(batch.map((p) => p.row));
          for (const p of batch) p.resolve();
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.running = undefined;
    }
  }

  /** One statement whatever the batch size: arrays as text literals, unnested (as the property writer does). */
  private async insert(rows: RawRow[]): Promise<void> {
    const list = (f: (r: RawRow) => string) => `{${rows.map(f).join(',')}}`;
    await this.db.execute(sql`
      insert into raw_messages (device_id, direction, data, size, truncated)
      select device_id, 'up', data, size, truncated
      from unnest(${list((r) => String(r.deviceId))}::text::int[], ${list((r) => `"${r.data}"`)}::text::text[],
        ${list((r) => String(r.size))}::text::int[], ${list((r) => (r.truncated ? 't' : 'f'))}::text::bool[])
        as r(device_id, data, size, truncated)`);
  }

  /** Waits until every queued row is written. */
  async close(): Promise<void> {
    while (this.running) await this.running;
  }
}
