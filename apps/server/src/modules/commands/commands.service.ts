import { randomBytes } from 'node:crypto';
import { and, count, desc, eq, inArray, lt } from 'drizzle-orm';
import type { CommandBody, CommandItem } from '@cellhub/contract/devices';
import { type CmdReplyUp, HEX_RULE } from '@cellhub/contract/protocol';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { writeDeviceLog } from '../device-log/device-log.service';
import { writeAudit } from '../audit/audit.service';
import type { DeviceRef } from '../devices/device-ref';
import { accessibleDevice } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import { type DeviceCommandRow, deviceCommands } from './commands.table';

/** A command without a reply after this long is marked `timeout`. */
export const COMMAND_TIMEOUT_MS = 30_000;

function toItem(c: DeviceCommandRow, sn: string): CommandItem {
  return {
    id: c.id,
    sn,
    type: c.type,
    data: c.data,
    status: c.status,
    code: c.code,
    reply: c.reply,
    uid: c.uid,
    sentat: c.sentat.toISOString(),
    repliedat: c.repliedat ? c.repliedat.toISOString() : null,
    latency_ms: c.repliedat ? c.repliedat.getTime() - c.sentat.getTime() : null,
  };
}

/** Seed section 5: hex data has an even length and no 0x prefix. */
export function checkCommandData(body: CommandBody): void {
  if (body.type === 'hex' && !HEX_RULE.test(body.data)) {
    const message = /^0x/i.test(body.data)
      ? 'hex data must not start with 0x'
      : body.data.length % 2 === 1
        ? 'hex data must have an even length'
        : 'hex data may contain only 0-9 and A-F';
    throw new AppError(70003, 400, undefined, [{ field: 'data', message }]);
  }
}

/** Sends P/down/cmd to an online device and records it; the reply is matched by id later. Offline: 20401. */
export async function sendCommand(
  deps: Deps,
  actor: Actor,
  sn: string,
  body: CommandBody,
): Promise<CommandItem> {
  checkCommandData(body);
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  if (device.online !== 1) throw new AppError(20401);
  const now = deps.now();
  const id = randomBytes(8).toString('hex');
  const [row] = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .insert(deviceCommands)
      .values({
        id,
        deviceId: device.id,
        uid: actor.uid,
        type: body.type,
        data: body.data,
        sentat: now,
        timeoutat: new Date(now.getTime() + COMMAND_TIMEOUT_MS),
      })
      .returning();
    await writeDeviceLog(tx, {
      deviceId: device.id,
      event: 'command',
      detail: { id, type: body.type, data: body.data, by: actor.username },
    });
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'device_command',
      target: `device:${sn}`,
      ip: actor.ip,
      detail: { id, type: body.type },
    });
    return rows;
  });
  if (!row) throw new AppError(10109);
  try {
    await deps.link.send(device.productKey, sn, 'cmd', { id, type: body.type, data: body.data });
  } catch (err) {
    await deps.db.update(deviceCommands).set({ status: 'failed' }).where(eq(deviceCommands.id, id));
    deps.events.publish(
      { type: 'device.command', sn, product_key: device.productKey, id, status: 'failed' },
      { uid: device.uid },
    );
    throw err instanceof AppError ? err : new AppError(20401);
  }
  deps.events.publish(
    { type: 'device.command', sn, product_key: device.productKey, id, status: 'sent' },
    { uid: device.uid },
  );
  return toItem(row, sn);
}

export async function listCommands(
  deps: Deps,
  actor: Actor,
  sn: string,
  page: { current: number; per_page: number },
): Promise<{ items: CommandItem[]; total: number }> {
  const device = await accessibleDevice(deps.db, actor, sn, 'view');
  const where = eq(deviceCommands.deviceId, device.id);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(deviceCommands)
      .where(where)
      .orderBy(desc(deviceCommands.sentat))
      .limit(page.per_page)
      .offset((page.current - 1) * page.per_page),
    deps.db.select({ n: count() }).from(deviceCommands).where(where),
  ]);
  return { items: rows.map((r) => toItem(r, sn)), total: total?.n ?? 0 };
}

/**
 * P/up/cmd_reply. A late reply (after the timeout mark) still counts: the device did answer.
 * Returns false when no command of this device has that id (the gateway counts it as rejected).
 */
export async function handleCommandReply(deps: Deps, device: DeviceRef, reply: CmdReplyUp): Promise<boolean> {
  const now = deps.now();
  const updated = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .update(deviceCommands)
      .set({ status: 'replied', code: reply.code, reply: reply.data ?? null, repliedat: now })
      .where(
        and(
          eq(deviceCommands.id, reply.id),
          eq(deviceCommands.deviceId, device.id),
          inArray(deviceCommands.status, ['sent', 'timeout']),
        ),
      )
      .returning({ id: deviceCommands.id });
    if (rows.length) {
      await writeDeviceLog(tx, {
        deviceId: device.id,
        event: 'command_reply',
        detail: { id: reply.id, code: reply.code, data: reply.data },
      });
    }
    return rows.length > 0;
  });
  if (updated) {
    deps.events.publish(
      {
        type: 'device.command',
        sn: device.sn,
        product_key: device.productKey,
        id: reply.id,
        status: 'replied',
        code: reply.code,
        ...(reply.data !== undefined ? { data: reply.data } : {}),
      },
      { uid: device.uid },
    );
  }
  return updated;
}

/** Marks commands past their deadline as `timeout`; runs periodically on every instance (idempotent). */
export async function markCommandTimeouts(deps: Deps): Promise<number> {
  const rows = await deps.db
    .update(deviceCommands)
    .set({ status: 'timeout' })
    .where(and(eq(deviceCommands.status, 'sent'), lt(deviceCommands.timeoutat, deps.now())))
    .returning({ id: deviceCommands.id, deviceId: deviceCommands.deviceId });
  if (rows.length === 0) return 0;
  const owners = await deps.db
    .select({ id: devices.id, sn: devices.sn, productKey: devices.productKey, uid: devices.uid })
    .from(devices)
    .where(
      inArray(
        devices.id,
        rows.map((r) => r.deviceId),
      ),
    );
  const byId = new Map(owners.map((o) => [o.id, o]));
  for (const r of rows) {
    const d = byId.get(r.deviceId);
    if (!d) continue;
    deps.events.publish(
      { type: 'device.command', sn: d.sn, product_key: d.productKey, id: r.id, status: 'timeout' },
      { uid: d.uid },
    );
  }
  return rows.length;
}
