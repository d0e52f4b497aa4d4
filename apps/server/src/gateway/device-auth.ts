import { createHmac, timingSafeEqual } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { BatchQueue } from '../jobs/batch-queue';
import type { Deps } from '../lib/deps';
import type { DeviceRef } from '../modules/devices/device-ref';
import { deviceSecretContext } from '../modules/devices/devices.service';
import { devices } from '../modules/devices/devices.table';

/** PROTOCOL.md: an `hmac:` password is valid within 15 minutes of the server clock. */
export const HMAC_WINDOW_MS = 15 * 60_000;

export interface DeviceAuthData extends DeviceRef {
  secret: string;
  disabled: boolean;
}

/** MQTT CONNACK return codes (3.1.1). */
export const CONNACK = { identifierRejected: 2, badCredentials: 4, notAuthorized: 5 } as const;

export type AuthResult =
  | { ok: true; device: DeviceAuthData }
  | { ok: false; returnCode: (typeof CONNACK)[keyof typeof CONNACK]; reason: string };

const equal = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/** Checks a CONNECT password against the device secret: the secret itself, or `hmac:<unix-ms>:<hex>`. */
export function passwordMatches(secret: string, sn: string, password: Buffer, nowMs: number): boolean {
  const text = password.toString('utf8');
  const m = /^hmac:(\d{10,16}):([0-9a-fA-F]{64})$/.exec(text);
  if (m) {
    const ms = Number(m[1]);
    if (Math.abs(nowMs - ms) > HMAC_WINDOW_MS) return false;
    const expected = createHmac('sha256', secret).update(`${sn}:${m[1]}`).digest();
    return equal(expected, Buffer.from(m[2]!, 'hex'));
  }
  return equal(Buffer.from(secret, 'utf8'), password);
}

/** How long a device look-up waits for company (see `load`). */
export const LOAD_WINDOW_MS = 3;

interface Entry {
  data: DeviceAuthData | undefined;
  at: number;
}

/** How long after its `ttlMs` a device's entry may still answer a connect while it is reloaded (see `get`). */
export const AUTH_STALE_MS = 24 * 3600_000;

/**
 * Decrypted device auth data, so 10,000 devices reconnecting at once do not each cost a query and a decryption.
 * A Map keeps insertion order, which makes it an LRU when hits re-insert. Entries expire so that changes made by
 * another instance take effect within `ttlMs`; changes on this instance invalidate at once. Unknown serial numbers
 * are cached briefly too, so a flood of bogus connects does not turn into a flood of queries.
 *
 * An expired entry of a known device is still used for up to `staleMs`, and reloaded behind it: a DTU connected
 * for hours that comes back from a coverage gap gets its CONNACK without waiting for a query, which on a busy
 * database queues behind the writes of everything being stored (the CONNACK came 1.5-3 s late, issue 12). When
 * the reload finds the device deleted, disabled or with another secret (changed on another instance), the
 * connection it let in is closed.
 */
export class DeviceAuthCache {
  private entries = new Map<string, Entry>();
  private loading = new Map<string, Promise<DeviceAuthData | undefined>>();
  /** Loads of serial numbers; an Error is a secret that could not be decrypted (it fails its own connect). */
  private readonly loads: BatchQueue<string, DeviceAuthData | Error | undefined>;
  /** Queries run, for tests and benchmarks: a connect storm should cost few. */
  readonly stats = { queries: 0, loaded: 0, revalidations: 0 };

  constructor(
    private readonly deps: Deps,
    private readonly capacity = 20_000,
    private readonly ttlMs = 5 * 60_000,
    private readonly negativeTtlMs = 5_000,
    private readonly staleMs = AUTH_STALE_MS,
  ) {
    this.loads = new BatchQueue<string, DeviceAuthData | Error | undefined>({
      name: 'device auth',
      run: (sns) => this.loadBatch(sns),
      maxBatch: 1000,
      maxDelayMs: LOAD_WINDOW_MS,
      maxQueued: 100_000,
    });
  }

  /**
   * The cached entry without a promise, for the per-message path: `undefined` when not cached (call `get`),
   * `{ data: undefined }` for a cached unknown sn.
   */
  peek(sn: string): { data: DeviceAuthData | undefined } | undefined {
    const hit = this.entries.get(sn);
    if (!hit || Date.now() - hit.at >= (hit.data ? this.ttlMs : this.negativeTtlMs)) return undefined;
    return hit;
  }

  async get(sn: string): Promise<DeviceAuthData | undefined> {
    const now = Date.now();
    const hit = this.entries.get(sn);
    if (hit) {
      const age = now - hit.at;
      const fresh = age < (hit.data ? this.ttlMs : this.negativeTtlMs);
      if (fresh || (hit.data && age < this.staleMs)) {
        this.entries.delete(sn);
        this.entries.set(sn, hit);
        if (!fresh) this.revalidate(sn, hit.data!);
        return hit.data;
      }
    }
    const data = await this.loadOnce(sn);
    this.store(sn, data, now);
    return data;
  }

  /** One load per serial number at a time: callers asking meanwhile share it. */
  private loadOnce(sn: string): Promise<DeviceAuthData | undefined> {
    let pending = this.loading.get(sn);
    if (!pending) {
      pending = this.load(sn).finally(() => this.loading.delete(sn));
      this.loading.set(sn, pending);
    }
    return pending;
  }

  private store(sn: string, data: DeviceAuthData | undefined, at: number): void {
    this.entries.delete(sn);
    this.entries.set(sn, { data, at });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /**
   * Reloads an expired entry that was just used. Whatever it let in is closed if the device is gone, disabled or
   * has another secret now; a failed reload keeps the entry (the next use tries again).
   */
  private revalidate(sn: string, used: DeviceAuthData): void {
    if (this.loading.has(sn)) return;
    const at = Date.now();
    this.stats.revalidations++;
    this.loadOnce(sn).then(
      (data) => {
        // Invalidated meanwhile (a change on this instance): that change decides, not this older read.
        if (this.entries.get(sn)?.data !== used) return;
        this.store(sn, data, at);
        // Only what the used entry let in can have to be closed.
        const reason = used.disabled
          ? undefined
          : !data
            ? 'deleted'
            : data.disabled
              ? 'disabled'
              : data.secret !== used.secret
                ? 'secret changed'
                : undefined;
        if (reason) this.deps.link.kick(sn, reason);
      },
      () => undefined,
    );
  }

  invalidate(sn: string): void {
    this.entries.delete(sn);
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Loads share one query (`sn in (...)`): when thousands of devices connect at once, the first CONNECT of each
   * would otherwise be a query of its own. One load runs at a time and the serial numbers asked for meanwhile
   * form the next one, so the busier the database, the larger and fewer the queries (separate 3 ms windows each
   * with its own query queued up behind the others on PGlite's one connection until CONNACKs timed out).
   */
  private async load(sn: string): Promise<DeviceAuthData | undefined> {
    const data = await this.loads.add(sn);
    if (data instanceof Error) throw data;
    return data;
  }

  private async loadBatch(sns: readonly string[]): Promise<(DeviceAuthData | Error | undefined)[]> {
    this.stats.queries++;
    const rows = await this.deps.db
      .select({
        id: devices.id,
        sn: devices.sn,
        productKey: devices.productKey,
        uid: devices.uid,
        secret: devices.secret,
        disabled: devices.disabled,
      })
      .from(devices)
      .where(inArray(devices.sn, [...sns]));
    const bySn = new Map(rows.map((r) => [r.sn, r]));
    return sns.map((sn) => {
      const row = bySn.get(sn);
      if (!row) return undefined;
      this.stats.loaded++;
      try {
        return { ...row, secret: this.deps.box.decrypt(row.secret, deviceSecretContext(sn)) };
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      }
    });
  }

  async authenticate(
    clientId: string,
    username: string | undefined,
    password: Buffer | undefined,
  ): Promise<AuthResult> {
    if (!username || clientId !== username) {
      return {
        ok: false,
        returnCode: CONNACK.identifierRejected,
        reason: 'clientId must equal username (sn)',
      };
    }
    const device = await this.get(username);
    if (!device) return { ok: false, returnCode: CONNACK.badCredentials, reason: 'unknown sn' };
    if (!password || !passwordMatches(device.secret, device.sn, password, this.deps.now().getTime())) {
      return { ok: false, returnCode: CONNACK.badCredentials, reason: 'wrong password' };
    }
    if (device.disabled) return { ok: false, returnCode: CONNACK.notAuthorized, reason: 'device disabled' };
    return { ok: true, device };
  }
}
