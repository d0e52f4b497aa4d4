import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { DeviceEvent, DevicePropertiesEvent, OwnerEvent } from '@cellhub/contract/realtime';
import { deviceEvent, ownerEvent } from '@cellhub/contract/realtime';
import { createDomainEvents, type DomainEvent, type DomainEvents, type PropertyItem } from './domain-events';
import { NOTIFY_PAYLOAD_LIMIT, type PgChannels } from './pg-channels';

export { NOTIFY_PAYLOAD_LIMIT };

/**
 * Who may see an event: the owner's uid (null: a device nobody owns, seen by admins only). The holders of the
 * device's live shares are added at send time from the share audience cache (the hub asks it by serial number);
 * `mayReceive` in audience.ts is the one place that decides.
 */
export interface Audience {
  uid: number | null;
}

export type EventListener = (event: DeviceEvent, audience: Audience) => void;
/**
 * OTA task progress and data transmission counters (owner events); the audience is the owner (admins receive every
 * one).
 */
export type TaskListener = (event: OwnerEvent, audience: Audience) => void;

/** Sessions that just ended: one session (sign-out) or every session of a user (password change, disable). */
export type SessionScope = { sessionId: number } | { uid: number };
export type SessionListener = (scope: SessionScope) => void;

export interface EventBusStats {
  published: number;
  /** Property events merged into an earlier one of the same device inside the coalescing window. */
  coalesced: number;
  /** Delivered to this instance's listeners (own and other instances' events). */
  delivered: number;
  notifySent: number;
  /** Events too large for one NOTIFY payload: delivered locally, not to other instances. */
  oversizedDropped: number;
  /** Events not sent to other instances because the LISTEN connection was down or NOTIFY failed. */
  notifyFailed: number;
  /** Payloads from other instances that did not parse. */
  badPayloads: number;
}

/**
 * The one bus of an instance. Domain events (`on`/`emit`, domain-events.ts) stay in the process; the browser
 * stream (`publish`/`subscribe`: device events as the console sees them) also reaches the other instances. A
 * `property.committed` becomes a `device.properties` browser event here, and a `presence.changed` a
 * `device.online` one, so their producers emit once.
 * `publish` and `emit` never throw and never block the caller: a lost live update must not fail a telemetry write.
 */
export interface EventBus extends DomainEvents {
  publish(event: DeviceEvent, audience: Audience): void;
  subscribe(listener: EventListener): () => void;
  /**
   * OTA task progress (`ota.task`, not a device event: no device filter applies). The OTA engine merges changes of
   * a task before publishing, so these are few; they reach the listeners of every instance like device events.
   */
  publishTask(event: OwnerEvent, audience: Audience): void;
  subscribeTasks(listener: TaskListener): () => void;
  /**
   * Announces sessions that ended (after the revocation committed), here and on the other instances, so open
   * WebSockets of those sessions close at once instead of at the next periodic session check.
   */
  sessionsEnded(scope: SessionScope): void;
  onSessionsEnded(listener: SessionListener): () => void;
  /** Resolves once events can cross instances (immediately when there is only one). */
  ready(): Promise<void>;
  stats(): EventBusStats;
  close(): Promise<void>;
}

export interface EventBusOptions {
  log: FastifyBaseLogger;
  /** The instance's channels; when they reach other instances (PostgreSQL), events cross over to them too. */
  channels?: PgChannels;
  /** Property events of one device are merged for this long (ms); 0 delivers each one at once. */
  coalesceMs?: number;
}

export const NOTIFY_CHANNEL = 'cellhub_device_events';
export const DEFAULT_COALESCE_MS = 250;
const MAX_INFLIGHT_NOTIFY = 200;

type Entry = [DeviceEvent, Audience];

interface Pending {
  event: DevicePropertiesEvent;
  audience: Audience;
}

const deviceKey = (e: DeviceEvent) => `${e.product_key}\u0000${e.sn}`;

/**
 * In-process bus with property coalescing; with PostgreSQL channels it also forwards every event to the other
 * instances (NOTIFY on the instance's one LISTEN connection, batched into payloads under 8000 bytes).
 */
export function createEventBus(options: EventBusOptions): EventBus {
  const coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
  const listeners = new Set<EventListener>();
  const taskListeners = new Set<TaskListener>();
  const sessionListeners = new Set<SessionListener>();
  const stats: EventBusStats = {
    published: 0,
    coalesced: 0,
    delivered: 0,
    notifySent: 0,
    oversizedDropped: 0,
    notifyFailed: 0,
    badPayloads: 0,
  };
  const domain = createDomainEvents(options.log);
  const remote =
    options.channels?.kind === 'postgres'
      ? new PgFanOut(options.channels, options.log, stats, deliver, endSessions, deliverTask)
      : undefined;

  function deliverTask(event: OwnerEvent, audience: Audience): void {
    for (const listener of taskListeners) {
      stats.delivered++;
      try {
        listener(event, audience);
      } catch (err) {
        options.log.warn({ err }, 'task event listener failed');
      }
    }
  }

  function endSessions(scope: SessionScope): void {
    for (const listener of sessionListeners) {
      try {
        listener(scope);
      } catch (err) {
        options.log.warn({ err }, 'session listener failed');
      }
    }
  }

  // Insertion order is publish order, so a flush keeps devices in the order they first reported.
  const pending = new Map<string, Pending>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function deliver(event: DeviceEvent, audience: Audience): void {
    for (const listener of listeners) {
      stats.delivered++;
      try {
        listener(event, audience);
      } catch (err) {
        options.log.warn({ err }, 'device event listener failed');
      }
    }
  }

  function emit(entries: Entry[]): void {
    for (const [event, audience] of entries) deliver(event, audience);
    remote?.send(entries);
  }

  function flush(): void {
    timer = undefined;
    if (pending.size === 0) return;
    const entries: Entry[] = [];
    for (const p of pending.values()) entries.push([p.event, p.audience]);
    pending.clear();
    emit(entries);
  }

  /** Sends a device's merged properties before any other event of that device, so order per device holds. */
  function flushDevice(key: string): Entry[] {
    const p = pending.get(key);
    if (!p) return [];
    pending.delete(key);
    return [[p.event, p.audience]];
  }

  const isoOf = lastIso();

  /** The browser events some domain events become (sent once, by whoever raises the domain event). */
  function toBrowsers(event: DomainEvent): void {
    if (event.type === 'presence.changed') {
      // The one path of presence to browsers (and the OTA engine, which follows reconnects on every instance):
      // whoever writes the online flag emits `presence.changed`, never a browser event of its own.
      const { device, online, at, reason } = event;
      bus.publish(
        {
          type: 'device.online',
          sn: device.sn,
          product_key: device.productKey,
          online,
          at,
          ...(reason === undefined ? {} : { reason }),
        },
        { uid: device.uid },
      );
    } else if (event.type === 'property.committed') {
      const { device, items } = event;
      const newest = newestOf(items);
      bus.publish(
        {
          type: 'device.properties',
          sn: device.sn,
          product_key: device.productKey,
          ts: isoOf(newest.ts),
          values: newest.params,
        },
        { uid: device.uid },
      );
    }
  }

  const bus: EventBus = {
    on: domain.on,
    answer: domain.answer,
    ask: domain.ask,
    emit(event) {
      if (closed) return;
      domain.emit(event);
      toBrowsers(event);
    },
    async emitDurable(event) {
      if (closed) return;
      const durable = domain.emitDurable(event);
      toBrowsers(event);
      await durable;
    },
    publish(event, audience) {
      if (closed) return;
      stats.published++;
      if (event.type === 'device.properties' && coalesceMs > 0) {
        const key = deviceKey(event);
        const p = pending.get(key);
        if (p) {
          stats.coalesced++;
          // Later reports win per property; the newest device time is kept. The pending event is the bus's own
          // copy, so it is updated in place (this runs for every telemetry message).
          Object.assign(p.event.values, event.values);
          if (event.ts > p.event.ts) p.event.ts = event.ts;
          p.audience = audience;
        } else {
          pending.set(key, { event: { ...event, values: { ...event.values } }, audience });
        }
        timer ??= setTimeout(flush, coalesceMs);
        return;
      }
      emit([...flushDevice(deviceKey(event)), [event, audience]]);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publishTask(event, audience) {
      if (closed) return;
      stats.published++;
      deliverTask(event, audience);
      remote?.sendTasks([[event, audience]]);
    },
    subscribeTasks(listener) {
      taskListeners.add(listener);
      return () => taskListeners.delete(listener);
    },
    sessionsEnded(scope) {
      if (closed) return;
      endSessions(scope);
      remote?.sendSessions(scope);
    },
    onSessionsEnded(listener) {
      sessionListeners.add(listener);
      return () => sessionListeners.delete(listener);
    },
    ready: () => remote?.ready() ?? Promise.resolve(),
    stats: () => ({ ...stats }),
    async close() {
      if (closed) return;
      if (timer) clearTimeout(timer);
      flush();
      closed = true;
      domain.clear();
      listeners.clear();
      taskListeners.clear();
      sessionListeners.clear();
      await remote?.close();
    },
  };
  return bus;
}

/** The browser shows the newest values of a message (a message may carry several timestamped sets). */
function newestOf(items: readonly PropertyItem[]): PropertyItem {
  return items.length === 1 ? items[0]! : items.reduce((a, b) => (b.ts >= a.ts ? b : a));
}

/** Messages of one moment share their timestamp; one Date and string for all of them. */
function lastIso(): (ms: number) => string {
  let last = { ms: NaN, iso: '' };
  return (ms) => {
    if (ms !== last.ms) last = { ms, iso: new Date(ms).toISOString() };
    return last.iso;
  };
}

/**
 * Cross-instance fan-out over the instance's shared channels (pg-channels.ts). Each payload carries the instance
 * id; an instance ignores its own echo because it already delivered those events locally.
 */
class PgFanOut {
  private readonly instance = randomBytes(8).toString('hex');
  private outbox: Entry[] = [];
  private scheduled = false;
  private closed = false;
  /** NOTIFY payloads sent but not yet acknowledged by Postgres. */
  private inflight = 0;
  private readonly unlisten: () => void;

  constructor(
    private readonly channels: PgChannels,
    private readonly log: FastifyBaseLogger,
    private readonly stats: EventBusStats,
    private readonly deliver: (event: DeviceEvent, audience: Audience) => void,
    private readonly endSessions: (scope: SessionScope) => void,
    private readonly deliverTask: (event: OwnerEvent, audience: Audience) => void,
  ) {
    this.unlisten = channels.listen(NOTIFY_CHANNEL, (payload) => this.receive(payload));
  }

  ready(): Promise<void> {
    return this.channels.ready();
  }

  /** Queues events; everything sent in one tick goes out in as few NOTIFYs as fit. */
  send(entries: Entry[]): void {
    if (this.closed) return;
    for (const e of entries) this.outbox.push(e);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.outbox;
      this.outbox = [];
      void this.notify(batch);
    });
  }

  /** Task events are few (merged per task by the OTA engine): each batch goes out as its own NOTIFYs. */
  sendTasks(entries: [OwnerEvent, Audience][]): void {
    if (this.closed) return;
    for (const [event, audience] of entries) {
      const payload = JSON.stringify({
        i: this.instance,
        e: [],
        t: [[event, audience.uid]],
      } satisfies RemoteBatch);
      if (Buffer.byteLength(payload) > NOTIFY_PAYLOAD_LIMIT) {
        this.stats.oversizedDropped++;
        continue;
      }
      this.channels.notify(NOTIFY_CHANNEL, payload).then(
        () => this.stats.notifySent++,
        (err: unknown) => {
          this.stats.notifyFailed++;
          this.log.warn({ err: (err as Error).message }, 'event bus: NOTIFY of a task event failed');
        },
      );
    }
  }

  /** Session ends are rare and urgent: one NOTIFY each, not queued behind device events. */
  sendSessions(scope: SessionScope): void {
    if (this.closed) return;
    const payload = JSON.stringify({ i: this.instance, e: [], s: [scope] } satisfies RemoteBatch);
    this.channels.notify(NOTIFY_CHANNEL, payload).then(
      () => this.stats.notifySent++,
      (err: unknown) => {
        this.stats.notifyFailed++;
        this.log.warn({ err: (err as Error).message }, 'event bus: NOTIFY of ended sessions failed');
      },
    );
  }

  private async notify(batch: Entry[]): Promise<void> {
    const payloads = packPayloads(this.instance, batch, this.stats);
    for (const p of payloads) {
      // A database that cannot keep up must not make the queue of live updates grow without bound.
      if (this.inflight >= MAX_INFLIGHT_NOTIFY) {
        this.stats.notifyFailed += p.count;
        continue;
      }
      this.inflight++;
      try {
        await this.channels.notify(NOTIFY_CHANNEL, p.payload);
        this.stats.notifySent++;
      } catch (err) {
        this.stats.notifyFailed += p.count;
        this.log.warn({ err: (err as Error).message }, 'event bus: NOTIFY failed');
      } finally {
        this.inflight--;
      }
    }
  }

  private receive(payload: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      this.stats.badPayloads++;
      return;
    }
    if (!isRemoteBatch(parsed)) {
      this.stats.badPayloads++;
      return;
    }
    if (parsed.i === this.instance) return;
    for (const scope of parsed.s ?? []) {
      if (isSessionScope(scope)) this.endSessions(scope);
      else this.stats.badPayloads++;
    }
    for (const [raw, uid] of parsed.e) {
      // Another instance could run another version; an event this one does not understand is skipped, not fatal.
      const event = deviceEvent.safeParse(raw);
      if (!event.success) {
        this.stats.badPayloads++;
        continue;
      }
      this.deliver(event.data, { uid });
    }
    for (const item of parsed.t ?? []) {
      const task = Array.isArray(item) ? ownerEvent.safeParse(item[0]) : undefined;
      const uid = Array.isArray(item) ? (item[1] as unknown) : undefined;
      if (!task?.success || !(uid === null || typeof uid === 'number')) {
        this.stats.badPayloads++;
        continue;
      }
      this.deliverTask(task.data, { uid });
    }
  }

  /** Sends what the last flush queued; the channels themselves are closed by their owner (app.ts). */
  async close(): Promise<void> {
    this.closed = true;
    const batch = this.outbox;
    this.outbox = [];
    if (batch.length) await this.notify(batch);
    this.unlisten();
  }
}

/**
 * On the wire: `{ i: instance id, e: [[event, owner uid], ...], s?: [ended session scope, ...],
 * t?: [[ota task event, owner uid], ...] }`.
 */
interface RemoteBatch {
  i: string;
  e: [unknown, number | null][];
  s?: unknown[];
  t?: unknown[];
}

function isSessionScope(v: unknown): v is SessionScope {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return Number.isInteger(o.sessionId) || Number.isInteger(o.uid);
}

function isRemoteBatch(v: unknown): v is RemoteBatch {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.i === 'string' &&
    Array.isArray(o.e) &&
    (o.s === undefined || Array.isArray(o.s)) &&
    (o.t === undefined || Array.isArray(o.t)) &&
    o.e.every((x) => Array.isArray(x) && x.length === 2 && (x[1] === null || typeof x[1] === 'number'))
  );
}

/**
 * Splits a batch into NOTIFY payloads under the limit (measured in UTF-8 bytes, as Postgres does). An event too big
 * to travel alone is counted and left out.
 */
export function packPayloads(
  instance: string,
  batch: Entry[],
  stats: Pick<EventBusStats, 'oversizedDropped'>,
  limit = NOTIFY_PAYLOAD_LIMIT,
): { payload: string; count: number }[] {
  const head = `{"i":${JSON.stringify(instance)},"e":[`;
  const tail = ']}';
  const overhead = Buffer.byteLength(head) + Buffer.byteLength(tail);
  const out: { payload: string; count: number }[] = [];
  let parts: string[] = [];
  let size = overhead;
  const push = () => {
    if (parts.length === 0) return;
    out.push({ payload: head + parts.join(',') + tail, count: parts.length });
    parts = [];
    size = overhead;
  };
  for (const [event, audience] of batch) {
    const item = JSON.stringify([event, audience.uid]);
    const bytes = Buffer.byteLength(item);
    if (overhead + bytes > limit) {
      stats.oversizedDropped++;
      continue;
    }
    const extra = bytes + (parts.length ? 1 : 0);
    if (size + extra > limit) push();
    size += bytes + (parts.length ? 1 : 0);
    parts.push(item);
  }
  push();
  return out;
}
