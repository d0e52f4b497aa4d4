import type { ForwardRuleItem } from '@cellhub/contract/forwarding';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderPage } from '../../../lib/mock-api.test-kit';
import ForwardDetailPage from './forward-detail-page';
import ForwardEditPage from './forward-edit-page';
import ForwardListPage from './forward-list-page';

beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));
afterEach(() => vi.unstubAllGlobals());

const ME = { uid: 7, username: 'alice', phone: '', email: '', role: 'user' };
const stamp = '2026-11-20T08:00:00.000Z';
const RULE: ForwardRuleItem = {
  id: 3,
  name: 'Ticket webhook',
  enabled: true,
  status: 'paused',
  paused_reason: 'HTTP 503',
  paused_at: stamp,
  product_key: null,
  sns: [],
  kinds: ['property', 'online'],
  target: {
    kind: 'http',
    method: 'POST',
    url: 'https://example.com/hook',
    headers: [{ name: 'X-Key', value: 'k' }],
    body_template: '{"device": "{{sn}}"}',
    batch_max: 1,
  },
  counters: { delivered: 12, failed: 4, dead: 1, pending: 7 },
  last_error: 'HTTP 503',
  created_at: stamp,
  updated_at: stamp,
};

describe('forwarding pages', () => {
  it('lists rules with status and counters, and the switch turns a rule off', async () => {
    const calls = mockApi({
      'GET /api/forwarding': { data: [RULE], total: 1 },
      'GET /api/user/info': { data: ME },
      'PUT /api/forwarding/3/enabled': (body) => ({
        data: { ...RULE, enabled: (body as { enabled: boolean }).enabled },
      }),
    });
    renderPage(ForwardListPage, '/data-transmit/forward/list', '/data-transmit/forward/list');
    const row = (await screen.findByText('Ticket webhook')).closest('tr')!;
    expect(within(row).getByText('Paused')).toBeTruthy();
    expect(within(row).getByText('POST https://example.com/hook')).toBeTruthy();
    expect(within(row).getByText('Properties, Online')).toBeTruthy();
    fireEvent.click(within(row).getByRole('switch'));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ enabled: false }));
  });

  it('shows the empty state', async () => {
    mockApi({ 'GET /api/forwarding': { data: [], total: 0 }, 'GET /api/user/info': { data: ME } });
    renderPage(ForwardListPage, '/data-transmit/forward/list', '/data-transmit/forward/list');
    expect(await screen.findByText('No forwarding rules yet')).toBeTruthy();
  });

  it('previews the body template with a sample message and shows the secret once after creating', async () => {
    const calls = mockApi({
      'GET /api/user/info': { data: ME },
      'GET /api/products': { data: [], total: 0 },
      'POST /api/forwarding': () => ({ data: { ...RULE, id: 9, secret: 'the-secret-shown-once' } }),
    });
    renderPage(ForwardEditPage, '/data-transmit/forward/create', '/data-transmit/forward/create');
    fireEvent.change(await screen.findByTestId('forward-name'), { target: { value: 'New' } });
    fireEvent.change(screen.getByTestId('forward-url'), { target: { value: 'https://example.com/in' } });
    fireEvent.change(screen.getByTestId('forward-body'), {
      target: { value: '{"device": "{{sn}}", "temp": {{data.params.temp}}}' },
    });
    await waitFor(() => expect(screen.getByTestId('forward-preview').textContent).toContain('"temp": 23.5'));
    expect(screen.getByTestId('forward-preview').textContent).toContain('"device": "SN0001"');
    const body = () => screen.getByTestId('forward-preview').querySelector('pre')?.textContent?.trim() ?? '';
    expect(body().startsWith('{')).toBe(true);
    // Batching: the preview shows the array a receiver gets, and the setting is sent.
    fireEvent.change(screen.getByTestId('forward-batch'), { target: { value: '20' } });
    fireEvent.blur(screen.getByTestId('forward-batch'));
    await waitFor(() => expect(body().startsWith('[')).toBe(true));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const sent = calls.find((c) => c.method === 'POST')!.body as { target: { url: string; kind: string } };
    expect(sent.target).toMatchObject({ kind: 'http', url: 'https://example.com/in', batch_max: 20 });
    expect(await screen.findByText('Signing secret')).toBeTruthy();
    expect(screen.getByTestId('forward-secret')).toBeTruthy();
  });

  it('shows counters, the paused reason, dead letters with replay and a test send with the real answer', async () => {
    const calls = mockApi({
      'GET /api/user/info': { data: ME },
      'GET /api/forwarding/3': { data: RULE },
      'GET /api/forwarding/3/stats': {
        data: { counters: RULE.counters, step: 1800, points: [], avg_ms: 40, max_ms: 90 },
      },
      'GET /api/forwarding/3/dead': {
        data: [
          {
            id: 51,
            message_id: 'm-1',
            sn: 'SN-1',
            kind: 'property',
            attempts: 1,
            last_error: 'HTTP 400',
            stored_at: stamp,
            died_at: stamp,
            message: {},
          },
        ],
        total: 1,
      },
      'POST /api/forwarding/3/dead/replay': { data: { replayed: 1 } },
      'POST /api/forwarding/3/test': {
        data: {
          ok: false,
          status: 503,
          headers: { 'retry-after': '5' },
          body_excerpt: 'down for maintenance',
          duration_ms: 12,
          error: 'HTTP 503',
          request_body: '{}',
          message_id: 'test-1',
        },
      },
    });
    renderPage(ForwardDetailPage, '/data-transmit/forward/detail/:id', '/data-transmit/forward/detail/3');
    expect(await screen.findByText(/Paused because the target kept failing: HTTP 503/)).toBeTruthy();
    expect(await screen.findByText('Stored to delivered: mean 40 ms, max 90 ms')).toBeTruthy();
    const dead = (await screen.findByText('SN-1')).closest('tr')!;
    fireEvent.click(within(dead).getByRole('button', { name: 'Replay' }));
    await waitFor(() => expect(calls.find((c) => c.path.endsWith('/replay'))?.body).toEqual({ ids: [51] }));
    fireEvent.click(screen.getByRole('button', { name: 'Send a sample' }));
    expect(await screen.findByText('down for maintenance')).toBeTruthy();
    expect(screen.getByText(/The target refused it · Status 503 · Time 12 ms/)).toBeTruthy();
    expect(screen.getByText(/retry-after: 5/)).toBeTruthy();
  });
});
