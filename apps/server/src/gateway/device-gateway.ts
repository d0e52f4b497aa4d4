import {
  cmdReplyUp,
  configGetUp,
  configMessage,
  type DownKind,
  downTopic,
  infoUp,
  isUpKind,
  MAX_PAYLOAD_BYTES,
  otaUp,
  type OtaUp,
  propertyUp,
  type PropertyValue,
  statusUp,
} from '@cellhub/contract/protocol';
import type { z } from 'zod';
import { AppError } from '../lib/app-error';
import type { Deps } from '../lib/deps';
import { handleCommandReply, markCommandTimeouts } from '../modules/commands/commands.service';
import { handleConfigReport, sendExpectedConfig } from '../modules/device-config/device-config.service';
import { writeDeviceLog } from '../modules/device-log/device-log.service';
import {
  addRejected,
  applyInfo,
  type ConnectInfo,
  touchDevices,
} from '../modules/devices/device-presence.service';
import type { DeviceRef } from '../modules/devices/device-ref';
import type { ReportOutcome } from '../modules/ota/ota-engine';
import { propertyRulesOf } from '../modules/products/products.service';
import {
  countValues,
  DEFAULT_WRITER_OPTIONS,
  type PropertyItem,
  PropertyWriter,
} from '../modules/telemetry/property-writer';
import { storeRaw } from '../modules/telemetry/telemetry.service';
import type { DeviceLink } from './device-link';
import { DeviceAuthCache } from './device-auth';
import { PresenceWriter } from './presence-writer';
import { fastPropertyUp } from './property-parse';

/** What the gateway needs from a broker: publish downlinks and drop connections. */
export interface BrokerAdapter {
  kind: 'embedded' | 'external';
  publish(topic: string, payload: Buffer, qos: 0 | 1): Promise<void>;
  /** Embedded: whether the device holds a connection to this broker. External: unknown (true). */
  reachable(sn: string): boolean;
  kick(sn: string, reason: string): void;
}

export interface GatewayOptions {
  /** Sustained uplink messages per second per device; more are dropped and counted. 0 = no limit. */
  ratePerSecond: number;
  /** Messages a device may send in a burst above the sustained rate. */
  rateBurst: number;
  maxPayloadBytes: number;
  /** lastcommunicationat is written at most this often per device. */
  touchIntervalMs: number;
  /** At most this many rejected-message rows per device per minute in its log (all are counted). */
  rejectLogPerMinute: number;
}

export const DEFAULT_GATEWAY_OPTIONS: GatewayOptions = {
  ratePerSecond: 1000,
  rateBurst: 2000,
  maxPayloadBytes: MAX_PAYLOAD_BYTES,
  touchIntervalMs: 30_000,
  rejectLogPerMinute: 20,
};

export interface UplinkMeta {
  /** The message is the device's will (published by the broker for it). */
  will?: boolean;
  /** External broker: online/offline come from status messages, not connection events. */
  presenceFromStatus?: boolean;
}

/**
 * Alert evaluation (modules/alerts): told of every committed property message and every presence change written.
 * Both calls must return at once (the evaluator queues and judges off this path).
 */
export interface AlertHook {
  properties(device: DeviceRef, items: readonly PropertyItem[]): void;
  presence(device: DeviceRef, online: 0 | 1): void;
}

/** Refused uplink: dropped, counted on the device row, written to its log; the device may get a reply code. */
export class Rejection extends Error {
  constructor(
    readonly reason: string,
    readonly replyCode = 10113,
    readonly details?: unknown,
  ) {
    super(reason);
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

const issues = (err: z.ZodError) =>
  err.issues.slice(0, 5).map((i) => ({ field: i.path.join('.'), message: i.message }));

function parseJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8')) as unknown;
  } catch {
    throw new Rejection('malformed JSON', 40003);
  }
}

function validate<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new Rejection(`${what} payload does not match the schema`, 10113, issues(r.error));
  return r.data;
}

const datatypeOf = (v: PropertyValue) => (typeof v === 'boolean' ? 'bool' : typeof v);

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
 * The device side of the server, whichever broker carries the messages: routes every uplink kind of PROTOCOL.md to
 * its service, answers on the right down topic, keeps presence, and drops (and counts) whatever breaks the rules.
 */
export class DeviceGateway implements DeviceLink {
  readonly auth: DeviceAuthCache;
  readonly writer: PropertyWriter;
  readonly presence: PresenceWriter;
  readonly options: GatewayOptions;
  /** Takes `P/up/ota` reports once the OTA engine runs (ota.plugin.ts); before that they go to the device log. */
  otaReports: ((device: DeviceRef, msg: OtaUp) => Promise<ReportOutcome>) | undefined;
  /** The alert hook: set by alerts.plugin.ts once the evaluator runs. */
  alertHook: AlertHook | undefined;
  /** Counters for health and benchmarks. */
  readonly stats = { accepted: 0, rejected: 0, propertyMessages: 0 };
  private adapter: BrokerAdapter | undefined;
  private chains = new Map<string, Promise<void>>();
  private buckets = new Map<number, Bucket>();
  private lastTouch = new Map<number, number>();
  private touched = new Set<number>();
  private rejectedCounts = new Map<number, number>();
  private rejectLogWindow = new Map<number, { start: number; n: number }>();
  private rules = new Map<string, RulesEntry>();
  private lastIso = { ms: NaN, iso: '' };
  /** Devices whose connect found a config they do not run, waiting for their subscription. */
  private configOnSubscribe = new Set<number>();
  private timer: NodeJS.Timeout;
  private commandTimer: NodeJS.Timeout;

  constructor(
    private readonly deps: Deps,
    options: Partial<GatewayOptions> = {},
  ) {
    this.options = { ...DEFAULT_GATEWAY_OPTIONS, ...options };
    this.auth = new DeviceAuthCache(deps);
    this.writer = new PropertyWriter(deps.db, {
      ...DEFAULT_WRITER_OPTIONS,
      // PostgreSQL commits one batch while the next is inserted; PGlite runs one statement at a time anyway.
      maxInFlight: deps.config.databaseUrl?.startsWith('postgres') ? 2 : 1,
    });
    this.presence = new PresenceWriter(deps);
    this.timer = setInterval(() => void this.flushCounters(), 1000);
    this.timer.unref();
    this.commandTimer = setInterval(() => {
      markCommandTimeouts(deps).catch((err: unknown) =>
        deps.log.warn({ err }, 'command timeout sweep failed'),
      );
    }, 5000);
    this.commandTimer.unref();
  }

  attach(adapter: BrokerAdapter): void {
    this.adapter = adapter;
  }

  // --- DeviceLink (used by services) ---------------------------------------------------------------------

  async send(productKey: string, sn: string, kind: DownKind, payload: unknown): Promise<void> {
    const adapter = this.adapter;
    if (!adapter || !adapter.reachable(sn)) throw new AppError(20401);
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload));
    await adapter.publish(downTopic(productKey, sn, kind), bytes, 1);
  }

  kick(sn: string, reason: string): void {
    this.adapter?.kick(sn, reason);
  }

  invalidate(sn: string): void {
    this.auth.invalidate(sn);
  }

  // --- presence -----------------------------------------------------------------------------------------

  /** Runs presence changes of one device in order, whatever the order their database writes would finish in. */
  private serial(sn: string, task: () => Promise<void>): Promise<void> {
    const prev = this.chains.get(sn) ?? Promise.resolve();
    const next = prev
      .then(task)
      .catch((err: unknown) => this.deps.log.warn({ err, sn }, 'device presence update failed'));
    this.chains.set(sn, next);
    void next.then(() => {
      if (this.chains.get(sn) === next) this.chains.delete(sn);
    });
    return next;
  }

  connected(device: DeviceRef, info: ConnectInfo): Promise<void> {
    this.lastTouch.set(device.id, Date.now());
    this.writer.markActive(device.id);
    return this.serial(device.sn, async () => {
      const configDiffers = await this.presence.online(device, info);
      this.alertHook?.presence(device, 1);
      // A device that missed a config change while offline gets it now, if it can receive it: a clean session has
      // no subscriptions yet, so it gets it once it subscribes (`subscribed`).
      if (!configDiffers) return;
      if (info.clean === true) this.configOnSubscribe.add(device.id);
      else await sendExpectedConfig(this.deps, device, false);
    });
  }

  /**
   * The device subscribed to its config topic (embedded broker): send the configuration it missed, if its connect
   * found one. Runs after the connect's presence write (same per-device chain), so the flag is known by then; a
   * config set after the connect went out by itself (putDeviceConfig sends to online devices).
   */
  subscribed(device: DeviceRef): Promise<void> {
    return this.serial(device.sn, async () => {
      if (!this.configOnSubscribe.delete(device.id)) return;
      await sendExpectedConfig(this.deps, device, false);
    });
  }

  disconnected(device: DeviceRef, reason: string, setOffline = true): Promise<void> {
    this.buckets.delete(device.id);
    this.lastTouch.delete(device.id);
    return this.serial(device.sn, () => {
      // A takeover's disconnect (setOffline false) may come after the new connection's connect.
      if (setOffline) this.configOnSubscribe.delete(device.id);
      return this.presence.offline(device, reason, setOffline).then(() => {
        if (setOffline) this.alertHook?.presence(device, 0);
      });
    });
  }

  // --- uplinks ------------------------------------------------------------------------------------------

  /** Rate and size limits; throws a Rejection when the message must be dropped. */
  admit(device: DeviceRef, size: number): void {
    if (size > this.options.maxPayloadBytes) {
      throw new Rejection(`payload of ${size} bytes exceeds ${this.options.maxPayloadBytes}`, 50001);
    }
    const rate = this.options.ratePerSecond;
    if (rate <= 0) return;
    const now = Date.now();
    const b = this.buckets.get(device.id) ?? { tokens: this.options.rateBurst, at: now };
    b.tokens = Math.min(this.options.rateBurst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    this.buckets.set(device.id, b);
    if (b.tokens < 1) throw new Rejection('message rate limit exceeded', 10104);
    b.tokens -= 1;
  }

  /**
   * Handles one uplink. Resolves once its effect is durable (for properties: the batch holding its rows has
   * committed), so an adapter that acknowledges on resolution acknowledges stored data. Never rejects: refusals
   * are counted, logged and answered here.
   */
  async uplink(device: DeviceRef, kind: string, payload: Buffer, meta: UplinkMeta = {}): Promise<void> {
    try {
      this.admit(device, payload.length);
      await this.route(device, kind, payload, meta);
      this.stats.accepted++;
      this.touch(device.id);
    } catch (err) {
      if (err instanceof Rejection) {
        this.reject(device, kind, err);
        return;
      }
      this.deps.log.error({ err, sn: device.sn, kind }, 'uplink handling failed');
      this.reject(device, kind, new Rejection('server error', 10101));
    }
  }

  /** Counts and logs a dropped message; answers property messages with the code. */
  reject(device: DeviceRef, kind: string, rejection: Rejection, replyId?: string): void {
    this.stats.rejected++;
    this.rejectedCounts.set(device.id, (this.rejectedCounts.get(device.id) ?? 0) + 1);
    const now = Date.now();
    const w = this.rejectLogWindow.get(device.id);
    const window = w && now - w.start < 60_000 ? w : { start: now, n: 0 };
    window.n++;
    this.rejectLogWindow.set(device.id, window);
    if (window.n <= this.options.rejectLogPerMinute) {
      writeDeviceLog(this.deps.db, {
        deviceId: device.id,
        event: 'rejected',
        detail: { kind, reason: rejection.reason, code: rejection.replyCode, details: rejection.details },
      }).catch((err: unknown) => this.deps.log.warn({ err }, 'device log write failed'));
    }
    const id = replyId ?? (rejection as Rejection & { messageId?: string }).messageId;
    if (kind === 'property' && id !== undefined) {
      this.reply(device, 'property_reply', { id, code: rejection.replyCode, message: rejection.reason });
    }
  }

  private reply(device: DeviceRef, kind: DownKind, payload: unknown): void {
    this.send(device.productKey, device.sn, kind, payload).catch(() => undefined);
  }

  private touch(deviceId: number): void {
    const now = Date.now();
    const last = this.lastTouch.get(deviceId) ?? 0;
    if (now - last < this.options.touchIntervalMs) return;
    this.lastTouch.set(deviceId, now);
    this.touched.add(deviceId);
  }

  private async route(device: DeviceRef, kind: string, payload: Buffer, meta: UplinkMeta): Promise<void> {
    if (!isUpKind(kind)) throw new Rejection(`unknown message kind "${kind}"`);
    if (kind === 'raw') {
      await storeRaw(this.deps.db, device.id, 'up', payload);
      return;
    }
    const json = parseJson(payload);
    switch (kind) {
      case 'property':
        return this.properties(device, json);
      case 'info': {
        await applyInfo(this.deps, device, validate(infoUp, json, 'info'));
        return;
      }
      case 'status': {
        const s = validate(statusUp, json, 'status');
        if (meta.presenceFromStatus) {
          // External broker: the status topic (and the will on it) is all the server learns of connections.
          if (s.online === 1) await this.connected(device, { ip: '', protocol: 'mqtt (external broker)' });
          else await this.disconnected(device, meta.will ? 'will' : 'status offline or will');
          return;
        }
        // Embedded broker: connection events already decide; an explicit {"online":0} still counts.
        if (s.online === 0) await this.disconnected(device, 'status offline');
        return;
      }
      case 'config':
        return handleConfigReport(this.deps, device, validate(configMessage, json, 'config'));
      case 'config_get':
        validate(configGetUp, json, 'config_get');
        return sendExpectedConfig(this.deps, device, true);
      case 'cmd_reply': {
        const reply = validate(cmdReplyUp, json, 'cmd_reply');
        if (!(await handleCommandReply(this.deps, device, reply))) {
          throw new Rejection(`no command with id "${reply.id}"`, 10107);
        }
        return;
      }
      case 'ota': {
        const ota = validate(otaUp, json, 'ota');
        if (this.otaReports) {
          // Resolves once the report's batch committed, so its PUBACK means "recorded".
          const outcome = await this.otaReports(device, ota);
          if (!outcome.ok) throw new Rejection(outcome.reason, outcome.code);
          return;
        }
        await writeDeviceLog(this.deps.db, { deviceId: device.id, event: 'ota', detail: { ...ota } });
        return;
      }
    }
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

  private async properties(device: DeviceRef, json: unknown): Promise<void> {
    const id =
      json && typeof json === 'object' && typeof (json as { id?: unknown }).id === 'string'
        ? (json as { id: string }).id
        : undefined;
    try {
      const msg = fastPropertyUp(json) ?? validate(propertyUp, json, 'property');
      const items: PropertyItem[] =
        'items' in msg ? msg.items : [{ ts: msg.ts ?? this.deps.now().getTime(), params: msg.params }];
      const pending = this.propertyRules(device.productKey);
      const rules = pending instanceof Map ? pending : await pending;
      if (rules.size > 0) checkRules(rules, items);
      checkText(items);
      if (countValues(items) === 0) throw new Rejection('no property values', 10113);
      let committed = this.writer.tryAdd(device.id, items);
      while (!committed) {
        await this.writer.room();
        committed = this.writer.tryAdd(device.id, items);
      }
      await committed;
      this.stats.propertyMessages++;
      this.alertHook?.properties(device, items);
      if (id !== undefined) this.reply(device, 'property_reply', { id, code: 0 });
      const newest = items.length === 1 ? items[0]! : items.reduce((a, b) => (b.ts >= a.ts ? b : a));
      this.deps.events.publish(
        {
          type: 'device.properties',
          sn: device.sn,
          product_key: device.productKey,
          ts: this.isoOf(newest.ts),
          values: newest.params,
        },
        { uid: device.uid },
      );
    } catch (err) {
      if (err instanceof Rejection && id !== undefined) Object.assign(err, { messageId: id });
      throw err;
    }
  }

  /** Messages of one moment share their timestamp; one Date and string for all of them. */
  private isoOf(ms: number): string {
    if (ms !== this.lastIso.ms) this.lastIso = { ms, iso: new Date(ms).toISOString() };
    return this.lastIso.iso;
  }

  private async flushCounters(): Promise<void> {
    const touched = [...this.touched];
    this.touched.clear();
    const rejected = new Map(this.rejectedCounts);
    this.rejectedCounts.clear();
    try {
      await touchDevices(this.deps, touched, this.deps.now());
      await addRejected(this.deps, rejected);
    } catch (err) {
      this.deps.log.warn({ err }, 'device counters flush failed');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.commandTimer);
    await this.writer.close();
    await Promise.all([...this.chains.values()]);
    await this.presence.drain();
    await this.flushCounters();
  }
}
