import { eq, and, sql } from 'drizzle-orm';
import { SCRIPT_FAILURES_TO_DISABLE, type ScriptErrorEntry } from '@cellhub/contract/scripts';
import type { Deps } from '../../lib/deps';
import type { DeviceRef } from '../devices/device-ref';
import { addInboxMessages, type InboxMessage } from '../inbox/inbox.service';
import { products } from '../products/products.table';
import { type SandboxLimits, ScriptCallError, ScriptError, ScriptSandbox } from './sandbox';
import { type Decoded, runDecode, runEncode } from './script-io';
import { scriptBindings, scripts } from './scripts.table';

/**
 * The ingest side of scripts, one per running server (the gateway's telemetry ingest holds it): finds the script bound
 * to a device's product (cached for `cacheMs`), keeps one sandbox per script version, runs `decode` and counts.
 * Counters go to the database in batches (`flushMs`); a script that fails `failuresToDisable` times in a row is
 * disabled at once and its owner (and the product's owner) told through the message box. It never throws: a failing
 * or slow script is an answer of `null` plus a counted error.
 */

export interface ScriptRunnerOptions {
  failuresToDisable: number;
  /** How long the product -> script lookup is trusted (changes made elsewhere take this long to apply). */
  cacheMs: number;
  flushMs: number;
  limits: Partial<SandboxLimits>;
}

export const DEFAULT_SCRIPT_RUNNER_OPTIONS: ScriptRunnerOptions = {
  failuresToDisable: SCRIPT_FAILURES_TO_DISABLE,
  cacheMs: 5000,
  flushMs: 1000,
  limits: {},
};

interface Active {
  id: number;
  version: number;
  source: string;
  enabled: boolean;
  /** Whether decoded frames are kept as raw messages too. */
  keepRaw: boolean;
  /** Failures in a row as stored when loaded. */
  consecutive: number;
}

interface Lookup {
  at: number;
  pending: Promise<Active | null>;
  value?: Active | null;
}

interface Counter {
  calls: number;
  errors: number;
  ms: number;
  sawSuccess: boolean;
  /** Failures after the last success of this batch. */
  trailing: number;
  recent: ScriptErrorEntry[];
}

const RECENT_MAX = 10;

export type DecodeResult =
  | { ok: true; decoded: Decoded; scriptId: number; keepRaw: boolean }
  | { ok: false; scriptId: number; error: ScriptError };

export class ScriptRunner {
  readonly options: ScriptRunnerOptions;
  private readonly lookups = new Map<string, Lookup>();
  private readonly boxes = new Map<
    number,
    { version: number; box: Promise<ScriptSandbox>; ready?: ScriptSandbox }
  >();
  private readonly counters = new Map<number, Counter>();
  /**
   * Failures in a row per script as this instance knows them: from the stored count when first seen, then counted
   * here (the stored one lags by a flush). Forgotten when the script is disabled, so enabling it starts over.
   */
  private readonly runs = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;
  /** Disables in flight (tests wait on them). */
  private readonly disabling = new Set<Promise<void>>();

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'log' | 'now'>,
    options: Partial<ScriptRunnerOptions> = {},
  ) {
    this.options = { ...DEFAULT_SCRIPT_RUNNER_OPTIONS, ...options };
    this.timer = setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref();
  }

  /** The product's bound script (enabled or not), or null; cached. */
  private active(productKey: string): Active | null | Promise<Active | null> {
    const hit = this.lookups.get(productKey);
    if (hit && Date.now() - hit.at < this.options.cacheMs)
      return hit.value !== undefined ? hit.value : hit.pending;
    const entry: Lookup = {
      at: Date.now(),
      pending: this.deps.db
        .select({
          id: scripts.id,
          version: scripts.version,
          source: scripts.source,
          enabled: scripts.enabled,
          keepRaw: scripts.keepRaw,
          consecutive: scripts.consecutiveErrors,
        })
        .from(scriptBindings)
        .innerJoin(products, eq(products.id, scriptBindings.productId))
        .innerJoin(scripts, eq(scripts.id, scriptBindings.scriptId))
        .where(eq(products.productKey, productKey))
        .then(([row]) => {
          const value = row ?? null;
          entry.value = value;
          return value;
        }),
    };
    this.lookups.set(productKey, entry);
    entry.pending.catch(() => this.lookups.delete(productKey));
    return entry.pending;
  }

  /** Forgets what it knows of a product's script (this instance changed it). */
  forget(productKey?: string): void {
    if (productKey) this.lookups.delete(productKey);
    else this.lookups.clear();
  }

  /** The script version's sandbox: synchronous once built (the hot path of ingest awaits nothing then). */
  private sandbox(script: Active): ScriptSandbox | Promise<ScriptSandbox> {
    const hit = this.boxes.get(script.id);
    if (hit && hit.version === script.version) return hit.ready ?? hit.box;
    if (hit) void hit.box.then((b) => b.dispose()).catch(() => undefined);
    const entry: { version: number; box: Promise<ScriptSandbox>; ready?: ScriptSandbox } = {
      version: script.version,
      box: ScriptSandbox.create(script.source, this.options.limits).then((b) => {
        entry.ready = b;
        return b;
      }),
    };
    this.boxes.set(script.id, entry);
    entry.box.catch(() => undefined);
    return entry.box;
  }

  /** Whether the device's product has an enabled script (resolves from the cache when it can). */
  async hasScript(productKey: string): Promise<boolean> {
    const a = await this.active(productKey);
    return a !== null && a.enabled;
  }

  /**
   * Decodes a raw uplink through the product's enabled script. Null when there is none; otherwise the outcome, the
   * failure counted already.
   */
  decode(device: DeviceRef, payload: Buffer): DecodeResult | null | Promise<DecodeResult | null> {
    let found: Active | null | Promise<Active | null>;
    try {
      found = this.active(device.productKey);
    } catch (err) {
      this.deps.log.warn({ err }, 'script lookup failed');
      return null;
    }
    // Once the lookup and the sandbox are cached the call is synchronous: no promise per message.
    if (found instanceof Promise) {
      return found.then(
        (script) => this.decodeWith(script, device, payload),
        (err: unknown) => {
          this.deps.log.warn({ err }, 'script lookup failed');
          return null;
        },
      );
    }
    return this.decodeWith(found, device, payload);
  }

  private decodeWith(
    script: Active | null,
    device: DeviceRef,
    payload: Buffer,
  ): DecodeResult | null | Promise<DecodeResult | null> {
    if (!script || !script.enabled) return null;
    const box = this.sandbox(script);
    if (box instanceof Promise) {
      return box.then(
        (b) => this.run(script, b, device, payload),
        (err: unknown) => {
          const e = err instanceof ScriptError ? err : new ScriptError('runtime', String(err));
          this.failed(script, device, e, 0);
          return { ok: false as const, scriptId: script.id, error: e };
        },
      );
    }
    return this.run(script, box, device, payload);
  }

  private run(script: Active, box: ScriptSandbox, device: DeviceRef, payload: Buffer): DecodeResult {
    try {
      const decoded = runDecode(box, payload, {
        sn: device.sn,
        productKey: device.productKey,
        ts: Date.now(),
      });
      this.succeeded(script, decoded.ms);
      return { ok: true, decoded, scriptId: script.id, keepRaw: script.keepRaw };
    } catch (err) {
      const e = err instanceof ScriptError ? err : new ScriptError('runtime', String(err));
      this.failed(script, device, e, err instanceof ScriptCallError ? err.ms : 0);
      return { ok: false, scriptId: script.id, error: e };
    }
  }

  /** Counts a failure found after `decode` returned (the product's property rules refused its output). */
  refused(productKey: string, device: DeviceRef, scriptId: number, message: string): void {
    const hit = this.lookups.get(productKey)?.value;
    if (!hit || hit.id !== scriptId) return;
    const c = this.counter(scriptId);
    // The call was counted a success; it was not.
    c.errors++;
    this.failed(hit, device, new ScriptError('output', message), 0, false);
  }

  private counter(id: number): Counter {
    let c = this.counters.get(id);
    if (!c) {
      c = { calls: 0, errors: 0, ms: 0, sawSuccess: false, trailing: 0, recent: [] };
      this.counters.set(id, c);
    }
    return c;
  }

  private succeeded(script: Active, ms: number): void {
    const c = this.counter(script.id);
    c.calls++;
    c.ms += ms;
    c.sawSuccess = true;
    c.trailing = 0;
    this.runs.set(script.id, 0);
  }

  private failed(script: Active, device: DeviceRef, err: ScriptError, ms: number, count = true): void {
    const c = this.counter(script.id);
    if (count) {
      c.calls++;
      c.errors++;
      c.ms += ms;
    }
    c.trailing++;
    c.recent.unshift({
      at: this.deps.now().toISOString(),
      message: err.message.slice(0, 500),
      line: err.line,
      sn: device.sn,
    });
    if (c.recent.length > RECENT_MAX) c.recent.length = RECENT_MAX;
    const run = (this.runs.get(script.id) ?? script.consecutive) + 1;
    this.runs.set(script.id, run);
    if (script.enabled && run >= this.options.failuresToDisable) {
      script.enabled = false;
      this.runs.delete(script.id);
      // Until the row says so, lookups of this instance skip the script.
      for (const l of this.lookups.values()) if (l.value?.id === script.id) l.value.enabled = false;
      const p = this.disable(script.id, run, err).finally(() => this.disabling.delete(p));
      this.disabling.add(p);
    }
  }

  /** Disables the script (once, whichever instance gets there first) and tells its owners. */
  private async disable(id: number, failures: number, err: ScriptError): Promise<void> {
    try {
      await this.flush();
      const [row] = await this.deps.db
        .update(scripts)
        .set({ enabled: false, disabledReason: 'failures' })
        .where(and(eq(scripts.id, id), eq(scripts.enabled, true)))
        .returning({
          uid: scripts.uid,
          name: scripts.name,
          productId: scripts.productId,
          version: scripts.version,
        });
      if (!row) return;
      const owners = new Set<number>();
      if (row.uid !== null) owners.add(row.uid);
      if (row.productId !== null) {
        const [p] = await this.deps.db
          .select({ uid: products.uid })
          .from(products)
          .where(eq(products.id, row.productId));
        if (p?.uid != null) owners.add(p.uid);
      }
      const at = this.deps.now().toISOString();
      const messages: InboxMessage[] = [...owners].map((uid) => ({
        uid,
        kind: 'script_disabled',
        params: {
          script_id: id,
          script_name: row.name,
          version: row.version,
          failures,
          error: err.message.slice(0, 200),
          line: err.line ?? 0,
        },
        target: { type: 'script', key: String(id) },
        dedupeKey: `script_disabled:${id}:${at}`,
      }));
      await addInboxMessages(this.deps.db, messages);
    } catch (e) {
      this.deps.log.warn({ err: e }, 'disabling a failing script failed');
    }
  }

  /** Adds the counted calls to the scripts' rows. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    if (this.counters.size === 0) return Promise.resolve();
    const batch = [...this.counters.entries()];
    this.counters.clear();
    this.flushing = (async () => {
      for (const [id, c] of batch) {
        const recent = JSON.stringify(c.recent);
        await this.deps.db
          .update(scripts)
          .set({
            calls: sql`${scripts.calls} + ${c.calls}`,
            errors: sql`${scripts.errors} + ${c.errors}`,
            totalMs: sql`${scripts.totalMs} + ${c.ms}`,
            consecutiveErrors: c.sawSuccess ? c.trailing : sql`${scripts.consecutiveErrors} + ${c.trailing}`,
            recentErrors:
              c.recent.length === 0
                ? sql`${scripts.recentErrors}`
                : sql`(select coalesce(jsonb_agg(e), '[]'::jsonb) from (select e from jsonb_array_elements(${recent}::jsonb || ${scripts.recentErrors}) as e limit ${RECENT_MAX}) as r)`,
          })
          .where(eq(scripts.id, id));
      }
    })()
      .catch((err: unknown) => this.deps.log.warn({ err }, 'script counters write failed'))
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  /** Encodes a command for the product's enabled script with `encode`: the bytes, or null when there is none. */
  async encode(
    productKey: string,
    sn: string,
    command: { id: string; type: string; data: string },
  ): Promise<Buffer | null> {
    const found = this.active(productKey);
    const script = found instanceof Promise ? await found : found;
    if (!script || !script.enabled || !/\bencode\b/.test(script.source)) return null;
    const box = await this.sandbox(script);
    return runEncode(box, command, { sn, productKey, ts: Date.now() }).bytes;
  }

  /** Writes the counters and frees the sandboxes. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.disabling]);
    await this.flush();
    for (const { box } of this.boxes.values()) void box.then((b) => b.dispose()).catch(() => undefined);
    this.boxes.clear();
  }

  /** Waits for disables in flight (tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.disabling]);
    await this.flush();
  }
}
