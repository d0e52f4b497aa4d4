import { randomBytes } from 'node:crypto';
import { and, asc, count, desc, eq, gt, inArray, lt, lte, sql } from 'drizzle-orm';
import {
  COMMAND_QUEUE_MAX,
  COMMAND_TTL_DEFAULT_S,
  type CommandBody,
  type CommandItem,
  type CommandStatus,
} from '@cellhub/contract/devices';
import { COMMAND_TIMEOUT_S_MAX } from '@cellhub/contract/command-groups';
import { type CmdReplyUp, HEX_RULE } from '@cellhub/contract/protocol';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { writeDeviceLog } from '../device-log/device-log.service';
import { writeAudit } from '../audit/audit.service';
import type { DeviceRef } from '../devices/device-ref';
import { accessibleDevice } from '../devices/device-access';
import { type DeviceRow, devices } from '../devices/devices.table';
import { type DeviceCommandRow, deviceCommands } from './commands.table';

/** A command without a reply after this long is marked `timeout`. */
export const COMMAND_TIMEOUT_MS = 30_000;
/** The longest reply window a queued command keeps (a predefined command's `timeout_s` is at most this). */
export const COMMAND_TIMEOUT_MAX_MS = COMMAND_TIMEOUT_S_MAX * 1000;
/** Queued commands one expiry pass marks at most (the pass repeats while it finds this many). */
export const EXPIRE_BATCH = 1000;

function toItem(c: DeviceCommandRow, sn: string, now: Date): CommandItem {
  // A pending command past its time-to-live is never sent; the expiry job marks it within its interval.
  const status: CommandStatus =
    c.status === 'pending' && c.expiresat && c.expiresat <= now ? 'expired' : c.status;
  return {
    id: c.id,
    sn,
    type: c.type,
    data: c.data,
    status,
    code: c.code,
    reply: c.reply,
    uid: c.uid,
    sentat: c.sentat.toISOString(),
    repliedat: c.repliedat ? c.repliedat.toISOString() : null,
    latency_ms: c.repliedat ? c.repliedat.getTime() - c.sentat.getTime() : null,
    queuedat: c.queuedat ? c.queuedat.toISOString() : null,
    expiresat: c.expiresat ? c.expiresat.toISOString() : null,
    command_ref: c.commandRef ?? null,
  };
}

const deviceRef = (d: DeviceRow): DeviceRef => ({ id: d.id, sn: d.sn, productKey: d.productKey, uid: d.uid });

function publishStatus(deps: Deps, device: DeviceRef, id: string, status: CommandStatus): void {
  deps.events.publish(
    { type: 'device.command', sn: device.sn, product_key: device.productKey, id, status },
    { uid: device.uid },
  );
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

/** A predefined command's mark and reply time (modules/command-groups sends through here). */
export interface SendOptions {
  ref?: NonNullable<CommandItem['command_ref']>;
  timeoutMs?: number;
}

/**
 * Sends P/down/cmd to an online device and records it; the reply is matched by id later. Offline: 20401, unless
 * the caller asked to queue (`offline: "queue"`): then the command waits for the device (`queueCommand`).
 */
export async function sendCommand(
  deps: Deps,
  actor: Actor,
  sn: string,
  body: CommandBody,
  opts: SendOptions = {},
): Promise<CommandItem> {
  checkCommandData(body);
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  if (body.offline === 'queue') return queueCommand(deps, actor, device, body, opts);
  if (!deps.link.online(sn, device.online)) throw new AppError(20401);
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
        timeoutat: new Date(now.getTime() + (opts.timeoutMs ?? COMMAND_TIMEOUT_MS)),
        commandRef: opts.ref ?? null,
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
    publishStatus(deps, deviceRef(device), id, 'failed');
    throw err instanceof AppError ? err : new AppError(20401);
  }
  publishStatus(deps, deviceRef(device), id, 'sent');
  return toItem(row, sn, now);
}

/**
 * Stores the command as `pending` for `ttl_seconds` (24 h by default), at most COMMAND_QUEUE_MAX waiting per
 * device (20405). It goes out when the device is ready for commands (subscribed; the `device.ready` event) in the
 * order commands were queued. An online device is asked at once (through the bus, so the delivery of this instance
 * keeps the order); the answer then says `sent`, or `pending` if the device could not take it yet.
 */
async function queueCommand(
  deps: Deps,
  actor: Actor,
  device: DeviceRow,
  body: CommandBody,
  opts: SendOptions,
): Promise<CommandItem> {
  const now = deps.now();
  const expiresat = new Date(now.getTime() + (body.ttl_seconds ?? COMMAND_TTL_DEFAULT_S) * 1000);
  const id = randomBytes(8).toString('hex');
  const row = await deps.db.transaction(async (tx) => {
    const [waiting] = await tx
      .select({ n: count() })
      .from(deviceCommands)
      .where(
        and(
          eq(deviceCommands.deviceId, device.id),
          eq(deviceCommands.status, 'pending'),
          gt(deviceCommands.expiresat, now),
        ),
      );
    if ((waiting?.n ?? 0) >= COMMAND_QUEUE_MAX) {
      throw new AppError(20405, 400, undefined, [
        { field: 'offline', message: `at most ${COMMAND_QUEUE_MAX} commands wait for one device` },
      ]);
    }
    const [inserted] = await tx
      .insert(deviceCommands)
      .values({
        id,
        deviceId: device.id,
        uid: actor.uid,
        type: body.type,
        data: body.data,
        status: 'pending',
        sentat: now,
        queuedat: now,
        expiresat,
        // While pending, timeoutat - queuedat is the reply window it gets once sent (a predefined command's own
        // timeout); deliverQueuedCommands moves it to the send time.
        timeoutat: new Date(now.getTime() + (opts.timeoutMs ?? COMMAND_TIMEOUT_MS)),
        commandRef: opts.ref ?? null,
      })
      .returning();
    await writeDeviceLog(tx, {
      deviceId: device.id,
      event: 'command_queued',
      detail: {
        id,
        type: body.type,
        data: body.data,
        by: actor.username,
        status: 'pending',
        expiresat: expiresat.toISOString(),
      },
    });
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'device_command',
      target: `device:${device.sn}`,
      ip: actor.ip,
      detail: { id, type: body.type, queued: true, expiresat: expiresat.toISOString() },
    });
    return inserted;
  });
  if (!row) throw new AppError(10109);
  const ref = deviceRef(device);
  publishStatus(deps, ref, id, 'pending');
  if (device.online !== 1) return toItem(row, device.sn, now);
  await deps.events.ask({ type: 'commands.deliver', device: ref });
  const [after] = await deps.db.select().from(deviceCommands).where(eq(deviceCommands.id, id));
  return toItem(after ?? row, device.sn, deps.now());
}

/**
 * When a queued command sent at `now` times out: its reply window (timeoutat - queuedat while pending), at most
 * COMMAND_TIMEOUT_MAX_MS, so a row queued before the window was stored (timeoutat = expiresat) gets a sane one.
 */
function replyDeadline(now: Date) {
  const window = sql`LEAST(${deviceCommands.timeoutat} - ${deviceCommands.queuedat}, make_interval(secs => ${COMMAND_TIMEOUT_MAX_MS / 1000}))`;
  return sql`${now.toISOString()}::timestamptz + ${window}`;
}

/**
 * Sends the device's pending commands that have not expired, oldest first; returns how many went out. Call it when
 * the device can receive commands (after it subscribed). The claim (pending -> sent) commits before anything is
 * published, under row locks that a second caller, in this process or another instance, waits for and then finds
 * nothing left: a command goes out once. If publishing fails (the device went away), that command and the ones after
 * it are pending again, so the order holds for the next attempt.
 */
export async function deliverQueuedCommands(deps: Deps, device: DeviceRef): Promise<number> {
  const now = deps.now();
  const claimed = await deps.db.transaction(async (tx) => {
    const due = await tx
      .select({ id: deviceCommands.id })
      .from(deviceCommands)
      .where(
        and(
          eq(deviceCommands.deviceId, device.id),
          eq(deviceCommands.status, 'pending'),
          gt(deviceCommands.expiresat, now),
        ),
      )
      .orderBy(asc(deviceCommands.seq))
      .limit(COMMAND_QUEUE_MAX)
      .for('update');
    if (due.length === 0) return [];
    return tx
      .update(deviceCommands)
      .set({ status: 'sent', sentat: now, timeoutat: replyDeadline(now) })
      .where(
        and(
          inArray(
            deviceCommands.id,
            due.map((d) => d.id),
          ),
          eq(deviceCommands.status, 'pending'),
        ),
      )
      .returning();
  });
  if (claimed.length === 0) return 0;
  claimed.sort((a, b) => a.seq - b.seq);
  let sent = 0;
  for (const c of claimed) {
    try {
      await deps.link.send(device.productKey, device.sn, 'cmd', { id: c.id, type: c.type, data: c.data });
    } catch (err) {
      deps.log.info({ err, sn: device.sn, id: c.id }, 'queued command not delivered; it waits again');
      break;
    }
    sent++;
  }
  const unsent = claimed.slice(sent);
  if (unsent.length > 0) {
    await deps.db
      .update(deviceCommands)
      .set({
        status: 'pending',
        sentat: sql`${deviceCommands.queuedat}`,
        // Keeps the reply window: claimed, timeoutat - sentat was it.
        timeoutat: sql`${deviceCommands.queuedat} + (${deviceCommands.timeoutat} - ${deviceCommands.sentat})`,
      })
      .where(
        and(
          inArray(
            deviceCommands.id,
            unsent.map((c) => c.id),
          ),
          eq(deviceCommands.status, 'sent'),
        ),
      );
  }
  const delivered = claimed.slice(0, sent);
  if (delivered.length > 0) {
    await writeDeviceLog(
      deps.db,
      ...delivered.map((c) => ({
        deviceId: device.id,
        event: 'command' as const,
        detail: { id: c.id, type: c.type, data: c.data, queuedat: c.queuedat?.toISOString() ?? null },
      })),
    );
    for (const c of delivered) publishStatus(deps, device, c.id, 'sent');
  }
  return sent;
}

/**
 * Marks pending commands whose time-to-live ran out as `expired` (and writes it to their devices' logs), up to
 * EXPIRE_BATCH per call; returns how many. Safe on any number of instances at once (SKIP LOCKED, and the update
 * only takes rows still pending).
 */
export async function expireQueuedCommands(deps: Deps): Promise<number> {
  const now = deps.now();
  const rows = await deps.db.transaction(async (tx) => {
    const due = await tx
      .select({ id: deviceCommands.id })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.status, 'pending'), lte(deviceCommands.expiresat, now)))
      .orderBy(asc(deviceCommands.expiresat))
      .limit(EXPIRE_BATCH)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    const expired = await tx
      .update(deviceCommands)
      .set({ status: 'expired' })
      .where(
        and(
          inArray(
            deviceCommands.id,
            due.map((d) => d.id),
          ),
          eq(deviceCommands.status, 'pending'),
        ),
      )
      .returning();
    await writeDeviceLog(
      tx,
      ...expired.map((c) => ({
        deviceId: c.deviceId,
        event: 'command_expired' as const,
        detail: {
          id: c.id,
          type: c.type,
          data: c.data,
          queuedat: c.queuedat?.toISOString() ?? null,
          expiresat: c.expiresat?.toISOString() ?? null,
        },
      })),
    );
    return expired;
  });
  if (rows.length === 0) return 0;
  const owners = await deps.db
    .select({ id: devices.id, sn: devices.sn, productKey: devices.productKey, uid: devices.uid })
    .from(devices)
    .where(inArray(devices.id, [...new Set(rows.map((r) => r.deviceId))]));
  const byId = new Map(owners.map((o) => [o.id, o]));
  for (const r of rows) {
    const d = byId.get(r.deviceId);
    if (d) publishStatus(deps, d, r.id, 'expired');
  }
  return rows.length;
}

/**
 * Withdraws a pending command (control right on the device). 10107 when the device has no command with this id,
 * 20404 when it is no longer pending (sent, expired or cancelled already).
 */
export async function cancelCommand(deps: Deps, actor: Actor, sn: string, id: string): Promise<CommandItem> {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  const now = deps.now();
  const row = await deps.db.transaction(async (tx) => {
    const mine = and(eq(deviceCommands.id, id), eq(deviceCommands.deviceId, device.id));
    const [cancelled] = await tx
      .update(deviceCommands)
      .set({ status: 'cancelled' })
      .where(and(mine, eq(deviceCommands.status, 'pending'), gt(deviceCommands.expiresat, now)))
      .returning();
    if (!cancelled) {
      const [exists] = await tx.select({ id: deviceCommands.id }).from(deviceCommands).where(mine);
      throw new AppError(exists ? 20404 : 10107);
    }
    await writeDeviceLog(tx, {
      deviceId: device.id,
      event: 'command_cancelled',
      detail: { id, type: cancelled.type, data: cancelled.data, by: actor.username },
    });
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'device_command_cancel',
      target: `device:${sn}`,
      ip: actor.ip,
      detail: { id },
    });
    return cancelled;
  });
  publishStatus(deps, deviceRef(device), id, 'cancelled');
  return toItem(row, sn, now);
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
      .orderBy(desc(deviceCommands.sentat), desc(deviceCommands.seq))
      .limit(page.per_page)
      .offset((page.current - 1) * page.per_page),
    deps.db.select({ n: count() }).from(deviceCommands).where(where),
  ]);
  const now = deps.now();
  return { items: rows.map((r) => toItem(r, sn, now)), total: total?.n ?? 0 };
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
