import { act, render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WsServerMessage } from '@cellhub/contract/realtime';
import type { DeviceEventItem } from '@cellhub/contract/thing-model';
import { mockApi } from '../../../../lib/mock-api.test-kit';
import { RealtimeClient, type SocketLike } from '../../../../lib/realtime';
import ModelEventsCard from './model-events-card';
import locale from './model-events.locale';

afterEach(() => vi.unstubAllGlobals());
const zh = locale['zh-CN'];

/** A WebSocket driven from the server's side. */
class FakeSocket implements SocketLike {
  readyState = 0;
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  send() {}
  close() {
    this.readyState = 3;
  }
  receive(msg: WsServerMessage) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(msg) }));
  }
}

const model = (events: unknown[]) => ({
  data: { product_key: 'pkfleet', product_name: 'Fleet DTU', properties: [], events, services: [] },
});
const EVENTS = [
  {
    key: 'overheat',
    name: '过热',
    name_us: 'Overheat',
    level: 'error',
    output: [
      { key: 'temp', name: '温度', datatype: 'float', unit: '°C' },
      { key: 'ok', name: '恢复', datatype: 'bool', unit: '' },
    ],
  },
  { key: 'door_open', name: '门开', name_us: '', level: 'info', output: [] },
];
const occurrence = (id: number, event: string, level: string, params: object): DeviceEventItem =>
  ({
    id,
    event,
    name: event,
    name_us: '',
    level,
    params,
    ts: new Date(Date.UTC(2026, 0, 2, 3, id)).toISOString(),
    received_at: new Date().toISOString(),
  }) as DeviceEventItem;

function show(realtime?: RealtimeClient) {
  localStorage.setItem('token', 'test-token');
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <ModelEventsCard sn="SN-1" realtime={realtime} />
    </QueryClientProvider>,
  );
}

const rowsOf = (card: HTMLElement) =>
  [...card.querySelectorAll('tbody tr')].map((r) =>
    [...r.querySelectorAll('td')].map((td) => td.textContent),
  );

describe("the device page's thing-model events", () => {
  it('lists occurrences with time, name, level and parameters named by the model, and follows the stream', async () => {
    let stored = [
      occurrence(2, 'overheat', 'error', { temp: 81.5, ok: false }),
      occurrence(1, 'door_open', 'info', {}),
    ];
    const calls = mockApi({
      'GET /api/devices/SN-1/thing-model': model(EVENTS),
      'GET /api/devices/SN-1/events': () => ({ data: stored, total: stored.length }),
    });
    let socket: FakeSocket | undefined;
    const realtime = new RealtimeClient({
      url: () => 'ws://test/api/ws',
      getToken: () => 'test-token',
      createSocket: () => (socket = new FakeSocket()),
    });
    show(realtime);
    const card = await screen.findByTestId('model-events');
    await vi.waitFor(() => expect(rowsOf(card)).toHaveLength(2));
    const rows = rowsOf(card);
    expect(rows.map((r) => r.slice(1))).toEqual([
      ['过热 (overheat)', zh['me.level.error'], '温度: 81.5 °C; 恢复: 否'],
      ['门开 (door_open)', zh['me.level.info'], '-'],
    ]);
    expect(rows[0]![0]).toMatch(/2026/);
    expect([...card.querySelectorAll('th')].map((th) => th.textContent)).toEqual([
      zh['me.time'],
      zh['me.event'],
      zh['me.level'],
      zh['me.params'],
    ]);
    expect(calls.find((c) => c.path === '/api/devices/SN-1/events')!.query.get('per_page')).toBe('20');

    // A new occurrence arrives on the stream: the list is read again and shows it first.
    await vi.waitFor(() => expect(socket).toBeDefined());
    act(() => {
      socket!.readyState = 1;
      socket!.onopen?.(new Event('open'));
      socket!.receive({ type: 'ready', uid: 1 });
    });
    stored = [occurrence(3, 'overheat', 'error', { temp: 90 }), ...stored];
    act(() =>
      socket!.receive({
        type: 'event',
        event: {
          type: 'device.event',
          sn: 'SN-1',
          product_key: 'pkfleet',
          id: 3,
          event: 'overheat',
          level: 'error',
          params: { temp: 90 },
          ts: stored[0]!.ts,
        },
      }),
    );
    await vi.waitFor(() => expect(rowsOf(card)).toHaveLength(3));
    expect(rowsOf(card)[0]![3]).toBe('温度: 90 °C');
  });

  it('says when the device reported nothing', async () => {
    mockApi({
      'GET /api/devices/SN-1/thing-model': model(EVENTS),
      'GET /api/devices/SN-1/events': { data: [], total: 0 },
    });
    show();
    expect(await screen.findByText(zh['me.empty'])).toBeTruthy();
  });

  it('says when the model defines no events', async () => {
    mockApi({
      'GET /api/devices/SN-1/thing-model': model([]),
      'GET /api/devices/SN-1/events': { data: [], total: 0 },
    });
    show();
    expect(await screen.findByText(zh['me.none'])).toBeTruthy();
  });

  it('shows nothing when the device cannot be read', async () => {
    const calls = mockApi({
      'GET /api/devices/SN-1/thing-model': { refuse: 10117 },
      'GET /api/devices/SN-1/events': { refuse: 10117 },
    });
    show();
    await vi.waitFor(() => expect(calls.some((c) => c.path === '/api/devices/SN-1/thing-model')).toBe(true));
    expect(screen.queryByTestId('model-events')).toBeNull();
    expect(within(document.body).queryByText(zh['me.title'])).toBeNull();
  });
});
