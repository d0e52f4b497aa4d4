import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { startPeriodic, type Periodic } from '../jobs/periodic';
import type { Deps } from '../lib/deps';
import type { DeviceRef } from '../modules/devices/device-ref';

export interface PresenceKeeperOptions {
  /** How often this instance writes its heartbeat and looks for devices nobody holds any more. */
  heartbeatMs: number;
  /** An instance whose heartbeat is older than this is gone, and the connections it held with it. */
  instanceTimeoutMs: number;
  /** Keep-alive (s) assumed for an online device with no connection record (set online before records existed). */
  defaultKeepaliveS: number;
}

export const DEFAULT_PRESENCE_OPTIONS: PresenceKeeperOptions = {
  heartbeatMs: 10_000,
  instanceTimeoutMs: 30_000,
  defaultKeepaliveS: 60,
};

/** The reason in the device log, and in the `device.online` event, of a device the sweep set offline. */
export const REBUILT_REASON = 'presence rebuilt';

const SWEEP_BATCH = 1000;
/** Rows of instances gone this long, holding no connection any more, are deleted. */
const FORGET_AFTER_MS = 24 * 3_600_000;

interface SweptRow {
  id: number;
  sn: string;
  product_key: string;
  uid: number | null;
  instance_id: string | null;
}

/**
 * Presence that survives crashes. A server killed with devices connected to its embedded broker writes no
 * disconnects; their rows would say online forever. So every instance registers itself (`server_instances`) with a
 * heartbeat, every connection written online records the instance holding it (`device_connections`, written with
 * the online flag by the PresenceWriter), and every instance sweeps, at start and on each heartbeat:
 *
 * - a device held by an instance that stopped or whose heartbeat is older than `instanceTimeoutMs` is set offline
 *   once 1.5 x its keep-alive has passed since that instance was last known alive: its last heartbeat plus one
 *   heartbeat of grace, or the moment it was marked stopped if that is earlier (a restart at the same address
 *   proves it dead then, so a quick restart does not add a heartbeat's grace). A device that noticed the loss and
 *   came back (to any instance) holds a new record by then and is left alone;
 * - a device online with no record at all (left by a server before this existed) is set offline once nothing was
 *   heard from it for 1.5 x `defaultKeepaliveS`.
 *
 * Instances never sweep each other's devices while their heartbeats go on. Connections an external broker holds
 * (record without instance) are the broker's: a server restart does not end them, and their will or `{"online":0}`
 * reaches the server's persistent session after it. The sweep runs on each heartbeat and, when a swept instance's
 * device falls due before the next one, at that moment (`nextDue`). Each device set offline gets a `disconnect` log row (reason
 * "presence rebuilt") and a `presence.changed` event. Rows are claimed with SKIP LOCKED, so instances sweeping at
 * the same moment, or a device connecting meanwhile, never produce two log rows or a wrong state.
 */
export class PresenceKeeper {
  readonly instanceId = randomBytes(8).toString('hex');
  readonly stats = { sweeps: 0, swept: 0, heartbeats: 0 };
  private periodic: Periodic | undefined;
  private lastBeat = 0;
  /** Wakes the sweep when the next device of a gone instance falls due, if that is before the next heartbeat. */
  private dueTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: Deps,
    readonly options: PresenceKeeperOptions,
    /** Called when this instance's heartbeat had stopped long enough for others to sweep its devices. */
    private readonly revived: () => Promise<void>,
  ) {}

  /**
   * Registers this instance before its broker takes connections, and ends the previous instance at the same
   * address (`host:MQTT port` of an embedded broker): only one process listens there, so that one is gone.
   */
  async start(address: string): Promise<void> {
    const now = this.deps.now();
    await this.deps.db.execute(sql`
      insert into server_instances (id, address, startedat, heartbeatat)
      values (${this.instanceId}, ${address}, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)`);
    this.lastBeat = now.getTime();
    if (address !== '') {
      await this.deps.db.execute(sql`
        update server_instances set stoppedat = ${now.toISOString()}::timestamptz
        where address = ${address} and id <> ${this.instanceId} and stoppedat is null`);
    }
    this.periodic = startPeriodic({
      name: 'presence heartbeat and sweep',
      everyMs: this.options.heartbeatMs,
      log: this.deps.log,
      run: () => this.tick(),
    });
    // The first sweep at once: devices of a server that died before this start are due soonest.
    this.periodic.wake();
  }

  /** A heartbeat and a sweep now (or right after the one in progress); resolves when done. */
  runNow(): Promise<void> {
    return this.periodic?.runNow() ?? this.tick();
  }

  private async tick(): Promise<void> {
    await this.heartbeat();
    await this.sweep();
  }

  private async heartbeat(): Promise<void> {
    const now = this.deps.now();
    const at = now.toISOString();
    // An upsert: a row deleted while this instance was thought gone for a day comes back.
    await this.deps.db.execute(sql`
      insert into server_instances (id, address, startedat, heartbeatat)
      values (${this.instanceId}, '', ${at}::timestamptz, ${at}::timestamptz)
      on conflict (id) do update set heartbeatat = excluded.heartbeatat, stoppedat = null`);
    this.stats.heartbeats++;
    const silent = now.getTime() - this.lastBeat;
    this.lastBeat = now.getTime();
    // Others may have swept this instance's devices meanwhile (a database outage, a long pause): the connections
    // it still holds are written online again.
    if (silent > this.options.instanceTimeoutMs) await this.revived();
  }

  /** Other instances on this database that are alive: not stopped, heartbeat within `instanceTimeoutMs`. */
  async othersAlive(): Promise<number> {
    const since = new Date(this.deps.now().getTime() - this.options.instanceTimeoutMs).toISOString();
    const res = (await this.deps.db.execute(sql`
      select count(*)::int as n from server_instances
      where id <> ${this.instanceId} and stoppedat is null and heartbeatat > ${since}::timestamptz`)) as unknown as {
      rows: { n: number }[];
    };
    return Number(res.rows[0]?.n ?? 0);
  }

  /** Sets offline what nobody holds any more; returns how many devices. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await this.sweepBatch();
      total += rows.length;
      for (const r of rows) {
        const device: DeviceRef = { id: r.id, sn: r.sn, productKey: r.product_key, uid: r.uid };
        this.deps.events.emit({
          type: 'presence.changed',
          device,
          online: 0,
          at: this.deps.now().toISOString(),
          reason: REBUILT_REASON,
        });
      }
      if (rows.length < SWEEP_BATCH) break;
    }
    this.stats.sweeps++;
    this.stats.swept += total;
    await this.forget();
    if (this.periodic) this.schedule(await this.nextDue());
    return total;
  }

  /**
   * When the sweep would next set offline a device held by an instance gone now (null: none is held), by the rule
   * of `sweepBatch`. Devices of instances still beating are the heartbeat's.
   */
  async nextDue(): Promise<Date | null> {
    const now = this.deps.now();
    const cutoff = new Date(now.getTime() - this.options.instanceTimeoutMs).toISOString();
    const res = await this.deps.db.execute(sql`
      select min(greatest(
          ${this.aliveUntil()} + make_interval(secs => 1.5 * c.keepalive),
          case when i.stoppedat is null then i.heartbeatat
            + make_interval(secs => ${this.options.instanceTimeoutMs / 1000}::float8) end
        )) as due
      from server_instances i
      join device_connections c on c.instance_id = i.id
      join devices d on d.id = c.device_id and d.online = 1
      where i.id <> ${this.instanceId} and (i.stoppedat is not null or i.heartbeatat < ${cutoff}::timestamptz)`);
    const due = (res as unknown as { rows: { due: string | Date | null }[] }).rows[0]?.due;
    return due == null ? null : new Date(due);
  }

  /**
   * Until when the instance holding a connection (`i`, `c` in the query) was alive for certain: its last heartbeat
   * plus one heartbeat of grace, or when it was marked stopped if earlier (a new start at its address, or its own
   * stop); for a connection whose instance row is gone, its connect time plus the grace.
   */
  private aliveUntil() {
    const grace = sql`make_interval(secs => ${this.options.heartbeatMs / 1000}::float8)`;
    return sql`coalesce(least(i.heartbeatat + ${grace}, i.stoppedat), c.connectedat + ${grace})`;
  }

  /** A sweep at `due`, if that comes before the next heartbeat's. */
  private schedule(due: Date | null): void {
    clearTimeout(this.dueTimer);
    this.dueTimer = undefined;
    if (!due) return;
    const delay = due.getTime() - this.deps.now().getTime();
    if (delay >= this.options.heartbeatMs) return;
    // Just past the due time (the sweep compares strictly); one already due but not swept (its row was locked by a
    // device connecting) waits a little rather than spin.
    const wait = delay > 0 ? delay + 5 : Math.min(1000, this.options.heartbeatMs);
    this.dueTimer = setTimeout(() => this.periodic?.wake(), wait);
    this.dueTimer.unref();
  }

  private async sweepBatch(): Promise<SweptRow[]> {
    const now = this.deps.now();
    const at = now.toISOString();
    const cutoff = new Date(now.getTime() - this.options.instanceTimeoutMs).toISOString();
    const res = await this.deps.db.execute(sql`
      with held as (
        -- Held by an instance that is gone: stopped, silent too long, or forgotten.
        select d.id, c.instance_id from devices d
        join device_connections c on c.device_id = d.id
        left join server_instances i on i.id = c.instance_id
        where d.online = 1 and c.instance_id is not null and c.instance_id <> ${this.instanceId}
          and (i.id is null or i.stoppedat is not null or i.heartbeatat < ${cutoff}::timestamptz)
          and ${this.aliveUntil()} + make_interval(secs => 1.5 * c.keepalive) < ${at}::timestamptz
        limit ${SWEEP_BATCH}
        for update of d, c skip locked
      ),
      unheld as (
        -- Online without any record: from before records existed, or a write that failed half-way.
        select d.id, null::text as instance_id from devices d
        where d.online = 1
          and not exists (select 1 from device_connections c where c.device_id = d.id)
          and coalesce(d.lastcommunicationat, d.createdat)
            + make_interval(secs => 1.5 * ${this.options.defaultKeepaliveS}::float8) < ${at}::timestamptz
        limit ${SWEEP_BATCH}
        for update of d skip locked
      ),
      gone as (select * from held union all select * from unheld),
      off as (
        update devices d set online = 0 from gone where d.id = gone.id
        returning d.id, d.sn, d.product_key, d.uid, gone.instance_id
      ),
      dropped as (delete from device_connections c using off where c.device_id = off.id),
      logs as (
        insert into device_logs (device_id, event, detail)
        select id, 'disconnect', jsonb_build_object('reason', ${REBUILT_REASON}::text, 'instance', instance_id)
        from off
      )
      select id, sn, product_key, uid, instance_id from off`);
    return (res as unknown as { rows: SweptRow[] }).rows;
  }

  private async forget(): Promise<void> {
    const before = new Date(this.deps.now().getTime() - FORGET_AFTER_MS).toISOString();
    await this.deps.db.execute(sql`
      delete from server_instances i
      where i.heartbeatat < ${before}::timestamptz
        and not exists (select 1 from device_connections c where c.instance_id = i.id)`);
  }

  /** Stops the heartbeat and marks this instance stopped (its connections were closed and written offline). */
  async stop(): Promise<void> {
    if (!this.periodic) return;
    clearTimeout(this.dueTimer);
    await this.periodic.stop();
    this.periodic = undefined;
    clearTimeout(this.dueTimer);
    await this.deps.db.execute(sql`
      update server_instances set stoppedat = ${this.deps.now().toISOString()}::timestamptz
      where id = ${this.instanceId}`);
  }
}

/** Which of these devices have their connection recorded as held by this instance. */
export async function heldBy(deps: Deps, instanceId: string, deviceIds: number[]): Promise<Set<number>> {
  const res = await deps.db.execute(sql`
    select device_id from device_connections
    where instance_id = ${instanceId} and device_id = any(${sql.param(deviceIds)}::int[])`);
  return new Set((res as unknown as { rows: { device_id: number }[] }).rows.map((r) => r.device_id));
}
