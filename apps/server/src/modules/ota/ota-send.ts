import { sql } from 'drizzle-orm';
import { OTA_DOWNLOAD_TOKEN_TTL_MS } from '@cellhub/contract/ota';
import type { OtaDown } from '@cellhub/contract/protocol';
import type { Deps } from '../../lib/deps';
import { otaResult } from './ota-results';
import { signDownloadToken } from './ota-token';
import type { OtaTaskRow } from './ota.table';

/** One committed attempt to publish as `P/down/ota`. */
export interface DispatchRow {
  id: number;
  taskId: number;
  sn: string;
  productKey: string;
  upgradeId: string;
  attempt: number;
}

export type TaskInfo = Pick<OtaTaskRow, 'id' | 'version' | 'size' | 'checksum' | 'algorithm'>;

export const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;
/** A timestamp parameter both drivers take the same way. */
export const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/** Rows as the dispatch rows of their attempts (the attempt already counted), grouped by task. */
export function byTask(
  rows: {
    id: number;
    task_id: number;
    sn: string;
    product_key: string;
    attempts: number;
    upgrade_id: string;
  }[],
): Map<number, DispatchRow[]> {
  const out = new Map<number, DispatchRow[]>();
  for (const r of rows) {
    const list = out.get(r.task_id) ?? [];
    list.push({
      id: r.id,
      taskId: r.task_id,
      sn: r.sn,
      productKey: r.product_key,
      attempt: Number(r.attempts),
      upgradeId: r.upgrade_id,
    });
    out.set(r.task_id, list);
  }
  return out;
}

export function downloadUrl(deps: Deps, base: string, row: Pick<DispatchRow, 'id' | 'attempt'>, now: Date) {
  const token = signDownloadToken(deps.box, {
    rowId: row.id,
    attempt: row.attempt,
    expiresAt: now.getTime() + OTA_DOWNLOAD_TOKEN_TTL_MS,
  });
  return `${base}/api/ota/download/${token}`;
}

/**
 * Publishes committed dispatches, all at once (the broker pipelines them), then marks the ones the broker took
 * as sent in one statement; a device that went away in between goes back to waiting (its attempt is not
 * counted).
 */
export async function publishDispatches(
  deps: Deps,
  base: string,
  task: TaskInfo,
  batch: DispatchRow[],
  now: Date,
): Promise<{ sent: number; failed: number }> {
  const settled = await Promise.allSettled(
    batch.map((row) => {
      const payload: OtaDown = {
        id: row.upgradeId,
        version: task.version,
        url: downloadUrl(deps, base, row, now),
        size: task.size,
        checksum: task.checksum,
        algorithm: task.algorithm,
      };
      return deps.link.send(row.productKey, row.sn, 'ota', payload);
    }),
  );
  const sent: string[] = [];
  const failed: string[] = [];
  settled.forEach((s, i) => (s.status === 'fulfilled' ? sent : failed).push(batch[i]!.upgradeId));
  const at = deps.now();
  if (sent.length > 0) {
    await deps.db.execute(sql`
      update ota_devices set sent_at = ${ts(at)}
      where upgrade_id = any(${sql.param(sent)}::text[]) and phase = 'dispatched'`);
  }
  if (failed.length > 0) {
    const offline = otaResult('offline_pending');
    await deps.db.execute(sql`
      update ota_devices set phase = 'offline', attempts = attempts - 1, upgrade_id = null, dispatched_at = null,
        deadline_at = null, result = ${offline.result}, result_code = ${offline.resultCode},
        result_params = '{}'::jsonb, updatedat = ${ts(at)}
      where upgrade_id = any(${sql.param(failed)}::text[]) and phase = 'dispatched' and sent_at is null`);
  }
  return { sent: sent.length, failed: failed.length };
}
