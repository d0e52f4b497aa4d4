import { desc, eq, sql } from 'drizzle-orm';
import type { DeviceDrops, DropReason } from '@cellhub/contract/device-drops';
import type { Actor, Deps } from '../../lib/deps';
import { accessibleDevice } from '../devices/device-access';
import { deviceDrops } from './device-drops.table';

const BY_CODE: Partial<Record<number, DropReason>> = {
  10104: 'rate_limit',
  50001: 'too_large',
  40003: 'not_json',
  70003: 'unknown_property',
  10107: 'unknown_id',
  10108: 'not_allowed',
  10101: 'server_error',
  10105: 'server_error',
};

/** The reason a dropped message is counted under: by the gateway's kind of check, then by its reply code. */
export function dropReason(kind: string, code: number): DropReason {
  if (kind === 'connect') return 'connect_refused';
  if (kind === 'acl') return 'not_allowed';
  return BY_CODE[code] ?? 'invalid';
}

/**
 * Adds dropped-message counts (device id -> reason -> count) in one statement: the device's total
 * (`rejected_count`, shown in lists) and its breakdown move together. Devices deleted meanwhile are skipped.
 */
export async function addDrops(
  deps: Deps,
  counts: ReadonlyMap<number, ReadonlyMap<DropReason, number>>,
  at: Date,
): Promise<void> {
  const ids: number[] = [];
  const reasons: string[] = [];
  const ns: number[] = [];
  for (const [id, byReason] of counts) {
    for (const [reason, n] of byReason) {
      ids.push(id);
      reasons.push(reason);
      ns.push(n);
    }
  }
  if (ids.length === 0) return;
  await deps.db.execute(sql`
    with v as (
      select v.* from unnest(${sql.param(ids)}::int[], ${sql.param(reasons)}::text[], ${sql.param(ns)}::int[])
        as v(id, reason, n)
      join devices d on d.id = v.id
    ),
    totals as (
      update devices d set rejected_count = d.rejected_count + t.n
      from (select id, sum(n)::int as n from v group by id) t
      where d.id = t.id
    )
    insert into device_drops (device_id, reason, count, lastat)
    select id, reason, n, ${at.toISOString()}::timestamptz from v
    on conflict (device_id, reason) do update
      set count = device_drops.count + excluded.count, lastat = excluded.lastat`);
}

/** The device's dropped messages by reason (view right); `total` also holds drops counted before reasons were. */
export async function getDeviceDrops(deps: Deps, actor: Actor, sn: string): Promise<DeviceDrops> {
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  const rows = await deps.db
    .select()
    .from(deviceDrops)
    .where(eq(deviceDrops.deviceId, device.id))
    .orderBy(desc(deviceDrops.count), deviceDrops.reason);
  const reasons = rows.map((r) => ({ reason: r.reason, count: r.count, last_at: r.lastat.toISOString() }));
  const sum = reasons.reduce((n, r) => n + r.count, 0);
  return { total: Math.max(device.rejectedCount, sum), reasons };
}
