import { sql } from 'drizzle-orm';
import type { Deps } from '../lib/deps';
import { type ConnectInfo, markOffline, markOnline } from '../modules/devices/device-presence.service';
import type { DeviceRef } from '../modules/devices/device-ref';

/** How long a connect or disconnect waits for others before the batch is written. */
export const PRESENCE_WINDOW_MS = 20;

interface Change {
  device: DeviceRef;
  /** 1 online, 0 offline, -1 only a log row (a disconnect that does not change presence, e.g. takeover). */
  online: 1 | 0 | -1;
  info?: ConnectInfo;
  reason?: string;
  resolve(configDiffers: boolean): void;
  reject(err: unknown): void;
}

/**
 * Connects and disconnects written together: one statement per batch sets online/offline, `activatedat` on first
 * connect, `protocol` and `lastcommunicationat`, and writes the device log rows, so 10,000 devices connecting at
 * once cost a few hundred statements rather than five round trips each. Same effect as markOnline/markOffline
 * (device-presence.service), which a failed batch falls back to, one device at a time.
 *
 * Callers keep the changes of one device in order (DeviceGateway.serial), so a device appears at most once in a
 * batch.
 */
export class PresenceWriter {
  private queue: Change[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;
  readonly stats = { batches: 0, changes: 0, fallbacks: 0 };

  constructor(private readonly deps: Deps) {}

  /** Marks the device online; resolves, once written, with whether its expected config differs from its own. */
  online(device: DeviceRef, info: ConnectInfo): Promise<boolean> {
    return this.add({ device, online: 1, info });
  }

  offline(device: DeviceRef, reason: string, setOffline: boolean): Promise<void> {
    return this.add({ device, online: setOffline ? 0 : -1, reason }).then(() => undefined);
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
    let differs: Set<number>;
    try {
      differs = await this.statement(batch, now);
    } catch (err) {
      this.deps.log.warn({ err, n: batch.length }, 'presence batch failed; writing one by one');
      this.stats.fallbacks++;
      await Promise.all(batch.map((c) => this.single(c)));
      return;
    }
    this.stats.batches++;
    this.stats.changes += batch.length;
    const at = now.toISOString();
    for (const c of batch) {
      const { device } = c;
      if (c.online === 1) {
        this.deps.events.publish(
          { type: 'device.online', sn: device.sn, product_key: device.productKey, online: 1, at },
          { uid: device.uid },
        );
      } else if (c.online === 0) {
        this.deps.events.publish(
          {
            type: 'device.online',
            sn: device.sn,
            product_key: device.productKey,
            online: 0,
            at,
            reason: c.reason ?? '',
          },
          { uid: device.uid },
        );
      }
      c.resolve(differs.has(device.id));
    }
  }

  private async statement(batch: Change[], now: Date): Promise<Set<number>> {
    const ids: number[] = [];
    const online: number[] = [];
    const protocols: string[] = [];
    const events: string[] = [];
    const details: string[] = [];
    for (const c of batch) {
      ids.push(c.device.id);
      online.push(c.online);
      protocols.push(c.info?.protocol ?? '');
      events.push(c.online === 1 ? 'connect' : 'disconnect');
      details.push(JSON.stringify(c.online === 1 ? { ...c.info } : { reason: c.reason }));
    }
    const ts = now.toISOString();
    const res = await this.deps.db.execute(sql`
      with v as (
        select * from unnest(${sql.param(ids)}::int[], ${sql.param(online)}::int[],
          ${sql.param(protocols)}::text[], ${sql.param(events)}::text[], ${sql.param(details)}::text[])
          as v(id, online, protocol, event, detail)
      ),
      logs as (
        insert into device_logs (device_id, event, detail) select id, event, detail::jsonb from v
      ),
      changed as (
        update devices d set
          online = v.online,
          lastcommunicationat = case when v.online = 1 then ${ts}::timestamptz else d.lastcommunicationat end,
          activatedat = case when v.online = 1 then coalesce(d.activatedat, ${ts}::timestamptz) else d.activatedat end,
          protocol = case when v.online = 1 then v.protocol else d.protocol end
        from v
        where d.id = v.id and v.online >= 0
        returning d.id, v.online, d.expect_config_version, d.config_version_different
      )
      select id from changed where online = 1 and expect_config_version <> 0 and config_version_different`);
    return new Set((res as unknown as { rows: { id: number }[] }).rows.map((r) => r.id));
  }

  /** One device the way the presence service writes it, when a batch failed (e.g. a device deleted meanwhile). */
  private async single(c: Change): Promise<void> {
    try {
      if (c.online === 1) await markOnline(this.deps, c.device, c.info!);
      else await markOffline(this.deps, c.device, c.reason ?? '', { setOffline: c.online === 0 });
      // Unknown after a fallback: let the caller check the expected config itself.
      c.resolve(true);
    } catch (err) {
      c.reject(err);
    }
  }
}
