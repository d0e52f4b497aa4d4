import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import type { DeviceLogEvent, DeviceLogItem, DeviceLogQuery } from '@cellhub/contract/devices';
import type { DbOrTx } from '../../db/client';
import type { Actor, Deps } from '../../lib/deps';
import { accessibleDevice } from '../devices/device-access';
import { deviceLogs } from './device-log.table';

export interface DeviceLogEntry {
  deviceId: number;
  event: DeviceLogEvent;
  detail?: Record<string, unknown>;
}

export async function writeDeviceLog(db: DbOrTx, ...entries: DeviceLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insert(deviceLogs)
    .values(entries.map((e) => ({ deviceId: e.deviceId, event: e.event, detail: e.detail ?? {} })));
}

export async function listDeviceLogs(
  deps: Deps,
  actor: Actor,
  sn: string,
  query: DeviceLogQuery,
): Promise<{ items: DeviceLogItem[]; total: number }> {
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  const conditions: SQL[] = [eq(deviceLogs.deviceId, device.id)];
  if (query.event) conditions.push(eq(deviceLogs.event, query.event));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(deviceLogs)
      .where(where)
      .orderBy(desc(deviceLogs.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(deviceLogs).where(where),
  ]);
  return {
    items: rows.map((r) => ({
      id: r.id,
      event: r.event,
      detail: r.detail,
      createdat: r.createdat.toISOString(),
    })),
    total: total?.n ?? 0,
  };
}
