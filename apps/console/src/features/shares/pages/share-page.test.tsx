/**
 * The share-link landing page against a mocked API: a good link is previewed and accepted into the device list;
 * a malformed, unknown or spent link (10211) and the owner's own link (10212) are said with the code table's
 * texts on the page, with no toast on top.
 */
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockApi, ok, refuse, renderAt, type Call } from '../share-api.test-kit';
import SharePage from './share-page';

const toasts = vi.hoisted(() => [] as { kind: string; content: string }[]);
vi.mock('../../../lib/toast', () => ({
  toast: (kind: string, content: string) => toasts.push({ kind, content }),
  loadToasts: () => Promise.resolve(),
}));

const TOKEN = 'abcdefghijklmnopqrstuvwxyz012345';
let calls: Call[] = [];
let answer: (c: Call) => unknown;

beforeEach(() => {
  localStorage.setItem('arco-locale', 'en-US');
  toasts.length = 0;
  calls = mockApi((c) => answer(c));
});
afterEach(() => vi.unstubAllGlobals());

const open = (query: string) => renderAt(`/share${query}`, [{ path: '/share', element: <SharePage /> }]);

const PREVIEW = {
  owner_username: 'alice',
  devices: [
    { sn: 'SN-A', name: 'Pump house' },
    { sn: 'SN-B', name: '' },
  ],
  right: 'control',
  expires_at: null,
};

describe('share-link landing page', () => {
  it('shows whose devices, the right and the expiry, and accepts them into the device list', async () => {
    answer = (c) => (c.method === 'POST' ? ok({ created: 2, updated: 0 }) : ok(PREVIEW));
    const router = open(`?token=${TOKEN}`);
    expect(await screen.findByText('alice shared 2 device(s) with you')).toBeTruthy();
    expect(screen.getByText('Control')).toBeTruthy();
    expect(screen.getByText('Never')).toBeTruthy();
    expect(screen.getByText('SN-A')).toBeTruthy();
    expect(screen.getByText('Pump house')).toBeTruthy();
    expect(calls[0]).toMatchObject({ method: 'GET', path: `/api/share-links/${TOKEN}` });
    fireEvent.click(screen.getByRole('button', { name: 'Accept' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/device/list'));
    expect(calls.at(-1)).toMatchObject({ method: 'POST', path: `/api/share-links/${TOKEN}/accept` });
    expect(toasts).toContainEqual({ kind: 'success', content: 'Share accepted: 2 device(s)' });
  });

  it('answers an unknown, expired or used-up link (10211) with the result page and the code text', async () => {
    answer = () => refuse(10211);
    open(`?token=${TOKEN}`);
    const page = await screen.findByTestId('result-page');
    expect(page.getAttribute('data-problem')).toBe('notFound');
    expect(await screen.findByText('Share link does not exist')).toBeTruthy();
    expect(toasts).toEqual([]);
  });

  it('does not ask the server about an address that holds no token', async () => {
    answer = () => ok(PREVIEW);
    open('?token=short');
    await screen.findByTestId('result-page');
    expect(await screen.findByText('Share link does not exist')).toBeTruthy();
    expect(calls).toEqual([]);
  });

  it('tells the owner opening their own link 10212 and leads to their links', async () => {
    answer = () => refuse(10212);
    const router = open(`?token=${TOKEN}`);
    await screen.findByTestId('share-own-link');
    expect(await screen.findByText('Cannot share with yourself')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'My shares' }));
    await waitFor(() => expect(router.state.location.search).toBe('?tab=links'));
    expect(toasts).toEqual([]);
  });

  it('turns to the 10211 page when the link is spent between opening and accepting', async () => {
    let spent = false;
    answer = (c) => {
      if (c.method === 'POST') {
        spent = true;
        return refuse(10211);
      }
      return spent ? refuse(10211) : ok(PREVIEW);
    };
    open(`?token=${TOKEN}`);
    fireEvent.click(await screen.findByRole('button', { name: 'Accept' }));
    expect(await screen.findByText('Share link does not exist')).toBeTruthy();
    expect(toasts).toEqual([]);
  });
});
