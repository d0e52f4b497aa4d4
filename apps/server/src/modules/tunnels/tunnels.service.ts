import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { TunnelExposure, TunnelItem, tunnelBody, TunnelReason } from '@cellhub/contract/tunnels';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import type { PageQuery } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { accessibleDevice } from '../devices/device-access';
import { users } from '../users/users.table';
import { plainIp, TunnelFailure, type TunnelManager, type TunnelTarget } from './tunnel-manager';
import { type TunnelRow, tunnels } from './tunnels.table';

type Body = z.output<typeof tunnelBody>;

/** Live tunnels (opening or open) one device may have at once. */
export const TUNNELS_PER_DEVICE = 4;
const LIVE = ['opening', 'open'] as const;

/**
 * A `ws` tunnel's row keeps the origin people connect to (`ws://host:port`, `wss://...`) in `host`, where a `tcp`
 * tunnel keeps the bare host of its port: the exposure is read from it (no column of its own).
 */
const exposureOf = (row: TunnelRow): TunnelExposure => (/^wss?:\/\//.test(row.host) ? 'ws' : 'tcp');

/** The path of a `ws` tunnel; its secret is the last segment. */
export const wsTunnelPath = (id: number, secret?: string) =>
  `/api/tunnels/${id}/ws${secret ? `/${secret}` : ''}`;

function addressOf(manager: TunnelManager, row: TunnelRow): string | null {
  if (row.status === 'failed' || row.status === 'opening') return null;
  if (exposureOf(row) === 'tcp') return row.port !== null ? `${row.host}:${row.port}` : null;
  // The secret lives only in the memory of the instance that holds the tunnel.
  const secret = row.status === 'open' ? manager.wsSecret(row.id) : null;
  if (secret) return `${row.host}${wsTunnelPath(row.id, secret)}`;
  return row.status === 'closed' ? `${row.host}${wsTunnelPath(row.id)}` : null;
}

function toItem(manager: TunnelManager, sn: string, row: TunnelRow): TunnelItem {
  const live = row.status === 'open' ? manager.counts(row.id) : undefined;
  return {
    id: row.id,
    sn,
    name: row.name,
    protocol: row.protocol,
    exposure: exposureOf(row),
    local_ip: row.localIp,
    local_port: row.localPort,
    address: addressOf(manager, row),
    status: row.status,
    code: row.status === 'opening' ? 11015 : row.status === 'failed' ? 11016 : null,
    reason: row.reason ?? null,
    allowed_ip: row.allowedIp,
    bytes_in: live?.bytesIn ?? row.bytesIn,
    bytes_out: live?.bytesOut ?? row.bytesOut,
    connections: live?.connections ?? row.connections,
    opened_by: row.openedBy,
    idle_timeout: row.idleTimeout,
    expires_at: row.status === 'opening' || row.status === 'open' ? row.expiresAt.toISOString() : null,
    createdat: row.createdat.toISOString(),
    closed_at: row.closedAt ? row.closedAt.toISOString() : null,
  };
}

/** A device's tunnels, newest first: for whoever may control it (a view share sees none of this). */
export async function listTunnels(
  deps: Deps,
  manager: TunnelManager,
  actor: Actor,
  sn: string,
  query: PageQuery,
): Promise<{ items: TunnelItem[]; total: number }> {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  const where = eq(tunnels.deviceId, device.id);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(tunnels)
      .where(where)
      .orderBy(desc(tunnels.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(tunnels).where(where),
  ]);
  return { items: rows.map((r) => toItem(manager, device.sn, r)), total: total?.n ?? 0 };
}

/**
 * Opens a tunnel to `local_ip:local_port` on the device's LAN, for the caller's address only. Waits for the device's
 * first reverse connection (TUNNEL_OPEN_TIMEOUT_S): 11016 with the reason in `details` when it does not answer,
 * refuses or cannot be reached; the row stays as a failed tunnel. The opening is audited with the row.
 * `wsOrigin` (`ws://host[:port]` or `wss://...`, where the caller reached this server) is where a `ws` tunnel's path
 * is served.
 */
export async function openTunnel(
  deps: Deps,
  manager: TunnelManager,
  actor: Actor,
  sn: string,
  body: Body,
  wsOrigin: string,
): Promise<TunnelItem> {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  if (!deps.link.online(device.sn, device.online)) throw new AppError(20401);
  const [liveCount] = await deps.db
    .select({ n: count() })
    .from(tunnels)
    .where(and(eq(tunnels.deviceId, device.id), inArray(tunnels.status, [...LIVE])));
  if ((liveCount?.n ?? 0) >= TUNNELS_PER_DEVICE) throw new AppError(88002);
  const cfg = deps.config.tunnels;
  const endpoint = await manager.endpointAddress();
  const allowedIp = plainIp(actor.ip);
  const row = await deps.db.transaction(async (tx) => {
    const [made] = await tx
      .insert(tunnels)
      .values({
        deviceId: device.id,
        uid: actor.uid,
        openedBy: actor.username,
        name: body.name,
        protocol: body.protocol,
        localIp: body.local_ip,
        localPort: body.local_port,
        endpoint: `${endpoint.host}:${endpoint.port}`,
        host: body.exposure === 'ws' ? wsOrigin : cfg.address,
        allowedIp,
        idleTimeout: Math.round(cfg.idleMs / 1000),
        expiresAt: new Date(deps.now().getTime() + cfg.maxMs),
      })
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'tunnel_open',
      target: `device:${device.sn}`,
      ip: actor.ip,
      detail: {
        tunnel: made!.id,
        name: body.name,
        protocol: body.protocol,
        exposure: body.exposure,
        local_ip: body.local_ip,
        local_port: body.local_port,
        allowed_ip: allowedIp,
      },
    });
    return made!;
  });
  const target = {
    id: row.id,
    deviceId: device.id,
    uid: actor.uid,
    productKey: device.productKey,
    sn: device.sn,
    localIp: body.local_ip,
    localPort: body.local_port,
    allowedIp,
    idleMs: cfg.idleMs,
    maxMs: cfg.maxMs,
  };
  const finish = (status: 'closed' | 'failed', reason: TunnelReason | null, c = manager.counts(row.id)) =>
    deps.db
      .update(tunnels)
      .set({
        status,
        reason,
        closedAt: deps.now(),
        ...(c ? { bytesIn: c.bytesIn, bytesOut: c.bytesOut, connections: c.connections } : {}),
      })
      .where(eq(tunnels.id, row.id))
      .returning();
  let port: number | null;
  try {
    ({ port } = await manager.open(
      target,
      cfg.openTimeoutMs,
      async (reason, counts) => {
        await finish('closed', reason, counts);
      },
      body.exposure,
    ));
  } catch (err) {
    const reason = err instanceof TunnelFailure ? err.reason : null;
    // Closed by a person while opening: closed, not failed.
    await finish(reason === 'user' ? 'closed' : 'failed', reason);
    if (err instanceof TunnelFailure) {
      throw new AppError(11016, 400, undefined, { reason: err.reason, why: err.why });
    }
    throw err;
  }
  const [opened] = await deps.db
    .update(tunnels)
    .set({ status: 'open', port })
    .where(and(eq(tunnels.id, row.id), eq(tunnels.status, 'opening')))
    .returning();
  if (!opened) {
    // Closed while the answer was being written (a person or the server stopping): what the row says stands.
    await manager.close(row.id, 'user');
    const [now] = await deps.db.select().from(tunnels).where(eq(tunnels.id, row.id));
    return toItem(manager, device.sn, now!);
  }
  return toItem(manager, device.sn, opened);
}

/**
 * Closes a tunnel (the close button): its port stops listening and every connection through it ends. Closing one
 * already closed or failed answers it as it is. 88001 for a tunnel of another device.
 */
export async function closeTunnel(
  deps: Deps,
  manager: TunnelManager,
  actor: Actor,
  sn: string,
  id: number,
): Promise<TunnelItem> {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  const [row] = await deps.db
    .select()
    .from(tunnels)
    .where(and(eq(tunnels.id, id), eq(tunnels.deviceId, device.id)));
  if (!row) throw new AppError(88001);
  if (row.status === 'closed' || row.status === 'failed') return toItem(manager, device.sn, row);
  await writeAudit(deps.db, {
    uid: actor.uid,
    action: 'tunnel_close',
    target: `device:${device.sn}`,
    ip: actor.ip,
    detail: { tunnel: id, name: row.name },
  });
  const counts = manager.counts(id);
  const closedHere = await manager.close(id, 'user');
  if (!closedHere) {
    // Opening, or held by another instance (docs/tunnels.md): the row says closed and its holder stops it (opening
    // sees the row and lets go).
    await deps.db
      .update(tunnels)
      .set({
        status: 'closed',
        reason: 'user',
        closedAt: deps.now(),
        ...(counts ? { bytesIn: counts.bytesIn, bytesOut: counts.bytesOut } : {}),
      })
      .where(and(eq(tunnels.id, id), inArray(tunnels.status, [...LIVE])));
  }
  const [after] = await deps.db.select().from(tunnels).where(eq(tunnels.id, id));
  return toItem(manager, device.sn, after!);
}

/**
 * Admits a WebSocket connection to a `ws` tunnel's path, before the upgrade: the tunnel open on this instance with
 * this secret, the connection from the opener's address, and the opener still in control of the device (asked of the
 * authorisation layer at each connection, as for a request of theirs; losing it closes the tunnel, `revoked`).
 * Every refusal answers 88001, as if there were no such tunnel; another address is counted like at a TCP port.
 */
export async function admitTunnelConnection(
  deps: Deps,
  manager: TunnelManager,
  id: number,
  secret: string,
  ip: string,
): Promise<void> {
  const target = manager.wsTarget(id, secret);
  if (!target) throw new AppError(88001);
  if (plainIp(ip) !== target.allowedIp) {
    manager.refuse(id);
    throw new AppError(88001);
  }
  if (!(await openerControls(deps, target))) {
    await manager.close(id, 'revoked');
    throw new AppError(88001);
  }
}

/** Whether the opener of a tunnel may still control its device (the authorisation layer's `control`). */
async function openerControls(deps: Deps, t: TunnelTarget): Promise<boolean> {
  const [u] = await deps.db
    .select({ id: users.id, username: users.username, role: users.role })
    .from(users)
    .where(eq(users.id, t.uid));
  if (!u) return false;
  const opener: Actor = {
    uid: u.id,
    username: u.username,
    role: u.role,
    ip: '',
    userAgent: '',
    sessionId: 0,
  };
  return accessibleDevice(deps.db, opener, t.sn, 'control').then(
    () => true,
    () => false,
  );
}

/**
 * The shares of these devices changed (or a device changed hands): each live tunnel on them whose opener may no longer
 * control the device is closed (`revoked`). The opener's right is asked of the authorisation layer as for a request
 * of theirs (`accessibleDevice`, control).
 */
export async function recheckTunnels(deps: Deps, manager: TunnelManager, deviceIds: number[]): Promise<void> {
  for (const t of manager.liveOn(deviceIds)) {
    if (!(await openerControls(deps, t))) await manager.close(t.id, 'revoked');
  }
}

/**
 * Rows this instance left opening or open when it last stopped without closing them (a crash): closed, since the
 * tunnel state died with the process. Only rows of this endpoint, so other instances' tunnels stay.
 */
export async function closeStaleTunnels(deps: Deps): Promise<void> {
  const { address, port } = deps.config.tunnels;
  if (port === 0) return;
  await deps.db
    .update(tunnels)
    .set({ status: 'closed', reason: 'server_stop', closedAt: deps.now() })
    .where(and(eq(tunnels.endpoint, `${address}:${port}`), inArray(tunnels.status, [...LIVE])));
}
