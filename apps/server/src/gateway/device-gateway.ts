import {
  cmdReplyUp,
  configGetUp,
  configMessage,
  DOWN_KINDS,
  type DownKind,
  downTopic,
  infoUp,
  isSubUpKind,
  isUpKind,
  MAX_PAYLOAD_BYTES,
  otaUp,
  statusUp,
} from '@cellhub/contract/protocol';
import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import { AppError } from '../lib/app-error';
import { isDatabaseUnavailable } from '../lib/db-unavailable';
import type { Deps } from '../lib/deps';
import { handleCommandReply, markCommandTimeouts } from '../modules/commands/commands.service';
import { handleConfigReport, sendExpectedConfig } from '../modules/device-config/device-config.service';
import { writeDeviceLog } from '../modules/device-log/device-log.service';
import type { DropReason } from '@cellhub/contract/device-drops';
import { addDrops, dropReason } from '../modules/device-drops/device-drops.service';
import { type ConnectInfo, touchDevices } from '../modules/devices/device-presence.service';
import type { DeviceRef } from '../modules/devices/device-ref';
import { encodeCommand } from '../modules/scripts/script-commands';
import { TelemetryIngest } from '../modules/telemetry/telemetry-ingest';
import { recordDeviceEvent } from '../modules/thing-model/device-events.service';
import { SubDeviceRouter } from '../modules/gateway-rules/sub-devices';
import { Rejection } from '../lib/rejection';
import type { DeviceLink } from './device-link';
import { DeviceAuthCache } from './device-auth';
import { InfoWriter } from './info-writer';
import { messageIdOf } from './message-id';
import { DEFAULT_PRESENCE_OPTIONS, heldBy, PresenceKeeper } from './presence-keeper';
import { PresenceWriter } from './presence-writer';

export { Rejection };

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

/**
 * Downlinks a device must have subscribed to before they are published: the platform sends them by itself (the OTA
 * dispatcher, configuration sync) and sends them again once the device subscribes (`device.ready`). Sent between a
 * clean session's CONNECT and its SUBSCRIBE, the broker would take them and deliver them to nobody.
 */
const HELD_UNTIL_SUBSCRIBED: ReadonlySet<DownKind> = new Set<DownKind>(['ota', 'config']);

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

/**
 * The device side of the server, whichever broker carries the messages: routes every uplink kind of PROTOCOL.md to
 * its service, answers on the right down topic, keeps presence, and drops (and counts) whatever breaks the rules.
 */
export class DeviceGateway implements DeviceLink {
  readonly auth: DeviceAuthCache;
  /** Property messages go here; it stores them and tells the bus. */
  readonly telemetry: TelemetryIngest;
  readonly presence: PresenceWriter;
  /** This instance's heartbeat and the sweep of connections nobody holds any more. */
  readonly keeper: PresenceKeeper;
  readonly infos: InfoWriter;
  /** Sub-devices that gateway devices speak for (modules/gateway-rules, docs/gateway-rules.md). */
  readonly subs: SubDeviceRouter;
  readonly options: GatewayOptions;
  /** Counters for health and benchmarks. */
  readonly stats = { accepted: 0, rejected: 0, propertyMessages: 0, heldWhileDatabaseDown: 0 };
  private closing = false;
  private isOpen = false;
  private openGate: () => void = () => undefined;
  /**
   * Resolves once the whole server is ready (`open`): every engine that reacts to what devices send (forwarding,
   * alerts, OTA, data transmission) has started and loaded its rules. Until then a device's CONNECT waits for its
   * CONNACK and uplinks wait: a message acknowledged before the forwarding engine knew its rules would never be
   * forwarded, and a refused CONNECT makes many DTUs (and mqtt.js) stop retrying.
   */
  readonly opened = new Promise<void>((resolve) => {
    this.openGate = resolve;
  });
  /** While the database is down: the probe uplinks wait on before they are routed again. */
  private databaseProbe: Promise<void> | undefined;
  private adapter: BrokerAdapter | undefined;
  private chains = new Map<string, Promise<void>>();
  private buckets = new Map<number, Bucket>();
  private lastTouch = new Map<number, number>();
  private touched = new Set<number>();
  /** Dropped messages since the last flush: device id -> reason -> count. */
  private drops = new Map<number, Map<DropReason, number>>();
  private rejectLogWindow = new Map<number, { start: number; n: number }>();
  /** Devices whose connect found a config they do not run, waiting for their subscription. */
  private configOnSubscribe = new Set<number>();
  /**
   * Devices connected here with a clean session (or a kept one without subscriptions), and the downlink kinds they
   * have not subscribed to yet: `send` refuses the kinds of HELD_UNTIL_SUBSCRIBED for them (20401), set before the
   * connect's database write so that no dispatch can slip in ahead of it.
   */
  private unsubscribed = new Map<string, Set<DownKind>>();
  /** When each device connected here: its `device.ready` events carry it. */
  private connectedAt = new Map<string, string>();
  /**
   * Presence as it is this moment, ahead of the batched database write. Embedded broker: the devices connected to
   * this instance (set when the broker registers the connection, before its CONNACK). External broker: the last
   * `{"online":...}` of a device whose write is still queued.
   */
  private live = new Map<string, { device: DeviceRef; info: ConnectInfo; online: 0 | 1 }>();
  private timer: NodeJS.Timeout;
  private commandTimer: NodeJS.Timeout;

  constructor(
    private readonly deps: Deps,
    options: Partial<GatewayOptions> = {},
  ) {
    this.options = { ...DEFAULT_GATEWAY_OPTIONS, ...options };
    this.auth = new DeviceAuthCache(deps);
    this.telemetry = new TelemetryIngest(deps);
    this.presence = new PresenceWriter(deps);
    this.keeper = new PresenceKeeper(deps, { ...DEFAULT_PRESENCE_OPTIONS }, () => this.restoreLive());
    this.infos = new InfoWriter(deps);
    this.subs = new SubDeviceRouter(deps, this);
    this.timer = setInterval(() => void this.flushCounters(), 1000);
    this.timer.unref();
    this.commandTimer = setInterval(() => {
      markCommandTimeouts(deps).catch((err: unknown) =>
        deps.log.warn({ err }, 'command timeout sweep failed'),
      );
    }, 5000);
    this.commandTimer.unref();
  }

  /**
   * Registers this instance (presence-keeper.ts) before the broker hands over any connection: the connections
   * written online from now on name their holder, this instance on the embedded broker.
   */
  async start(kind: BrokerAdapter['kind'], address: string): Promise<void> {
    this.presence.holder = kind === 'embedded' ? this.keeper.instanceId : null;
    await this.keeper.start(kind === 'embedded' ? address : '');
  }

  attach(adapter: BrokerAdapter): void {
    this.adapter = adapter;
  }

  /** The server is ready: connects and uplinks held until now go on (see `opened`). */
  open(): void {
    this.isOpen = true;
    this.openGate();
  }

  // --- DeviceLink (used by services) ---------------------------------------------------------------------

  async send(productKey: string, sn: string, kind: DownKind, payload: unknown): Promise<void> {
    const adapter = this.adapter;
    if (!adapter || !adapter.reachable(sn)) throw new AppError(20401);
    if (HELD_UNTIL_SUBSCRIBED.has(kind) && this.unsubscribed.get(sn)?.has(kind)) {
      // Connected, not subscribed yet: a publish now reaches nobody. What is refused here goes out on the
      // subscription: the OTA dispatcher looks again on `device.ready`, a configuration is sent by `subscribed`.
      const live = this.live.get(sn);
      if (kind === 'config' && live) this.configOnSubscribe.add(live.device.id);
      throw new AppError(20401);
    }
    if (kind === 'cmd' && !Buffer.isBuffer(payload)) {
      // A product whose script has `encode` gets its commands as the bytes it returns, on down/raw.
      const encoded = await encodeCommand(this.telemetry.scripts, productKey, sn, payload);
      if (encoded) {
        await adapter.publish(downTopic(productKey, sn, 'raw'), encoded, 1);
        return;
      }
    }
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload));
    await adapter.publish(downTopic(productKey, sn, kind), bytes, 1);
  }

  /**
   * Whether the device can take a downlink now. Embedded broker: it holds a connection to this instance, from the
   * moment its CONNECT was accepted (the row's flag follows a few milliseconds later, in a batch). External broker:
   * its latest `{"online":...}`, written or still queued, else the stored flag.
   */
  online(sn: string, stored: number): boolean {
    if (!this.adapter) return false;
    const live = this.live.get(sn);
    if (this.adapter.kind === 'embedded') return live !== undefined;
    return live ? live.online === 1 : stored === 1;
  }

  kick(sn: string, reason: string): void {
    this.adapter?.kick(sn, reason);
  }

  /** Whether the embedded broker holds an MQTT connection of the device (device hosts take it over). */
  brokerHolds(sn: string): boolean {
    return this.adapter?.kind === 'embedded' && this.adapter.reachable(sn);
  }

  invalidate(sn: string): void {
    this.auth.invalidate(sn);
    // Brokers that hold credentials themselves (Mosquitto dynamic security) follow the change.
    this.deps.events.emit({ type: 'device.auth.changed', sns: [sn] });
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
    const at = this.deps.now().toISOString();
    this.connectedAt.set(device.sn, at);
    // A clean session has no subscriptions yet: downlinks the platform sends by itself wait for them.
    if (info.clean === true) this.unsubscribed.set(device.sn, new Set(DOWN_KINDS));
    else this.unsubscribed.delete(device.sn);
    return this.wentOnline(device, info, at);
  }

  /** Writes the device online; `connected`, and `restoreLive` for a connection this instance still holds. */
  private wentOnline(device: DeviceRef, info: ConnectInfo, at: string): Promise<void> {
    this.lastTouch.set(device.id, Date.now());
    this.telemetry.writer.markActive(device.id);
    const live = { device, info, online: 1 as const };
    this.live.set(device.sn, live);
    return this.serial(device.sn, async () => {
      const configDiffers = await this.presence.online(device, info);
      this.written(live);
      this.deps.events.emit({
        type: 'presence.changed',
        device,
        online: 1,
        at: this.deps.now().toISOString(),
      });
      // Queued commands and upgrades follow the rule of the config below.
      if (info.clean !== true) {
        this.deps.events.emit({ type: 'device.ready', device, kinds: DOWN_KINDS, connectedAt: at });
      }
      // A device that missed a config change while offline gets it now, if it can receive it: a clean session that
      // has not subscribed to it yet gets it once it does (`subscribed`).
      if (!configDiffers) return;
      if (this.unsubscribed.get(device.sn)?.has('config')) this.configOnSubscribe.add(device.id);
      else await sendExpectedConfig(this.deps, device, false);
    });
  }

  /**
   * The device subscribed to its config topic (embedded broker): send the configuration it missed, if its connect
   * found one. Runs after the connect's presence write (same per-device chain), so the flag is known by then; a
   * config set after the connect went out by itself (putDeviceConfig sends to online devices).
   */
  subscribed(device: DeviceRef, kinds: readonly DownKind[] = ['config']): Promise<void> {
    // The broker holds the subscription already (it tells only then): from now on these kinds reach the device.
    const waiting = this.unsubscribed.get(device.sn);
    if (waiting) {
      for (const k of kinds) waiting.delete(k);
      if (waiting.size === 0) this.unsubscribed.delete(device.sn);
    }
    const connectedAt = this.connectedAt.get(device.sn) ?? this.deps.now().toISOString();
    return this.serial(device.sn, async () => {
      this.deps.events.emit({ type: 'device.ready', device, kinds, connectedAt });
      if (!kinds.includes('config') || !this.configOnSubscribe.delete(device.id)) return;
      await sendExpectedConfig(this.deps, device, false);
    });
  }

  disconnected(device: DeviceRef, reason: string, setOffline = true): Promise<void> {
    this.buckets.delete(device.id);
    this.lastTouch.delete(device.id);
    // A takeover's disconnect (setOffline false) comes before the new connection's connect: it leaves the device
    // live.
    const live = setOffline ? { device, info: { ip: '', protocol: '' }, online: 0 as const } : undefined;
    if (live) {
      this.live.set(device.sn, live);
      this.unsubscribed.delete(device.sn);
      this.connectedAt.delete(device.sn);
    }
    return this.serial(device.sn, () => {
      if (setOffline) this.configOnSubscribe.delete(device.id);
      return this.presence.offline(device, reason, setOffline).then((applied) => {
        if (live) this.written(live);
        // Not applied: another instance holds the device now, and it stays online.
        if (applied) {
          const at = this.deps.now().toISOString();
          this.deps.events.emit({ type: 'presence.changed', device, online: 0, at, reason });
        }
      });
    });
  }

  /**
   * The database has the change: an external broker's entry is no longer needed (the stored flag says the same),
   * and an embedded broker keeps only its connections.
   */
  private written(entry: { device: DeviceRef; online: 0 | 1 }): void {
    const { sn } = entry.device;
    if (this.live.get(sn) !== entry) return;
    if (entry.online === 0 || this.adapter?.kind !== 'embedded') this.live.delete(sn);
  }

  /**
   * After this instance's heartbeat stopped for longer than the instance timeout, other instances may have set its
   * devices offline (presence-keeper.ts): the connections it still holds are written online again.
   */
  private async restoreLive(): Promise<void> {
    if (this.adapter?.kind !== 'embedded') return;
    const held = [...this.live.values()].filter((l) => l.online === 1);
    if (held.length === 0) return;
    const mine = await heldBy(
      this.deps,
      this.keeper.instanceId,
      held.map((l) => l.device.id),
    );
    for (const l of held) {
      if (!mine.has(l.device.id) && this.live.get(l.device.sn) === l) {
        void this.wentOnline(
          l.device,
          l.info,
          this.connectedAt.get(l.device.sn) ?? this.deps.now().toISOString(),
        );
      }
    }
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
   * are counted, logged and answered here. Resolves false only when the gateway is stopping and did not take the
   * message: the adapter then leaves it unacknowledged.
   */
  async uplink(device: DeviceRef, kind: string, payload: Buffer, meta: UplinkMeta = {}): Promise<boolean> {
    // Stopping: nothing taken from now on (answers false: not stored, not refused; the adapter must not acknowledge
    // it, and the device sends it again to whichever instance it reaches next).
    if (!this.isOpen) await this.opened;
    if (this.closing) return false;
    try {
      try {
        this.admit(device, payload.length);
      } catch (err) {
        // Dropped unread: the device still learns why, when it asked for an answer (docs/device-protocol.md).
        if (kind === 'property') this.reject(device, kind, err as Rejection, messageIdOf(payload));
        else this.reject(device, kind, err as Rejection);
        return true;
      }
      await this.routeOnceStored(device, kind, payload, meta);
      this.stats.accepted++;
      this.touch(device.id);
      return true;
    } catch (err) {
      if (err instanceof Rejection) {
        this.reject(device, kind, err);
        return true;
      }
      // Failed because the server is stopping under it (its writers closed): not stored, so not acknowledged.
      if (this.closing) return false;
      this.deps.log.error({ err, sn: device.sn, kind }, 'uplink handling failed');
      this.reject(device, kind, new Rejection('server error', 10101));
      return true;
    }
  }

  /** The gateway is stopping: uplinks are no longer taken (`uplink` answers false). */
  get stopping(): boolean {
    return this.closing;
  }

  /**
   * Routes an uplink; while the database is down, waits for it and routes again instead of settling: adapters
   * acknowledge a message once `uplink` resolves, so a device gets no PUBACK for what is not stored and keeps its
   * copy. PUBACKs just stop until the database is back (docs/device-protocol.md, "Acknowledgement means stored").
   */
  private async routeOnceStored(device: DeviceRef, kind: string, payload: Buffer, meta: UplinkMeta) {
    for (;;) {
      try {
        await this.route(device, kind, payload, meta);
        return;
      } catch (err) {
        if (this.closing || !isDatabaseUnavailable(err)) throw err;
        this.stats.heldWhileDatabaseDown++;
        await this.databaseBack();
      }
    }
  }

  /** Resolves once the database answers again (one probe for all waiting uplinks), or the gateway closes. */
  private databaseBack(): Promise<void> {
    this.databaseProbe ??= (async () => {
      let pause = 100;
      for (;;) {
        await new Promise((r) => setTimeout(r, pause));
        if (this.closing) return;
        try {
          await this.deps.db.execute(sql`select 1`);
          return;
        } catch {
          pause = Math.min(pause * 2, 1000);
        }
      }
    })().finally(() => (this.databaseProbe = undefined));
    return this.databaseProbe;
  }

  /**
   * The embedded broker's connection layer cut a connected device off for a packet over the size limit, read no
   * further than its header (gateway/mqtt5/device-stream.ts): counted as a `too_large` drop of the device.
   */
  packetTooLarge(sn: string): void {
    const live = this.live.get(sn);
    if (live?.online !== 1) return;
    this.reject(live.device, 'packet', new Rejection('packet larger than the broker takes', 50001));
  }

  /** Counts and logs a dropped message; answers property messages with the code. */
  reject(device: DeviceRef, kind: string, rejection: Rejection, replyId?: string): void {
    this.stats.rejected++;
    const reason = dropReason(kind, rejection.replyCode);
    let counts = this.drops.get(device.id);
    if (!counts) this.drops.set(device.id, (counts = new Map()));
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
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
      await this.telemetry.raw(device, payload);
      return;
    }
    const json = parseJson(payload);
    if (isSubUpKind(kind)) return this.subs.uplink(device, kind, json);
    switch (kind) {
      case 'property':
        return this.properties(device, json);
      case 'info': {
        await this.infos.add(device, validate(infoUp, json, 'info'));
        return;
      }
      case 'event':
        return recordDeviceEvent(this.deps, device, json);
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
      case 'config': {
        const config = validate(configMessage, json, 'config');
        await handleConfigReport(this.deps, device, config);
        this.deps.events.emit({ type: 'config.reported', device, config });
        return;
      }
      case 'config_get':
        validate(configGetUp, json, 'config_get');
        return sendExpectedConfig(this.deps, device, true);
      case 'cmd_reply': {
        const reply = validate(cmdReplyUp, json, 'cmd_reply');
        if (!(await handleCommandReply(this.deps, device, reply))) {
          throw new Rejection(`no command with id "${reply.id}"`, 10107);
        }
        this.deps.events.emit({ type: 'command.replied', device, reply });
        return;
      }
      case 'ota': {
        const report = validate(otaUp, json, 'ota');
        // Answered by the OTA engine once the report's batch committed, so its PUBACK means "recorded"; with no
        // engine running the report still lands in the device log.
        const answer = this.deps.events.ask({ type: 'ota.report', device, report });
        if (answer) {
          const outcome = await answer;
          if (!outcome.ok) throw new Rejection(outcome.reason, outcome.code);
          return;
        }
        await writeDeviceLog(this.deps.db, { deviceId: device.id, event: 'ota', detail: { ...report } });
        return;
      }
    }
  }

  private async properties(device: DeviceRef, json: unknown): Promise<void> {
    const id =
      json && typeof json === 'object' && typeof (json as { id?: unknown }).id === 'string'
        ? (json as { id: string }).id
        : undefined;
    try {
      await this.telemetry.ingest(device, json);
    } catch (err) {
      if (err instanceof Rejection && id !== undefined) Object.assign(err, { messageId: id });
      throw err;
    }
    this.stats.propertyMessages++;
    if (id !== undefined) this.reply(device, 'property_reply', { id, code: 0 });
  }

  private async flushCounters(): Promise<void> {
    const touched = [...this.touched];
    this.touched.clear();
    const drops = this.drops;
    this.drops = new Map();
    try {
      await touchDevices(this.deps, touched, this.deps.now());
      await addDrops(this.deps, drops, this.deps.now());
    } catch (err) {
      this.deps.log.warn({ err }, 'device counters flush failed');
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    clearInterval(this.commandTimer);
    await this.subs.settle();
    await this.telemetry.close();
    await Promise.all([...this.chains.values()]);
    await this.presence.drain();
    await this.infos.stop();
    await this.flushCounters();
    // Last: the broker closed every connection before, and their disconnects are written.
    await this.keeper.stop();
  }
}
