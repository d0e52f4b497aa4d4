import { sql } from 'drizzle-orm';
import type { Deps } from '../lib/deps';
import type { ConnectInfo } from '../modules/devices/device-presence.service';
import type { DeviceRef } from '../modules/devices/device-ref';

/** How long a connect or disconnect waits for others before the batch is written. */
export const PRESENCE_WINDOW_MS = 20;

interface Change {
  device: DeviceRef;
  /** 1 online, 0 offline, -1 only a log row (a disconnect that does not change presence, e.g. takeover). */
  online: 1 | 0 | -1;
  info?: ConnectInfo;
  reason?: string;
  /** Online: whether its expected config differs from its own. Offline: whether the flag was written. */
  resolve(result: boolean): void;
  reject(err: unknown): void;
}

/**
 * Connects and disconnects written together: one statement per batch sets online/offline, `activatedat` on the
 * first connect of an owned device (a stock device's factory test at the factory is not its first connect, issue
 * 15's timeline), `protocol` and `lastcommunicationat`, records who holds each connection (`device_connections`:
 * this instance on the embedded broker, nobody in particular on an external one; presence-keeper.ts), and writes the
 * device log rows, so 10,000 devices connecting at once cost a few hundred statements rather than five round trips
 * each. A failed batch is written again one device at a time (e.g. a device deleted meanwhile fails alone).
 *
 * A disconnect sets the device offline only while the connection record is this holder's (or there is none): a
 * device that moved to another instance before this one noticed it gone stays online. Browsers and other
 * subscribers learn of changes from the caller's `presence.changed` event, never from here.
 *
 * Callers keep the changes of one device in order (DeviceGateway.serial), so a device appears at most once in a
 * batch.
 */
export class PresenceWriter {
  private queue: Change[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;
  /** Recorded as the holder of the connections this writer marks online (null: an external broker). */
  holder: string | null = null;
  readonly stats = { batches: 0, changes: 0, fallbacks: 0 };

  constructor(private readonly deps: Deps) {}

  /** Marks the device online; resolves, once written, with whether its expected config differs from its own. */
  online(device: DeviceRef, info: ConnectInfo): Promise<boolean> {
    return this.add({ device, online: 1, info });
  }

  /**
   * Logs the disconnect and, with `setOffline`, clears the online flag; resolves with whether the flag was cleared
   * (false: another holder has the device now, or `setOffline` was false).
   */
  offline(device: DeviceRef, reason: string, setOffline: boolean): Promise<boolean> {
    return this.add({ device, online: setOffline ? 0 : -1, reason });
  }

  private add(change: Omit<Change, 'resolve' | 'reject'>): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ ...change, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // Nobody waits for these rows (the CONNACK went out already): collect for a moment, so a connect storm
        // becomes a few large statements instead of one per device.
        setTimeout(() => {
          this.scheduled = false;
          void this.drain();
        }, PRESENCE_WINDOW_MS);
      }
    });
  }

  /** Writes what is queued; one batch at a time, changes arriving meanwhile form the next one. */
  drain(): Promise<void> {
    // Reset asynchronously: an empty queue must not leave a settled promise behind as "running".
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      await this.write(batch);
    }
  }

  private async write(batch: Change[]): Promise<void> {
    const now = this.deps.now();
    let result: Set<number>;
    try {
      result = await this.statement(batch, now);
    } catch (err) {
      this.deps.log.warn({ err, n: batch.length }, 'presence batch failed; writing one by one');
      this.stats.fallbacks++;
      await Promise.all(batch.map((c) => this.single(c, now)));
      return;
    }
    this.stats.batches++;
    this.stats.changes += batch.length;
    for (const c of batch) c.resolve(result.has(c.device.id));
  }

  /**
   * One statement for the batch. Returns the ids of the devices that came online with a config that differs from
   * theirs, and of those whose offline flag was written.
   */
  private async statement(batch: Change[], now: Date): Promise<Set<number>> {
    const ids: number[] = [];
    const online: number[] = [];
    const protocols: string[] = [];
    const keepalives: number[] = [];
    const events: string[] = [];
    const details: string[] = [];
    for (const c of batch) {
      ids.push(c.device.id);
      online.push(c.online);
      protocols.push(c.info?.protocol ?? '');
      keepalives.push(c.info?.keepalive ?? 0);
      events.push(c.online === 1 ? 'connect' : 'disconnect');
      details.push(JSON.stringify(c.online === 1 ? { ...c.info } : { reason: c.reason }));
    }
    const ts = now.toISOString();
    const holder = this.holder;
    // Every part reads the rows as they were before the statement: `mine` sees the records before `held` and
    // `released` change them.
    const res = await this.deps.db.execute(sql`
      with v as (
        select * from unnest(${sql.param(ids)}::int[], ${sql.param(online)}::int[],
          ${sql.param(protocols)}::text[], ${sql.param(keepalives)}::int[], ${sql.param(events)}::text[],
          ${sql.param(details)}::text[])
          as v(id, online, protocol, keepalive, event, detail)
      ),
      mine as (
        select v.id from v left join device_connections c on c.device_id = v.id
        where v.online = 0 and (c.device_id is null or c.instance_id is not distinct from ${holder}::text)
      ),
      logs as (
        insert into device_logs (device_id, event, detail) select id, event, detail::jsonb from v
      ),
      held as (
        insert into device_connections (device_id, instance_id, keepalive, connectedat)
        select id, ${holder}::text, keepalive, ${ts}::timestamptz from v where online = 1
        on conflict (device_id) do update
          set instance_id = excluded.instance_id, keepalive = excluded.keepalive, connectedat = excluded.connectedat
      ),
      released as (
        delete from device_connections c using mine where c.device_id = mine.id
      ),
      changed as (
        update devices d set
          online = v.online,
          lastcommunicationat = case when v.online = 1 then ${ts}::timestamptz else d.lastcommunicationat end,
          activatedat = case when v.online = 1 and d.uid is not null then coalesce(d.activatedat, ${ts}::timestamptz) else d.activatedat end,
          protocol = case when v.online = 1 then v.protocol else d.protocol end
        from v
        where d.id = v.id and (v.online = 1 or v.id in (select id from mine))
        returning d.id, v.online, d.expect_config_version, d.config_version_different
      )
      select id from changed
      where online = 0 or (expect_config_version <> 0 and config_version_different)`);
    return new Set((res as unknown as { rows: { id: number }[] }).rows.map((r) => r.id));
  }

  /** One device alone, when its batch failed. */
  private async single(c: Change, now: Date): Promise<void> {
    try {
      const result = await this.statement([c], now);
      c.resolve(result.has(c.device.id));
    } catch (err) {
      c.reject(err);
    }
  }
}
