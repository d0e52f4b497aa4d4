import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeviceEvent, WsClientMessage, WsServerMessage } from '@cellhub/contract/realtime';
import { clearAuth, setToken } from './auth';
import { RealtimeClient, type SocketLike, useDeviceEvents, useSubscribedDevices } from './realtime';

/** A WebSocket the test drives from the server's side. */
class MockSocket implements SocketLike {
  static all: MockSocket[] = [];
  readyState = 0;
  sent: WsClientMessage[] = [];
  closedWith: number | undefined;
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;

  constructor(readonly url: string) {
    MockSocket.all.push(this);
  }
  static last(): MockSocket {
    const s = MockSocket.all.at(-1);
    if (!s) throw new Error('no socket');
    return s;
  }
  send(data: string) {
    this.sent.push(JSON.parse(data) as WsClientMessage);
  }
  close(code = 1000) {
    this.closedWith = code;
    this.readyState = 3;
  }
  // Server side
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  receive(msg: WsServerMessage) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(msg) }));
  }
  /** Opens, answers the auth message and leaves the socket ready. */
  accept(uid = 1) {
    this.open();
    this.receive({ type: 'ready', uid });
  }
  drop(code = 1006) {
    this.readyState = 3;
    this.onclose?.(new CloseEvent('close', { code }));
  }
}

const event = (sn: string, type: DeviceEvent['type'] = 'device.online'): DeviceEvent =>
  type === 'device.online'
    ? { type, sn, product_key: 'pk', online: 1, at: '2025-01-01T00:00:00.000Z' }
    : { type: 'device.properties', sn, product_key: 'pk', ts: '2025-01-01T00:00:00.000Z', values: { t: 1 } };

const flush = () => Promise.resolve();

let client: RealtimeClient;

beforeEach(() => {
  vi.useFakeTimers();
  MockSocket.all = [];
  setToken('tok-1', 1);
  client = new RealtimeClient({
    url: () => 'ws://test/api/ws',
    createSocket: (url) => new MockSocket(url),
    random: () => 1,
    initialBackoffMs: 1000,
    maxBackoffMs: 8000,
    pingMs: 25_000,
    lingerMs: 5000,
  });
});
afterEach(() => {
  client.shutdown();
  vi.useRealTimers();
});

describe('RealtimeClient', () => {
  it('opens one socket, signs in with the stored token and sends the union of the listeners’ devices', async () => {
    client.subscribe({ sns: ['B', 'A'] }, () => undefined);
    client.subscribe({ sns: ['C'] }, () => undefined);
    expect(MockSocket.all).toHaveLength(1);
    expect(client.status()).toBe('connecting');
    const s = MockSocket.last();
    expect(s.url).toBe('ws://test/api/ws');
    s.accept();
    await flush();
    expect(client.status()).toBe('open');
    expect(s.sent).toEqual([
      { type: 'auth', token: 'tok-1' },
      { type: 'subscribe', sns: ['A', 'B', 'C'] },
    ]);
  });

  it('tells a screen when the server confirms a filter covering its devices, not before and not for others', async () => {
    const covered = vi.fn();
    renderHook(() => useSubscribedDevices(['A', 'B'], covered, client));
    client.subscribe({ sns: ['A', 'B'] }, () => undefined);
    const s = MockSocket.last();
    s.accept();
    await flush();
    expect(covered).not.toHaveBeenCalled();
    act(() => s.receive({ type: 'subscribed', sns: ['A'] }));
    expect(covered).not.toHaveBeenCalled();
    act(() => s.receive({ type: 'subscribed', sns: ['A', 'B', 'C'] }));
    expect(covered).toHaveBeenCalledTimes(1);
    act(() => s.receive({ type: 'subscribed', sns: null }));
    expect(covered).toHaveBeenCalledTimes(2);
  });

  it('asks for every device when one listener wants all, and filters for the others itself', async () => {
    const onlyA: string[] = [];
    const all: string[] = [];
    const props: string[] = [];
    client.subscribe({ sns: ['A'] }, (e) => onlyA.push(e.sn));
    client.subscribe({}, (e) => all.push(e.sn));
    client.subscribe({ types: ['device.properties'] }, (e) => props.push(e.sn));
    const s = MockSocket.last();
    s.accept();
    await flush();
    // Null is the server's default after sign-in, so nothing needs sending.
    expect(s.sent.filter((m) => m.type === 'subscribe')).toEqual([]);
    s.receive({ type: 'event', event: event('A') });
    s.receive({ type: 'event', event: event('B', 'device.properties') });
    expect(onlyA).toEqual(['A']);
    expect(all).toEqual(['A', 'B']);
    expect(props).toEqual(['B']);
  });

  it('reconnects with growing delays and signs in again each time', async () => {
    const seen: string[] = [];
    client.subscribe({ sns: ['A'] }, (e) => seen.push(e.sn));
    MockSocket.last().accept();
    await flush();

    MockSocket.last().drop(1006);
    expect(client.status()).toBe('reconnecting');
    vi.advanceTimersByTime(999);
    expect(MockSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(MockSocket.all).toHaveLength(2);

    // The server is still down: 2 s, then 4 s, then capped at 8 s.
    MockSocket.last().drop(1006);
    vi.advanceTimersByTime(1999);
    expect(MockSocket.all).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(MockSocket.all).toHaveLength(3);
    MockSocket.last().drop(1006);
    vi.advanceTimersByTime(4000);
    MockSocket.last().drop(1006);
    vi.advanceTimersByTime(8000);
    MockSocket.last().drop(1006);
    vi.advanceTimersByTime(8000);
    expect(MockSocket.all).toHaveLength(6);

    const s = MockSocket.last();
    s.accept();
    await flush();
    expect(client.status()).toBe('open');
    expect(s.sent).toEqual([
      { type: 'auth', token: 'tok-1' },
      { type: 'subscribe', sns: ['A'] },
    ]);
    s.receive({ type: 'event', event: event('A') });
    expect(seen).toEqual(['A']);

    // A success resets the backoff.
    s.drop(1001);
    vi.advanceTimersByTime(1000);
    expect(MockSocket.all).toHaveLength(7);
  });

  it('stops after a refused or revoked token and reconnects on the next sign-in', async () => {
    client.subscribe({}, () => undefined);
    MockSocket.last().open();
    MockSocket.last().drop(4403);
    expect(client.status()).toBe('signed-out');
    vi.advanceTimersByTime(60_000);
    expect(MockSocket.all).toHaveLength(1);

    setToken('tok-2', 1);
    expect(MockSocket.all).toHaveLength(2);
    MockSocket.last().open();
    expect(MockSocket.last().sent[0]).toEqual({ type: 'auth', token: 'tok-2' });
  });

  it('waits for a sign-in when there is no token, and closes the socket on sign-out', () => {
    clearAuth();
    client.subscribe({}, () => undefined);
    expect(client.status()).toBe('signed-out');
    expect(MockSocket.all).toHaveLength(0);
    setToken('tok-3', 2);
    expect(MockSocket.all).toHaveLength(1);
    const s = MockSocket.last();
    s.accept(2);
    clearAuth();
    expect(s.closedWith).toBe(1000);
    expect(client.status()).toBe('signed-out');
  });

  it('replaces a socket that stops answering pings', async () => {
    client.subscribe({}, () => undefined);
    const s = MockSocket.last();
    s.accept();
    await flush();
    vi.advanceTimersByTime(25_000);
    expect(s.sent.at(-1)).toEqual({ type: 'ping' });
    s.receive({ type: 'pong' });
    vi.advanceTimersByTime(25_000);
    expect(MockSocket.all).toHaveLength(1);
    // No answer to this second ping by the next beat.
    vi.advanceTimersByTime(25_000);
    expect(s.closedWith).toBe(4000);
    vi.advanceTimersByTime(1000);
    expect(MockSocket.all).toHaveLength(2);
  });
});

describe('useDeviceEvents', () => {
  it('delivers events to the latest handler, keeps one subscription across renders, and lets go after unmount', async () => {
    const calls: string[] = [];
    const { result, rerender, unmount } = renderHook(
      ({ tag }: { tag: string }) =>
        useDeviceEvents({ sns: ['A', 'B'] }, (e) => calls.push(`${tag}:${e.sn}`), client),
      { initialProps: { tag: 'first' } },
    );
    expect(result.current).toBe('connecting');
    const s = MockSocket.last();
    await act(async () => {
      s.accept();
      await flush();
    });
    expect(result.current).toBe('open');
    rerender({ tag: 'second' });
    await act(flush);
    act(() => s.receive({ type: 'event', event: event('B') }));
    act(() => s.receive({ type: 'event', event: event('Z') }));
    expect(calls).toEqual(['second:B']);
    expect(s.sent.filter((m) => m.type === 'subscribe')).toHaveLength(1);

    unmount();
    vi.advanceTimersByTime(4999);
    expect(s.closedWith).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(s.closedWith).toBe(1000);
    expect(client.status()).toBe('idle');
  });

  it('does not subscribe while the filter is null', () => {
    renderHook(() => useDeviceEvents(null, () => undefined, client));
    expect(MockSocket.all).toHaveLength(0);
  });
});
