import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import type { DataTransmitEvent } from '@cellhub/contract/data-transmit';
import type {
  DeviceEvent,
  DeviceEventType,
  OtaTaskEvent,
  WsClientMessage,
  WsServerMessage,
} from '@cellhub/contract/realtime';
import { WS_CLOSE } from '@cellhub/contract/realtime';
import { getToken, subscribeAuth } from './auth';

/**
 * Live device events from the server's /api/ws (docs/api-conventions.md, "Live updates"). One WebSocket per tab,
 * shared by every screen that listens; it opens with the first listener, closes a little after the last one
 * leaves, reconnects with backoff, and signs in again after each reconnect.
 */

/**
 * - `connecting`: opening or signing in; `open`: events flow;
 * - `reconnecting`: lost, waiting to try again;
 * - `signed-out`: no token, or the server refused it (4401/4403); waits for a new sign-in;
 * - `idle`: nobody listens.
 */
export type RealtimeStatus = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'signed-out';

export interface DeviceEventFilter {
  /** Only these devices; omitted or null: every device the user may see. */
  sns?: readonly string[] | null;
  /** Only these kinds of event; omitted: all. */
  types?: readonly DeviceEventType[];
}

type Handler = (event: DeviceEvent) => void;
type OtaHandler = (event: OtaTaskEvent) => void;
type TransmitHandler = (event: DataTransmitEvent) => void;
type AccessHandler = (sns: string[]) => void;

interface Subscription {
  sns: Set<string> | null;
  types: Set<DeviceEventType> | null;
  handler: Handler;
  /** Receives `ota.task` messages (a task's state and counts; no device filter applies to them). */
  ota?: OtaHandler;
  /** Receives the subscribed devices whose access changed (`access`: a share made, changed or ended). */
  access?: AccessHandler;
}

/** The part of the browser WebSocket this client uses, so tests can hand in a fake. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: Event) => void) | null;
  onmessage: ((ev: MessageEvent) => void) | null;
  onclose: ((ev: CloseEvent) => void) | null;
  onerror: ((ev: Event) => void) | null;
}

export interface RealtimeClientOptions {
  url?: () => string;
  createSocket?: (url: string) => SocketLike;
  getToken?: () => string | null;
  /** Called when the stored token changes (sign-in, sign-out); returns an unsubscribe function. */
  onAuthChange?: (listener: () => void) => () => void;
  /** First reconnect delay; doubles up to `maxBackoffMs`, each with up to 50 % jitter off. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A ping every `pingMs`; a socket that did not answer anything by the next one is replaced. */
  pingMs?: number;
  /** How long the socket stays open after the last listener leaves (page changes reuse it). */
  lingerMs?: number;
  random?: () => number;
}

const OPEN = 1;

function defaultUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}/api/ws`;
}

export class RealtimeClient {
  private readonly opts: Required<RealtimeClientOptions>;
  private readonly subs = new Set<Subscription>();
  private readonly statusListeners = new Set<() => void>();
  private readonly subscribedListeners = new Set<(sns: string[] | null) => void>();
  private readonly transmitListeners = new Set<TransmitHandler>();
  private current: RealtimeStatus = 'idle';
  private socket: SocketLike | undefined;
  private ready = false;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private awaitingAnswer = false;
  /** The sns filter last sent to the server, as a key; undefined: none sent on this socket yet. */
  private sentFilter: string | undefined;
  private filterQueued = false;
  private stopAuth: (() => void) | undefined;

  constructor(options: RealtimeClientOptions = {}) {
    this.opts = {
      url: options.url ?? defaultUrl,
      createSocket: options.createSocket ?? ((url) => new WebSocket(url)),
      getToken: options.getToken ?? getToken,
      onAuthChange: options.onAuthChange ?? subscribeAuth,
      initialBackoffMs: options.initialBackoffMs ?? 1000,
      maxBackoffMs: options.maxBackoffMs ?? 30_000,
      pingMs: options.pingMs ?? 25_000,
      lingerMs: options.lingerMs ?? 5000,
      random: options.random ?? Math.random,
    };
  }

  status = (): RealtimeStatus => this.current;

  /**
   * Calls `listener` with the filter each time the server confirms one (`subscribed`: events of those devices flow
   * from here on; null = every device). A screen that loaded its data before its devices were subscribed reads it
   * again then, so nothing that happened in between is missed.
   */
  onSubscribed(listener: (sns: string[] | null) => void): () => void {
    this.subscribedListeners.add(listener);
    return () => this.subscribedListeners.delete(listener);
  }

  onStatus = (listener: () => void): (() => void) => {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  };

  /** Starts receiving; the returned function stops. */
  subscribe(
    filter: DeviceEventFilter,
    handler: Handler,
    ota?: OtaHandler,
    access?: AccessHandler,
  ): () => void {
    const sub: Subscription = {
      sns: filter.sns ? new Set(filter.sns) : null,
      types: filter.types ? new Set(filter.types) : null,
      handler,
      ota,
      access,
    };
    this.subs.add(sub);
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    if (!this.stopAuth) this.stopAuth = this.opts.onAuthChange(() => this.authChanged());
    // Also after a refusal: the token may have changed meanwhile (connect checks it).
    if (!this.socket && this.retryTimer === undefined) this.connect();
    this.queueFilter();
    return () => {
      if (!this.subs.delete(sub)) return;
      if (this.subs.size > 0) {
        this.queueFilter();
        return;
      }
      this.lingerTimer = setTimeout(() => {
        this.lingerTimer = undefined;
        if (this.subs.size === 0) this.shutdown();
      }, this.opts.lingerMs);
    };
  }

  /**
   * Starts receiving `ota.task` messages; the returned function stops. It is a listener that wants no device, so it
   * keeps the socket open without widening the server's device filter.
   */
  subscribeOta(handler: OtaHandler): () => void {
    return this.subscribe({ sns: [] }, () => undefined, handler);
  }

  /**
   * Starts receiving `data-transmit.counters` messages (a transmission rule's counters); the returned function
   * stops. Like `subscribeOta`, it keeps the socket open without widening the device filter.
   */
  subscribeTransmit(handler: TransmitHandler): () => void {
    this.transmitListeners.add(handler);
    const stop = this.subscribe({ sns: [] }, () => undefined);
    return () => {
      this.transmitListeners.delete(handler);
      stop();
    };
  }

  /** Closes the socket and forgets every listener (tests; sign-out is handled on its own). */
  shutdown(): void {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.stopAuth?.();
    this.stopAuth = undefined;
    this.subs.clear();
    this.transmitListeners.clear();
    this.drop();
    this.clearRetry();
    this.attempt = 0;
    this.setStatus('idle');
  }

  private connect(): void {
    this.clearRetry();
    this.drop();
    const token = this.opts.getToken();
    if (!token) {
      this.setStatus('signed-out');
      return;
    }
    this.setStatus(this.attempt === 0 ? 'connecting' : 'reconnecting');
    const socket = this.opts.createSocket(this.opts.url());
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.send({ type: 'auth', token });
    };
    socket.onmessage = (ev: MessageEvent) => {
      if (this.socket !== socket) return;
      this.awaitingAnswer = false;
      this.receive(ev.data);
    };
    socket.onclose = (ev: CloseEvent) => {
      if (this.socket !== socket) return;
      this.lost(ev.code);
    };
    // An error is always followed by close; close decides.
    socket.onerror = () => undefined;
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let msg: WsServerMessage;
    try {
      msg = JSON.parse(data) as WsServerMessage;
    } catch {
      return;
    }
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        this.attempt = 0;
        this.sentFilter = undefined;
        this.startPing();
        this.setStatus('open');
        this.syncFilter();
        return;
      case 'event':
        this.dispatch(msg.event);
        return;
      case 'ota.task':
        this.dispatchOta(msg);
        return;
      case 'access':
        this.dispatchAccess(msg.sns);
        return;
      case 'data-transmit.counters':
        for (const listener of [...this.transmitListeners]) {
          try {
            listener(msg);
          } catch (err) {
            console.error(err);
          }
        }
        return;
      case 'subscribed':
        for (const listener of [...this.subscribedListeners]) listener(msg.sns);
        return;
      default:
        return;
    }
  }

  private dispatch(event: DeviceEvent): void {
    for (const sub of [...this.subs]) {
      if (sub.sns && !sub.sns.has(event.sn)) continue;
      if (sub.types && !sub.types.has(event.type)) continue;
      try {
        sub.handler(event);
      } catch (err) {
        // One screen's bug must not stop the others' updates.
        console.error(err);
      }
    }
  }

  private dispatchAccess(sns: string[]): void {
    for (const sub of [...this.subs]) {
      if (!sub.access) continue;
      const named = sub.sns ? sns.filter((sn) => sub.sns!.has(sn)) : sns;
      if (named.length === 0) continue;
      try {
        sub.access(named);
      } catch (err) {
        console.error(err);
      }
    }
  }

  private dispatchOta(event: OtaTaskEvent): void {
    for (const sub of [...this.subs]) {
      if (!sub.ota) continue;
      try {
        sub.ota(event);
      } catch (err) {
        console.error(err);
      }
    }
  }

  private lost(code: number): void {
    this.drop();
    if (this.subs.size === 0) {
      this.setStatus('idle');
      return;
    }
    if (code === WS_CLOSE.unauthorized || code === WS_CLOSE.revoked) {
      // The token is no good; trying again with it would only be refused again. A new sign-in reconnects.
      this.attempt = 0;
      this.setStatus('signed-out');
      return;
    }
    const base = Math.min(this.opts.maxBackoffMs, this.opts.initialBackoffMs * 2 ** this.attempt);
    this.attempt++;
    const delay = Math.round(base * (0.5 + this.opts.random() * 0.5));
    this.setStatus('reconnecting');
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect();
    }, delay);
  }

  private authChanged(): void {
    if (this.subs.size === 0) return;
    // A new sign-in (or sign-out) makes the open socket's identity stale either way.
    this.attempt = 0;
    this.connect();
  }

  private startPing(): void {
    clearInterval(this.pingTimer);
    this.awaitingAnswer = false;
    this.pingTimer = setInterval(() => {
      if (this.awaitingAnswer) {
        // Nothing came back since the last ping: the connection is dead even if the browser has not noticed.
        this.socket?.close(4000, 'no answer');
        this.lost(1006);
        return;
      }
      this.awaitingAnswer = true;
      this.send({ type: 'ping' });
    }, this.opts.pingMs);
  }

  private queueFilter(): void {
    if (this.filterQueued) return;
    this.filterQueued = true;
    // Screens mounting together (list plus detail) produce one subscribe, not one each.
    queueMicrotask(() => {
      this.filterQueued = false;
      this.syncFilter();
    });
  }

  /** The server filter is the union of every listener's devices, or all when any listener wants all. */
  private syncFilter(): void {
    if (!this.ready) return;
    let sns: string[] | null = [];
    for (const sub of this.subs) {
      if (!sub.sns) {
        sns = null;
        break;
      }
      sns.push(...sub.sns);
    }
    if (sns) sns = [...new Set(sns)].sort();
    // Past the server's limit, ask for everything and filter here.
    if (sns && sns.length > 1000) sns = null;
    const key = JSON.stringify(sns);
    if (key === (this.sentFilter ?? 'null')) {
      this.sentFilter = key;
      return;
    }
    this.sentFilter = key;
    this.send({ type: 'subscribe', sns });
  }

  private send(msg: WsClientMessage): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(msg));
  }

  private drop(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = undefined;
    this.ready = false;
    this.sentFilter = undefined;
    const s = this.socket;
    this.socket = undefined;
    if (s) {
      s.onopen = s.onmessage = s.onerror = null;
      s.onclose = null;
      if (s.readyState <= OPEN) s.close(1000, 'client closing');
    }
  }

  private clearRetry(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private setStatus(status: RealtimeStatus): void {
    if (status === this.current) return;
    this.current = status;
    for (const l of [...this.statusListeners]) l();
  }
}

let shared: RealtimeClient | undefined;

/** The tab's one connection. */
export function realtimeClient(): RealtimeClient {
  shared ??= new RealtimeClient();
  return shared;
}

/**
 * Calls `handler` for each live device event matching `filter` while the component is mounted; `null` pauses.
 * The handler may change every render; the subscription only changes when the filter's contents do.
 */
export function useDeviceEvents(
  filter: DeviceEventFilter | null,
  handler: Handler,
  client: RealtimeClient = realtimeClient(),
): RealtimeStatus {
  const handlerRef = useRef(handler);
  useEffect(() => {
    handlerRef.current = handler;
  });
  const key = filter
    ? JSON.stringify([
        filter.sns ? [...filter.sns].sort() : null,
        filter.types ? [...filter.types].sort() : null,
      ])
    : undefined;
  // Rebuilt only when the key changes, so a new array literal each render does not resubscribe.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stable = useMemo(() => filter, [key]);
  useEffect(() => {
    if (!stable) return;
    return client.subscribe(stable, (event) => handlerRef.current(event));
  }, [stable, client]);
  return useSyncExternalStore(client.onStatus, client.status);
}

/**
 * Calls `onCovered` when the server confirms a filter that covers all of `sns` (or every device): the moment from
 * which no event of theirs is missed. A list loaded before that moment reads itself again there (a device that came
 * online between the load and the subscription would otherwise show offline until the next refetch).
 */
export function useSubscribedDevices(
  sns: readonly string[],
  onCovered: () => void,
  client: RealtimeClient = realtimeClient(),
): void {
  const ref = useRef(onCovered);
  useEffect(() => {
    ref.current = onCovered;
  });
  const key = JSON.stringify([...sns].sort());
  useEffect(() => {
    const wanted: string[] = JSON.parse(key) as string[];
    if (wanted.length === 0) return;
    return client.onSubscribed((confirmed) => {
      if (confirmed === null || wanted.every((sn) => confirmed.includes(sn))) ref.current();
    });
  }, [key, client]);
}

/**
 * Calls `handler` for each `ota.task` message (an OTA task's state and counts changed, or it was deleted) while the
 * component is mounted and `enabled`. The handler may change every render.
 */
export function useOtaTaskEvents(
  handler: OtaHandler,
  enabled = true,
  client: RealtimeClient = realtimeClient(),
): RealtimeStatus {
  const handlerRef = useRef(handler);
  useEffect(() => {
    handlerRef.current = handler;
  });
  useEffect(() => {
    if (!enabled) return;
    return client.subscribeOta((event) => handlerRef.current(event));
  }, [enabled, client]);
  return useSyncExternalStore(client.onStatus, client.status);
}

/**
 * Calls `onChange` with the devices of `sns` whose access changed for the signed-in user (a share of them was made,
 * changed or ended) while the component is mounted; an empty list pauses. The page re-reads them: a device the
 * user may no longer see then answers as missing, a new right shows.
 */
export function useDeviceAccess(
  sns: readonly string[],
  onChange: AccessHandler,
  client: RealtimeClient = realtimeClient(),
): void {
  const ref = useRef(onChange);
  useEffect(() => {
    ref.current = onChange;
  });
  const key = [...sns].sort().join('\n');
  useEffect(() => {
    if (!key) return;
    return client.subscribe(
      { sns: key.split('\n'), types: [] },
      () => undefined,
      undefined,
      (changed) => ref.current(changed),
    );
  }, [key, client]);
}

/**
 * Calls `handler` for each `data-transmit.counters` message (a transmission rule's counters changed) while the
 * component is mounted and `enabled`. The handler may change every render.
 */
export function useTransmitEvents(
  handler: TransmitHandler,
  enabled = true,
  client: RealtimeClient = realtimeClient(),
): RealtimeStatus {
  const handlerRef = useRef(handler);
  useEffect(() => {
    handlerRef.current = handler;
  });
  useEffect(() => {
    if (!enabled) return;
    return client.subscribeTransmit((event) => handlerRef.current(event));
  }, [enabled, client]);
  return useSyncExternalStore(client.onStatus, client.status);
}
