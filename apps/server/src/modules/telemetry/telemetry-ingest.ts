import { propertyUp, type PropertyUp, type PropertyValue } from '@cellhub/contract/protocol';
import type { z } from 'zod';
import type { Deps } from '../../lib/deps';
import { Rejection } from '../../lib/rejection';
import type { PropertyItem } from '../../realtime/domain-events';
import type { DeviceRef } from '../devices/device-ref';
import { templateRulesOf } from '../data-templates/template-rules';
import { propertyRulesOf } from '../products/products.service';
import { ScriptRunner } from '../scripts/script-runner';
import type { DecodeOutput } from '../scripts/script-io';
import { recordDeviceEvent } from '../thing-model/device-events.service';
import { fastPropertyUp } from './property-parse';
import { countValues, DEFAULT_WRITER_OPTIONS, PropertyWriter } from './property-writer';
import { RawWriter } from './raw-writer';

const datatypeOf = (v: PropertyValue) => (typeof v === 'boolean' ? 'bool' : typeof v);

const issues = (err: z.ZodError) =>
  err.issues.slice(0, 5).map((i) => ({ field: i.path.join('.'), message: i.message }));

interface RulesEntry {
  at: number;
  rules: Promise<Map<string, string>>;
  value?: Map<string, string>;
}

/** PostgreSQL text cannot hold NUL: one such value would fail the whole batch, every device's rows with it. */
function checkText(items: readonly PropertyItem[]): void {
  for (const item of items) {
    for (const key in item.params) {
      const v = item.params[key];
      if (typeof v === 'string' && v.includes('\u0000')) {
        throw new Rejection(`property "${key}" contains a NUL character`, 10113, [
          { field: key, message: 'NUL character' },
        ]);
      }
    }
  }
}

/** Refuses keys the product does not define and values of the wrong datatype. */
function checkRules(rules: Map<string, string>, items: readonly PropertyItem[]): void {
  for (const item of items) {
    for (const key in item.params) {
      const datatype = rules.get(key);
      if (!datatype)
        throw new Rejection(`unknown property "${key}"`, 70003, [{ field: key, message: 'unknown' }]);
      if (datatype !== datatypeOf(item.params[key]!)) {
        throw new Rejection(`property "${key}" must be ${datatype}`, 70003, [
          { field: key, message: `expected ${datatype}` },
        ]);
      }
    }
  }
}

/**
 * The one path of device telemetry: validate a message against the protocol and its product's properties, write it
 * with the batched property writer, then emit `property.committed` on the bus (alerts, the browser stream and
 * whoever comes next listen there). It knows nothing of brokers: the gateway hands messages in and acknowledges
 * the device once `ingest` resolved, i.e. once the rows are committed.
 */
export class TelemetryIngest {
  readonly writer: PropertyWriter;
  /** Decoding scripts of products (modules/scripts): raw uplinks of their devices become properties too. */
  readonly scripts: ScriptRunner;
  /** Raw uplinks, written in group commits. */
  readonly raws: RawWriter;
  private readonly rules = new Map<string, RulesEntry>();
  /** Each device's data-template rules, read only when a key is not the product's; cached for 10 s. */
  private readonly templateRules = new Map<number, RulesEntry>();
  /** Takers of raw uplinks that answer a request of theirs (the Modbus poller); see `consumeRaw`. */
  private readonly rawConsumers: ((device: DeviceRef, payload: Uint8Array) => boolean)[] = [];

  constructor(private readonly deps: Pick<Deps, 'db' | 'config' | 'events' | 'now' | 'log'>) {
    this.writer = new PropertyWriter(deps.db, {
      ...DEFAULT_WRITER_OPTIONS,
      // PostgreSQL commits one batch while the next is inserted; PGlite runs one statement at a time anyway.
      maxInFlight: deps.config.databaseUrl?.startsWith('postgres') ? 2 : 1,
      now: () => deps.now().getTime(),
    });
    this.raws = new RawWriter(deps.db);
    this.scripts = new ScriptRunner(deps, {
      failuresToDisable: deps.config.scripts.failuresToDisable,
      cacheMs: deps.config.scripts.cacheMs,
      limits: { timeMs: deps.config.scripts.timeLimitMs },
    });
  }

  /**
   * A `P/up/property` message (parsed JSON). Resolves once stored and published; throws a Rejection (nothing
   * stored) when the message breaks the protocol or the product's property rules.
   */
  async ingest(device: DeviceRef, message: unknown): Promise<void> {
    const items = this.parse(message);
    await this.store(device, items);
  }

  private async store(device: DeviceRef, items: PropertyItem[]): Promise<void> {
    await this.checkDeviceRules(device, items);
    checkText(items);
    if (countValues(items) === 0) throw new Rejection('no property values', 10113);
    let committed = this.writer.tryAdd(device.id, items);
    while (!committed) {
      await this.writer.room();
      committed = this.writer.tryAdd(device.id, items);
    }
    await committed;
    // Acknowledged only once what listeners queue for it (forwarding) is durable too.
    await this.deps.events.emitDurable({ type: 'property.committed', device, items });
  }

  /**
   * Registers a taker of raw uplinks: it is asked first for every `P/up/raw` message and returns true when the bytes
   * answer a request of its own (a Modbus answer to the platform's poller). Such bytes become the taker's values and
   * counters, not raw messages: no raw row, no script decode, no `raw.received` event. Returns the unregistration.
   */
  consumeRaw(taker: (device: DeviceRef, payload: Uint8Array) => boolean): () => void {
    this.rawConsumers.push(taker);
    return () => {
      const i = this.rawConsumers.indexOf(taker);
      if (i >= 0) this.rawConsumers.splice(i, 1);
    };
  }

  /**
   * A `P/up/raw` message not taken by a `consumeRaw` taker. Without an enabled script of the product it is stored as it
   * came (hex in the raw message list). With one, `decode` turns the bytes into properties, stored like a property
   * message, and events, stored like `P/up/event` messages (checked against the thing model); the frame itself is
   * kept only when the script says `keep_raw`. A script that fails, is slow or returns what the product's rules
   * refuse never stops this: the raw message is kept and the script's error counted.
   *
   * A kept raw row of a message whose values are stored goes into the same statement as those values (the property
   * writer's batch), so both commit together in one round trip; a raw message without stored values goes through
   * the raw writer's group commits.
   */
  async raw(device: DeviceRef, payload: Buffer): Promise<void> {
    for (const taker of this.rawConsumers) if (taker(device, payload)) return;
    // What listeners queue for the frame (forwarding) is durable before the device is acknowledged.
    const durable = this.deps.events.emitDurable({ type: 'raw.received', device, payload });
    try {
      await this.storeRaw(device, payload);
    } finally {
      await durable;
    }
  }

  private async storeRaw(device: DeviceRef, payload: Buffer): Promise<void> {
    const found = this.scripts.decode(device, payload);
    const result = found instanceof Promise ? await found : found;
    const properties = result?.ok ? result.decoded.properties : undefined;
    let items: PropertyItem[] | undefined;
    if (result?.ok && properties) {
      for (const _ in properties) {
        items = [{ ts: this.deps.now().getTime(), params: properties }];
        break;
      }
    }
    if (!items) return this.raws.add(device.id, payload);
    try {
      await this.checkDeviceRules(device, items);
      checkText(items);
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      this.scripts.refused(device.productKey, device, result!.scriptId, err.reason);
      return this.raws.add(device.id, payload);
    }
    const kept = result!.ok && result!.keepRaw ? payload : undefined;
    let committed = this.writer.tryAdd(device.id, items, kept);
    while (!committed) {
      await this.writer.room();
      committed = this.writer.tryAdd(device.id, items, kept);
    }
    await committed;
    // Acknowledged only once what listeners queue for it (forwarding) is durable too.
    await this.deps.events.emitDurable({ type: 'property.committed', device, items });
    if (result!.ok) await this.scriptEvents(device, result!.scriptId, result!.decoded.events);
  }

  /** Stores the events a script's `decode` returned; one the thing model refuses counts as the script's error. */
  private async scriptEvents(device: DeviceRef, scriptId: number, events: DecodeOutput['events']) {
    for (const e of events) {
      try {
        await recordDeviceEvent(this.deps, device, { event: e.identifier, params: e.params });
      } catch (err) {
        if (!(err instanceof Rejection)) throw err;
        this.scripts.refused(device.productKey, device, scriptId, err.reason);
      }
    }
  }

  /** Writes what is queued. */
  async close(): Promise<void> {
    await this.scripts.close();
    await this.raws.close();
    await this.writer.close();
  }

  private parse(message: unknown): PropertyItem[] {
    let msg: PropertyUp | undefined = fastPropertyUp(message);
    if (!msg) {
      const r = propertyUp.safeParse(message);
      if (!r.success)
        throw new Rejection('property payload does not match the schema', 10113, issues(r.error));
      msg = r.data;
    }
    if ('items' in msg) return msg.items.map((item) => ({ ...item, deviceTs: true }));
    return msg.ts === undefined
      ? [{ ts: this.deps.now().getTime(), params: msg.params }]
      : [{ ts: msg.ts, params: msg.params, deviceTs: true }];
  }

  /**
   * The product's rules, and for a key the product does not define, the device's data template (its variables are
   * the device's properties too: a DTU polling its own slaves reports them by tag). Throws the Rejection.
   */
  private async checkDeviceRules(device: DeviceRef, items: readonly PropertyItem[]): Promise<void> {
    const pending = this.propertyRules(device.productKey);
    const rules = pending instanceof Map ? pending : await pending;
    if (rules.size === 0) return;
    try {
      checkRules(rules, items);
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      const extra = await this.deviceTemplateRules(device.id);
      if (extra.size === 0) throw err;
      checkRules(new Map([...extra, ...rules]), items);
    }
  }

  private deviceTemplateRules(deviceId: number): Map<string, string> | Promise<Map<string, string>> {
    const hit = this.templateRules.get(deviceId);
    if (hit && Date.now() - hit.at < 10_000) return hit.value ?? hit.rules;
    if (this.templateRules.size > 100_000) this.templateRules.clear();
    const entry: RulesEntry = {
      at: Date.now(),
      rules: templateRulesOf(this.deps.db, deviceId).then((value) => {
        entry.value = value;
        return value;
      }),
    };
    this.templateRules.set(deviceId, entry);
    entry.rules.catch(() => this.templateRules.delete(deviceId));
    return entry.rules;
  }

  /** Property datatypes of a product (empty: any key goes), cached for 30 s; synchronous once loaded. */
  private propertyRules(productKey: string): Map<string, string> | Promise<Map<string, string>> {
    const hit = this.rules.get(productKey);
    if (hit && Date.now() - hit.at < 30_000) return hit.value ?? hit.rules;
    const entry: RulesEntry = {
      at: Date.now(),
      rules: (propertyRulesOf(this.deps.db, productKey) as Promise<Map<string, string>>).then((value) => {
        entry.value = value;
        return value;
      }),
    };
    this.rules.set(productKey, entry);
    entry.rules.catch(() => this.rules.delete(productKey));
    return entry.rules;
  }
}
