import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import type { WsClientMessage, WsServerMessage } from '@cellhub/contract/realtime';

/** A test's view of one /api/ws connection: every message kept in order, waits with a deadline. */
export interface TestSocket {
  messages: WsServerMessage[];
  send(msg: WsClientMessage | string): void;
  /** Resolves with the first message (already received or future) that matches, else rejects after `ms`. */
  next<T extends WsServerMessage['type']>(
    type: T,
    match?: (m: Extract<WsServerMessage, { type: T }>) => boolean,
    ms?: number,
  ): Promise<Extract<WsServerMessage, { type: T }>>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
  /** Calls `listener` with each message as it arrives (a latency is measured then, not when a test looks). */
  listen(listener: (m: WsServerMessage) => void): () => void;
}

export async function listenUrl(app: FastifyInstance): Promise<string> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return `${address.replace(/^http/, 'ws')}/api/ws`;
}

export async function openSocket(url: string): Promise<TestSocket> {
  const ws = new WebSocket(url);
  const messages: WsServerMessage[] = [];
  const waiters = new Set<() => void>();
  const listeners = new Set<(m: WsServerMessage) => void>();
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as WsServerMessage;
    messages.push(m);
    for (const l of listeners) l(m);
    for (const w of waiters) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    messages,
    closed,
    send: (msg) => ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg)),
    close: () => ws.close(),
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    next(type, match, ms = 3000) {
      type M = Extract<WsServerMessage, { type: typeof type }>;
      const find = () =>
        messages.find((m): m is M => m.type === type && (!match || match(m as M))) as M | undefined;
      return new Promise<M>((resolve, reject) => {
        const check = () => {
          const found = find();
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no "${type}" message within ${ms} ms; got ${JSON.stringify(messages)}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
  };
}

/** Opens a socket and signs it in. */
export async function signedInSocket(url: string, token: string): Promise<TestSocket> {
  const s = await openSocket(url);
  s.send({ type: 'auth', token });
  await s.next('ready');
  return s;
}
