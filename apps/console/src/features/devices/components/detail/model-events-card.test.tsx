import { render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi } from '../../../../lib/mock-api.test-kit';
import ModelEventsCard from './model-events-card';
import locale from './model-events.locale';

afterEach(() => vi.unstubAllGlobals());
const zh = locale['zh-CN'];

const model = (events: unknown[]) => ({
  data: { product_key: 'pkfleet', product_name: 'Fleet DTU', properties: [], events, services: [] },
});

function show() {
  localStorage.setItem('token', 'test-token');
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <ModelEventsCard productKey="pkfleet" />
    </QueryClientProvider>,
  );
}

describe("the device page's thing-model events", () => {
  it('lists the defined events with level and output, and says no occurrence is recorded', async () => {
    const calls = mockApi({
      'GET /api/thing-models/pkfleet': model([
        {
          key: 'overheat',
          name: '过热',
          name_us: 'Overheat',
          level: 'warn',
          output: [{ key: 'temp', name: '温度', datatype: 'float', unit: '°C' }],
        },
        { key: 'door_open', name: '门开', name_us: '', level: 'info', output: [] },
      ]),
    });
    show();
    const card = await screen.findByTestId('model-events');
    const rows = [...card.querySelectorAll('tbody tr')];
    expect(rows.map((r) => r.querySelector('td')?.textContent)).toEqual([
      '过热 (overheat)',
      '门开 (door_open)',
    ]);
    expect(within(rows[0] as HTMLElement).getByText(zh['me.level.warn'])).toBeTruthy();
    expect(within(rows[0] as HTMLElement).getByText('温度 (temp): float, °C')).toBeTruthy();
    // No occurrence data exists: the notice says so, and no count or time column is made up.
    expect(within(card).getByText(zh['me.noData'])).toBeTruthy();
    expect([...card.querySelectorAll('th')].map((th) => th.textContent)).toEqual([
      zh['me.event'],
      zh['me.level'],
      zh['me.output'],
    ]);
    expect(calls.map((c) => c.path)).toEqual(['/api/thing-models/pkfleet']);
  });

  it('says when the model defines no events', async () => {
    mockApi({ 'GET /api/thing-models/pkfleet': model([]) });
    show();
    expect(await screen.findByText(zh['me.none'])).toBeTruthy();
  });

  it('shows nothing when the model cannot be read', async () => {
    const calls = mockApi({ 'GET /api/thing-models/pkfleet': { refuse: 10108 } });
    show();
    await vi.waitFor(() => expect(calls.length).toBe(1));
    expect(screen.queryByTestId('model-events')).toBeNull();
  });
});
