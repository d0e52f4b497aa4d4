import type { FastifyBaseLogger } from 'fastify';
import type { CmdReplyUp, ConfigMessage, DownKind, OtaUp, PropertyValue } from '@cellhub/contract/protocol';
import type { DeviceRef } from '../modules/devices/device-ref';

/** One set of values of one device at one device timestamp (Unix ms). */
export interface PropertyItem {
  ts: number;
  params: Record<string, PropertyValue>;
  /**
   * `ts` is the device's own (the message carried it), not the server's clock at arrival: a copy the device sends
   * again (QoS 1 after a lost PUBACK) carries the same, so it names the reading (forwarding's message id).
   */
  deviceTs?: boolean;
}

/**
 * What happened to devices, in the server's words. Producers (telemetry ingest, the gateway) emit; subscribers
 * (the alert evaluator, the browser stream, later scenes, forwarding and transmission) listen with `on`. Nobody
 * sets a hook on a producer.
 */
export type DomainEvent =
  /** A property message is stored (its batch committed); `items` as the device sent them, oldest first or not. */
  | { type: 'property.committed'; device: DeviceRef; items: readonly PropertyItem[] }
  /** The device's online flag was written (connect, disconnect, will, status). */
  | { type: 'presence.changed'; device: DeviceRef; online: 0 | 1; at: string; reason?: string }
  /** The device reported the configuration it runs (`P/up/config`), after it was stored. */
  | { type: 'config.reported'; device: DeviceRef; config: ConfigMessage }
  /**
   * Bytes from the device's serial port arrived (`P/up/raw`), before they are stored. Not raised for answers the
   * Modbus poller took (TelemetryIngest.consumeRaw, docs/modbus-polling.md): those become values, not raw messages.
   */
  | { type: 'raw.received'; device: DeviceRef; payload: Uint8Array }
  /**
   * A device event (`P/up/event`) was checked against the thing model and stored (forwarding listens; the browser
   * stream gets its own `device.event`).
   */
  | {
      type: 'event.recorded';
      device: DeviceRef;
      event: string;
      level: string;
      params: Record<string, unknown>;
      /** Device time (Unix ms). */
      ts: number;
    }
  /** The device answered a command (`P/up/cmd_reply`), after the command row was updated. */
  | { type: 'command.replied'; device: DeviceRef; reply: CmdReplyUp }
  /** Alert triggers were created, edited, enabled, disabled or deleted (committed) on this instance. */
  | { type: 'alert-triggers.changed'; ids: number[] }
  /**
   * Shares of these devices were created, changed or ended (committed) on this or, relayed by the shares plugin,
   * another instance: the share audience cache (modules/shares/share-audience.ts) drops and re-reads them.
   */
  | { type: 'share.changed'; deviceIds: number[] }
  /**
   * The share audience cache has re-read the shares of these devices (after `share.changed`, from any instance):
   * the browser stream tells the sockets watching them that who may see them changed (`access`), so an open list
   * drops a revoked device and picks up a new right without a reload.
   */
  | { type: 'share.reread'; sns: string[] }
  /**
   * An OTA task was created, started, paused, cancelled or deleted (committed) on this instance: the OTA engine
   * pushes its counts (`ota.task` to browsers) and wakes the dispatchers. A deleted task's row is gone, so the
   * event carries what its last browser event needs.
   */
  | { type: 'ota.task.changed'; taskId: number; deleted?: { uid: number; productKey: string } }
  /** A firmware upgrade report (`P/up/ota`): a request, answered by the OTA engine (see `answer`/`ask`). */
  | { type: 'ota.report'; device: DeviceRef; report: OtaUp }
  /**
   * The device can receive these downlink kinds now: it subscribed to them (embedded broker, clean session), or it
   * connected with a kept session or said it is online on an external broker (its subscriptions exist already).
   * What waited for the device (queued commands, OTA upgrades, a configuration) goes out on this, never between
   * CONNACK and SUBSCRIBE. `connectedAt` is when its current connection was accepted.
   */
  | { type: 'device.ready'; device: DeviceRef; kinds: readonly DownKind[]; connectedAt: string }
  /** A request: send the queued commands of this online device now; answered when the attempt ended. */
  | { type: 'commands.deliver'; device: DeviceRef }
  /**
   * What a broker needs to authenticate these devices changed (committed) on this instance: created, secret
   * rotated, disabled or enabled, owner changed, deleted. Raised by the gateway when a service forgets cached auth
   * data (DeviceLink.invalidate); the Mosquitto dynamic-security provisioning listens (modules/broker-auth).
   */
  | { type: 'device.auth.changed'; sns: string[] };

export type DomainEventType = DomainEvent['type'];
export type DomainEventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;

/** How the OTA engine answers a report: stored, or refused with a reply code the device is told. */
export type OtaReportOutcome = { ok: true } | { ok: false; code: number; reason: string };

/** Events that are requests: one answerer each, and the producer waits for its reply. */
export interface DomainReplies {
  'ota.report': OtaReportOutcome;
  /** How many queued commands went out. */
  'commands.deliver': { sent: number };
}

/**
 * The in-process half of the bus (the browser stream and its fan-out to other instances are in event-bus.ts).
 * Handlers run synchronously in `emit`, in subscription order, and must return at once (queue and work off the
 * producer's path): ingest calls `emit` for every stored message.
 */
export interface DomainEvents {
  /**
   * A handler returns at once; for an event raised with `emitDurable` it may return a promise of the durable work
   * it queued for the event (forwarding's queue rows), which the producer waits for before acknowledging the device.
   */
  on<T extends DomainEventType>(
    type: T,
    // `unknown`: a value other than a promise is ignored (handlers written as `(e) => seen.push(e)` are fine).
    handler: (event: DomainEventOf<T>) => unknown,
  ): () => void;
  /** Never throws: a failing subscriber is logged and the others still get the event. */
  emit(event: Exclude<DomainEvent, { type: keyof DomainReplies }>): void;
  /**
   * `emit` for data a device will be acknowledged for: resolves once every promise the handlers returned settled
   * (a failed one is logged), so "acknowledged" covers what the handlers made durable too (at least once: a crash
   * before the acknowledgement makes the device send again). Never rejects.
   */
  emitDurable(event: Exclude<DomainEvent, { type: keyof DomainReplies }>): Promise<void>;
  /**
   * Becomes the one answerer of a request event (a second one replaces nobody: it throws). The promise settles
   * when the request is done: for `ota.report`, once the report is stored (the gateway acknowledges the device
   * only then).
   */
  answer<T extends keyof DomainReplies>(
    type: T,
    handler: (event: DomainEventOf<T>) => Promise<DomainReplies[T]>,
  ): () => void;
  /** The answer to a request, or undefined when nobody answers this kind on this instance (yet, or any more). */
  ask<T extends keyof DomainReplies>(event: DomainEventOf<T>): Promise<DomainReplies[T]> | undefined;
}

type AnyHandler = (event: DomainEvent) => unknown;
type AnyAnswerer = (event: DomainEvent) => Promise<unknown>;

export function createDomainEvents(log: FastifyBaseLogger): DomainEvents & { clear(): void } {
  const handlers = new Map<DomainEventType, AnyHandler[]>();
  const answerers = new Map<keyof DomainReplies, AnyAnswerer>();
  return {
    on(type, handler) {
      const h = handler as AnyHandler;
      // Copy on write: a handler that unsubscribes during emit does not disturb the loop running it.
      handlers.set(type, [...(handlers.get(type) ?? []), h]);
      return () => {
        const list = handlers.get(type);
        if (list)
          handlers.set(
            type,
            list.filter((x) => x !== h),
          );
      };
    },
    emit(event) {
      const list = handlers.get(event.type);
      if (!list) return;
      for (const handler of list) {
        try {
          const r = handler(event);
          if (r instanceof Promise)
            r.catch((err: unknown) => log.warn({ err, type: event.type }, 'domain event handler failed'));
        } catch (err) {
          log.warn({ err, type: event.type }, 'domain event handler failed');
        }
      }
    },
    async emitDurable(event) {
      const list = handlers.get(event.type);
      if (!list) return;
      let waits: Promise<unknown>[] | undefined;
      for (const handler of list) {
        try {
          const r = handler(event);
          if (r instanceof Promise) (waits ??= []).push(r);
        } catch (err) {
          log.warn({ err, type: event.type }, 'domain event handler failed');
        }
      }
      if (!waits) return;
      for (const settled of await Promise.allSettled(waits))
        if (settled.status === 'rejected')
          log.warn({ err: settled.reason as unknown, type: event.type }, 'domain event handler failed');
    },
    answer(type, handler) {
      if (answerers.has(type)) throw new Error(`"${type}" already has an answerer`);
      const h = handler as unknown as AnyAnswerer;
      answerers.set(type, h);
      return () => {
        if (answerers.get(type) === h) answerers.delete(type);
      };
    },
    ask(event) {
      const e = event as DomainEvent;
      const answerer = answerers.get(e.type as keyof DomainReplies);
      return answerer?.(e) as never;
    },
    clear() {
      handlers.clear();
      answerers.clear();
    },
  };
}
