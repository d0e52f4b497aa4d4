import type { IncomingShareItem, OutgoingShareItem } from '@cellhub/contract/shares';
/**
 * My Shares against a mocked API: the three tabs show what the server answers, and revoke, leave, change and
 * revoke-link send the calls the contract names, each after its confirmation.
 */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { list, mockApi, ok, renderAt, type Call } from '../share-api.test-kit';
import MyShareListPage from './my-share-list-page';

const toasts = vi.hoisted(() => [] as { kind: string; content: string }[]);
vi.mock('../../../lib/toast', () => ({
  toast: (kind: string, content: string) => toasts.push({ kind, content }),
  loadToasts: () => Promise.resolve(),
}));

let calls: Call[] = [];
let answer: (c: Call) => unknown;

beforeEach(() => {
  localStorage.setItem('arco-locale', 'en-US');
  toasts.length = 0;
  calls = mockApi((c) => answer(c));
});
afterEach(() => vi.unstubAllGlobals());

const OUTGOING: OutgoingShareItem = {
  id: 7,
  sn: 'SN-OUT-1',
  device_name: 'Pump house',
  product_key: 'dtu4g',
  product_name: 'DTU-4G',
  to_uid: 3,
  to_username: 'bob',
  to_phone: '138****0000',
  right: 'view',
  created_at: '2026-11-20T08:00:00.000Z',
  updated_at: '2026-11-20T08:00:00.000Z',
  expires_at: '2026-11-21T08:00:00.000Z',
  expired: true,
};
const INCOMING: IncomingShareItem = {
  id: 9,
  sn: 'SN-IN-1',
  device_name: 'Boiler',
  product_key: 'dtu4g',
  product_name: 'DTU-4G',
  owner_username: 'alice',
  right: 'control',
  since: '2026-11-20T08:00:00.000Z',
  expires_at: null,
};
const LINK = {
  id: 3,
  devices: 4,
  right: 'view',
  uses: 2,
  max_uses: 5,
  expires_at: null,
  created_at: '2026-11-20T08:00:00.000Z',
  spent: false,
};

const open = (path = '/myshare/list') =>
  renderAt(path, [{ path: '/myshare/list', element: <MyShareListPage /> }]);

const OK = /^(OK|确定)$/;

/** Clicks a row's text button, then the OK of its confirmation. */
async function confirmAction(row: HTMLElement, name: string) {
  fireEvent.click(within(row).getByRole('button', { name }));
  fireEvent.click(await screen.findByRole('button', { name: OK }));
}

describe('My Shares', () => {
  it('lists what I shared with the receiver, right and expiry, and revokes after a confirmation', async () => {
    answer = (c) => (c.method === 'DELETE' ? ok(null) : list(c.path.endsWith('outgoing') ? [OUTGOING] : []));
    open();
    const row = (await screen.findByText('SN-OUT-1')).closest('tr')!;
    expect(within(row).getByText('Pump house')).toBeTruthy();
    expect(within(row).getByText('bob')).toBeTruthy();
    expect(within(row).getByText('138****0000')).toBeTruthy();
    expect(within(row).getByText('View')).toBeTruthy();
    expect(within(row).getByText('Expired')).toBeTruthy();
    await confirmAction(row, 'Revoke');
    await waitFor(() =>
      expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/shares/7')).toBe(true),
    );
    // The list is read again once the share is gone.
    const reads = () => calls.filter((c) => c.method === 'GET' && c.path === '/api/shares/outgoing').length;
    await waitFor(() => expect(reads()).toBe(2));
  });

  it('changes the right of a share in a modal and clears an expiry already past', async () => {
    answer = (c) => (c.method === 'PUT' ? ok(null) : list(c.path.endsWith('outgoing') ? [OUTGOING] : []));
    open();
    const row = (await screen.findByText('SN-OUT-1')).closest('tr')!;
    fireEvent.click(within(row).getByRole('button', { name: 'Change' }));
    const modal = await screen.findByRole('dialog');
    expect(within(modal).getByText('bob')).toBeTruthy();
    fireEvent.click(within(modal).getByText('Control'));
    fireEvent.click(screen.getByRole('button', { name: OK }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')).toBeDefined());
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.path).toBe('/api/shares/7');
    expect(put.body).toEqual({ right: 'control', expires_at: null });
  });

  it('searches by keyword and serial number from the first page', async () => {
    answer = () => list([]);
    open();
    await screen.findByText('You have not shared any device');
    fireEvent.change(screen.getByPlaceholderText('Device name, serial number or receiver'), {
      target: { value: ' bob ' },
    });
    fireEvent.change(screen.getByPlaceholderText('Device serial number'), { target: { value: 'SN-9' } });
    fireEvent.click(screen.getByRole('button', { name: /Search/ }));
    await waitFor(() =>
      expect(calls.some((c) => c.query.get('keyword') === 'bob' && c.query.get('sn') === 'SN-9')).toBe(true),
    );
    const last = calls.filter((c) => c.path === '/api/shares/outgoing').at(-1)!;
    expect(last.query.get('current')).toBe('1');
  });

  it('lists what is shared with me with the owner, links the device and leaves after a confirmation', async () => {
    answer = (c) => (c.method === 'DELETE' ? ok(null) : list(c.path.endsWith('incoming') ? [INCOMING] : []));
    const router = open('/myshare/list?tab=incoming');
    const row = (await screen.findByText('SN-IN-1')).closest('tr')!;
    expect(within(row).getByText('alice')).toBeTruthy();
    expect(within(row).getByText('Control')).toBeTruthy();
    expect(within(row).getByText('Never')).toBeTruthy();
    await confirmAction(row, 'Leave');
    await waitFor(() =>
      expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/shares/9')).toBe(true),
    );
    fireEvent.click(within(row).getByText('SN-IN-1'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/device/detail/dtu4g/SN-IN-1'));
  });

  it('lists my share links with uses against the limit and revokes one', async () => {
    answer = (c) => (c.method === 'DELETE' ? ok(null) : list(c.path === '/api/share-links' ? [LINK] : []));
    open('/myshare/list?tab=links');
    const row = (await screen.findByText('2 / 5')).closest('tr')!;
    expect(within(row).getByText('Active')).toBeTruthy();
    await confirmAction(row, 'Revoke');
    await waitFor(() =>
      expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/share-links/3')).toBe(true),
    );
  });

  it('switches tabs through the address, each with its own empty state', async () => {
    answer = () => list([]);
    const router = open();
    await screen.findByText('You have not shared any device');
    fireEvent.click(screen.getByText('Shared with me'));
    await screen.findByText('Nobody has shared a device with you');
    expect(router.state.location.search).toBe('?tab=incoming');
    fireEvent.click(screen.getByText('Share links'));
    await screen.findByText('No share links yet');
    expect(calls.map((c) => c.path)).toEqual(
      expect.arrayContaining(['/api/shares/outgoing', '/api/shares/incoming', '/api/share-links']),
    );
  });
});
