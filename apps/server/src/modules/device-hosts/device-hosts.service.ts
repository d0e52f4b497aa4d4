import { and, asc, count, desc, eq, ilike, ne, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  type DeviceHostAddress,
  type DeviceHostDetail,
  type deviceHostBody,
  type DeviceHostItem,
  type DeviceHostListQuery,
  type deviceHostUpdateBody,
  isHexData,
  registrationPatternProblem,
} from '@cellhub/contract/device-hosts';
import { AppError } from '../../lib/app-error';
import { openToSignedIn, requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import type { DeviceHostManager } from './device-host-manager';
import { type DeviceHostRow, deviceHosts } from './device-hosts.table';

type Body = z.output<typeof deviceHostBody>;
type UpdateBody = z.output<typeof deviceHostUpdateBody>;

function toItem(deps: Deps, manager: DeviceHostManager, row: DeviceHostRow): DeviceHostItem {
  const status = manager.status(row.id);
  return {
    id: row.id,
    name: row.name,
    protocol: row.protocol,
    bind: row.bind,
    port: row.port,
    enabled: row.enabled,
    register_by: row.registerBy,
    register_format: row.registerFormat,
    register_pattern: row.registerPattern,
    heartbeat_format: row.heartbeatFormat,
    heartbeat_data: row.heartbeatData,
    heartbeat_interval: row.heartbeatInterval,
    idle_timeout: row.idleTimeout,
    remark: row.remark,
    address: `${deps.config.deviceHosts.address}:${row.port}`,
    state: row.enabled ? status.state : 'stopped',
    error: status.error,
    connected: manager.connectedCount(row.id),
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

async function hostById(deps: Deps, id: number): Promise<DeviceHostRow> {
  const [row] = await deps.db.select().from(deviceHosts).where(eq(deviceHosts.id, id));
  if (!row) throw new AppError(84003);
  return row;
}

/**
 * A port a host may take: inside DEVICE_HOST_PORTS (84001), not another host's (84002), and bindable now unless this
 * host already listens on it (84002 with the system's reason, e.g. EADDRINUSE).
 */
async function checkPort(
  deps: Deps,
  manager: DeviceHostManager,
  host: Pick<DeviceHostRow, 'port' | 'protocol' | 'bind' | 'enabled'>,
  id: number | undefined,
): Promise<void> {
  const { min, max } = deps.config.deviceHosts.ports;
  if (host.port < min || host.port > max) {
    throw new AppError(84001, 400, undefined, [{ field: 'port', message: `${min}-${max}` }]);
  }
  const taken = await deps.db
    .select({ id: deviceHosts.id })
    .from(deviceHosts)
    .where(
      id === undefined
        ? eq(deviceHosts.port, host.port)
        : and(eq(deviceHosts.port, host.port), ne(deviceHosts.id, id)),
    );
  if (taken.length > 0) {
    throw new AppError(84002, 400, undefined, [
      { field: 'port', message: `device host ${taken[0]?.id ?? ''}` },
    ]);
  }
  if (host.enabled && !manager.holdsPort(host.port)) await manager.probe(host.protocol, host.bind, host.port);
}

export async function listDeviceHosts(
  deps: Deps,
  manager: DeviceHostManager,
  actor: Actor,
  query: DeviceHostListQuery,
): Promise<{ items: DeviceHostItem[]; total: number }> {
  requireAdmin(actor);
  const filters: (SQL | undefined)[] = [];
  if (query.keyword) filters.push(ilike(deviceHosts.name, likeKeyword(query.keyword)));
  if (query.protocol) filters.push(eq(deviceHosts.protocol, query.protocol));
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(deviceHosts)
      .where(where)
      .orderBy(desc(deviceHosts.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(deviceHosts).where(where),
  ]);
  return { items: rows.map((r) => toItem(deps, manager, r)), total: total?.n ?? 0 };
}

export async function getDeviceHost(
  deps: Deps,
  manager: DeviceHostManager,
  actor: Actor,
  id: number,
): Promise<DeviceHostDetail> {
  requireAdmin(actor);
  const row = await hostById(deps, id);
  const status = manager.status(id);
  return {
    ...toItem(deps, manager, row),
    counters: status.counters,
    devices: status.devices,
    refused_registrations: status.refused,
  };
}

export async function createDeviceHost(
  deps: Deps,
  manager: DeviceHostManager,
  actor: Actor,
  body: Body,
): Promise<DeviceHostItem> {
  requireAdmin(actor);
  await checkPort(deps, manager, body, undefined);
  let madeId: number | undefined;
  let row: DeviceHostRow;
  try {
    row = await deps.db.transaction(async (tx) => {
      const [made] = await tx
        .insert(deviceHosts)
        .values({
          name: body.name,
          protocol: body.protocol,
          bind: body.bind,
          port: body.port,
          enabled: body.enabled,
          registerBy: body.register_by,
          registerFormat: body.register_format,
          registerPattern: body.register_pattern,
          heartbeatFormat: body.heartbeat_format,
          heartbeatData: body.heartbeat_data,
          heartbeatInterval: body.heartbeat_interval,
          idleTimeout: body.idle_timeout,
          remark: body.remark,
        })
        .returning();
      if (!made) throw new AppError(10109);
      madeId = made.id;
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'device_host_create',
        target: `device-host:${made.id}`,
        ip: actor.ip,
        detail: { name: made.name, protocol: made.protocol, port: made.port },
      });
      // Listening before the commit: a port taken since the probe refuses the host instead of saving a failed one.
      await manager.apply(made.id, made);
      return made;
    });
  } catch (err) {
    // Rolled back: a listener started for it stops.
    if (madeId !== undefined) await manager.apply(madeId, undefined).catch(() => undefined);
    throw portTaken(err);
  }
  return toItem(deps, manager, row);
}

/** The unique port index lost a race with another create: 84002, like the check. */
function portTaken(err: unknown): unknown {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505' ? new AppError(84002) : err;
}

export async function updateDeviceHost(
  deps: Deps,
  manager: DeviceHostManager,
  actor: Actor,
  id: number,
  body: UpdateBody,
): Promise<DeviceHostItem> {
  requireAdmin(actor);
  const before = await hostById(deps, id);
  const next = {
    name: body.name ?? before.name,
    protocol: body.protocol ?? before.protocol,
    bind: body.bind ?? before.bind,
    port: body.port ?? before.port,
    enabled: body.enabled ?? before.enabled,
    registerBy: body.register_by ?? before.registerBy,
    registerFormat: body.register_format ?? before.registerFormat,
    registerPattern: body.register_pattern ?? before.registerPattern,
    heartbeatFormat: body.heartbeat_format ?? before.heartbeatFormat,
    heartbeatData: body.heartbeat_data ?? before.heartbeatData,
    heartbeatInterval: body.heartbeat_interval ?? before.heartbeatInterval,
    idleTimeout: body.idle_timeout ?? before.idleTimeout,
    remark: body.remark ?? before.remark,
  };
  const problem = registrationPatternProblem(next.registerPattern);
  if (problem) throw new AppError(10113, 400, undefined, [{ field: 'register_pattern', message: problem }]);
  if (next.heartbeatFormat === 'hex' && !isHexData(next.heartbeatData)) {
    throw new AppError(10113, 400, undefined, [{ field: 'heartbeat_data', message: 'hex_invalid' }]);
  }
  const relisten =
    next.enabled &&
    (!before.enabled ||
      next.port !== before.port ||
      next.protocol !== before.protocol ||
      next.bind !== before.bind);
  if (next.port !== before.port || relisten) {
    // The host's own listener holds its old port; a new port must be free.
    const { min, max } = deps.config.deviceHosts.ports;
    if (next.port < min || next.port > max) {
      throw new AppError(84001, 400, undefined, [{ field: 'port', message: `${min}-${max}` }]);
    }
    const taken = await deps.db
      .select({ id: deviceHosts.id })
      .from(deviceHosts)
      .where(and(eq(deviceHosts.port, next.port), ne(deviceHosts.id, id)));
    if (taken.length > 0)
      throw new AppError(84002, 400, undefined, [
        { field: 'port', message: `device host ${taken[0]?.id ?? ''}` },
      ]);
    if (relisten && !(next.port === before.port && manager.holdsPort(next.port))) {
      await manager.probe(next.protocol, next.bind, next.port);
    }
  }
  let row: DeviceHostRow;
  try {
    row = await deps.db.transaction(async (tx) => {
      const [updated] = await tx.update(deviceHosts).set(next).where(eq(deviceHosts.id, id)).returning();
      if (!updated) throw new AppError(84003);
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'device_host_update',
        target: `device-host:${id}`,
        ip: actor.ip,
        detail: { name: updated.name, port: updated.port, enabled: updated.enabled },
      });
      await manager.apply(id, updated);
      return updated;
    });
  } catch (err) {
    // The listener of the saved settings comes back (the change was rolled back).
    await manager.apply(id, await hostById(deps, id)).catch(() => undefined);
    throw portTaken(err);
  }
  return toItem(deps, manager, row);
}

export async function deleteDeviceHost(
  deps: Deps,
  manager: DeviceHostManager,
  actor: Actor,
  id: number,
): Promise<void> {
  requireAdmin(actor);
  const row = await hostById(deps, id);
  await deps.db.transaction(async (tx) => {
    await tx.delete(deviceHosts).where(eq(deviceHosts.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'device_host_delete',
      target: `device-host:${id}`,
      ip: actor.ip,
      detail: { name: row.name, port: row.port },
    });
  });
  // Its DTUs are disconnected (and go offline) once the row is gone.
  await manager.apply(id, undefined);
}

/** The enabled hosts' addresses, for pointing a device's socket at one (any signed-in user). */
export async function deviceHostAddresses(deps: Deps, actor: Actor): Promise<DeviceHostAddress[]> {
  openToSignedIn(actor);
  const rows = await deps.db
    .select({
      id: deviceHosts.id,
      name: deviceHosts.name,
      protocol: deviceHosts.protocol,
      port: deviceHosts.port,
    })
    .from(deviceHosts)
    .where(eq(deviceHosts.enabled, true))
    .orderBy(asc(deviceHosts.port));
  return rows.map((r) => ({ ...r, address: deps.config.deviceHosts.address }));
}
