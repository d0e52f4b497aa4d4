import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OtaTaskEvent, WsClientMessage, WsServerMessage } from '@cellhub/contract/realtime';
import { setToken } from './auth';
import { RealtimeClient, type SocketLike, useDeviceAccess, useOtaTaskEvents } from './realtime';

/** A WebSocket the test drives from the server's side. */
class MockSocket implements SocketLike {
  static all: MockSocket[] = [];
  readyState = 0;
  sent: WsClientMessage[] = [];
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
  close() {
    this.readyState = 3;
  }
  receive(msg: WsServerMessage) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(msg) }));
  }
  accept(uid = 1) {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
    this.receive({ type: 'ready', uid });
  }
}

const otaEvent = (id: number, over: Partial<OtaTaskEvent> = {}): OtaTaskEvent => ({
  type: 'ota.task',
  id,
  product_key: 'pk',
  status: 'running',
  pause_reason: null,
  device_count: 3,
  success_count: 1,
  fail_count: 0,
  upgrading_count: 1,
  pending_count: 1,
  skipped_count: 0,
  cancelled_count: 0,
  at: '2025-01-01T00:00:00.000Z',
  ...over,
});

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
    lingerMs: 5000,
  });
});
afterEach(() => {
  client.shutdown();
  vi.useRealTimers();
});

describe('ota.task messages', () => {
  it('reach OTA listeners only, and an OTA-only listener asks the server for no device events', async () => {
    const ota = vi.fn();
    const stop = client.subscribeOta(ota);
    const socket = MockSocket.last();
    socket.accept();
    await flush();
    expect(socket.sent).toEqual([
      { type: 'auth', token: 'tok-1' },
      { type: 'subscribe', sns: [] },
    ]);

    const devices = vi.fn();
    client.subscribe({ sns: ['A'] }, devices);
    await flush();
    expect(socket.sent.at(-1)).toEqual({ type: 'subscribe', sns: ['A'] });

    socket.receive(otaEvent(7));
    socket.receive({
      type: 'event',
      event: { type: 'device.online', sn: 'A', product_key: 'pk', online: 1, at: '2025-01-01T00:00:00Z' },
    });
    expect(ota).toHaveBeenCalledTimes(1);
    expect(ota.mock.calls[0]?.[0]).toMatchObject({ id: 7, success_count: 1 });
    expect(devices).toHaveBeenCalledTimes(1);

    stop();
    socket.receive(otaEvent(7, { status: 'done' }));
    expect(ota).toHaveBeenCalledTimes(1);
  });

  it('useOtaTaskEvents follows the latest handler, pauses when disabled, and lets go after unmount', async () => {
    const seen: string[] = [];
    const { rerender, unmount, result } = renderHook(
      ({ tag, enabled }: { tag: string; enabled: boolean }) =>
        useOtaTaskEvents((e) => seen.push(`${tag}:${e.id}:${e.status}`), enabled, client),
      { initialProps: { tag: 'a', enabled: true } },
    );
    const socket = MockSocket.last();
    act(() => socket.accept());
    await act(flush);
    expect(result.current).toBe('open');

    act(() => socket.receive(otaEvent(1)));
    rerender({ tag: 'b', enabled: true });
    act(() => socket.receive(otaEvent(1, { status: 'paused', pause_reason: 'failure_threshold' })));
    expect(seen).toEqual(['a:1:running', 'b:1:paused']);
    expect(MockSocket.all).toHaveLength(1);

    rerender({ tag: 'b', enabled: false });
    act(() => socket.receive(otaEvent(2)));
    expect(seen).toHaveLength(2);

    rerender({ tag: 'c', enabled: true });
    act(() => socket.receive(otaEvent(3, { deleted: true })));
    expect(seen.at(-1)).toBe('c:3:running');

    unmount();
    act(() => socket.receive(otaEvent(4)));
    expect(seen).toHaveLength(3);
  });
});

describe('access messages', () => {
  it('reach the access listeners of the devices they name, with only those devices', async () => {
    const changed = vi.fn();
    const other = vi.fn();
    const { unmount } = renderHook(() => useDeviceAccess(['A', 'B'], changed, client));
    renderHook(() => useDeviceAccess(['C'], other, client));
    const socket = MockSocket.last();
    socket.accept();
    await flush();
    expect(socket.sent.at(-1)).toEqual({ type: 'subscribe', sns: ['A', 'B', 'C'] });

    socket.receive({ type: 'access', sns: ['B', 'Z'] });
    expect(changed).toHaveBeenCalledWith(['B']);
    expect(other).not.toHaveBeenCalled();
    // Device events do not reach an access listener.
    socket.receive({
      type: 'event',
      event: { type: 'device.online', sn: 'A', product_key: 'pk', online: 1, at: '2025-01-01T00:00:00Z' },
    });
    expect(changed).toHaveBeenCalledTimes(1);

    unmount();
    socket.receive({ type: 'access', sns: ['A'] });
    expect(changed).toHaveBeenCalledTimes(1);
  });
});
