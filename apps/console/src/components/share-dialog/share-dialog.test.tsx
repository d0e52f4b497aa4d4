/**
 * The share dialog against a mocked API: sharing with an account sends the chosen devices, receiver, right and
 * expiry; 10212 and 10210 are said under the receiver field (code text, no toast); a share link is made with its
 * use count and its full URL is shown to copy.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import ShareDialog from './share-dialog';
import { expiryToIso } from './share-fields';

const toasts = vi.hoisted(() => [] as { kind: string; content: string }[]);
vi.mock('../../lib/toast', () => ({
  toast: (kind: string, content: string) => toasts.push({ kind, content }),
  loadToasts: () => Promise.resolve(),
}));

interface Call {
  method: string;
  path: string;
  body: unknown;
}
let calls: Call[] = [];
let answer: (c: Call) => { status?: number; body: unknown };

beforeEach(() => {
  localStorage.setItem('arco-locale', 'en-US');
  toasts.length = 0;
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const call = {
        method: init?.method ?? 'GET',
        path: new URL(String(input), 'http://console.test').pathname,
        body: init?.body ? (JSON.parse(String(init.body)) as unknown) : undefined,
      };
      calls.push(call);
      const { status = 200, body } = answer(call);
      return Promise.resolve(
        new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }),
      );
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

function open(sns: string[]) {
  const onClose = vi.fn();
  const client = new QueryClient();
  render(
    <QueryClientProvider client={client}>
      <ShareDialog visible sns={sns} onClose={onClose} />
    </QueryClientProvider>,
  );
  return onClose;
}

describe('share dialog', () => {
  it('shares the chosen devices with an account, with the right picked', async () => {
    answer = () => ({ body: { status: true, data: { created: 1, updated: 1 } } });
    const onClose = open(['SN-1', 'SN-2']);
    expect(screen.getByText('SN-1')).toBeTruthy();
    expect(screen.getByText('2 in total')).toBeTruthy();
    // What each right allows is said beside it.
    expect(screen.getByText(/no commands or configuration/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('share-submit'));
    expect(await screen.findByText('Enter the receiver’s username or phone number')).toBeTruthy();
    expect(calls).toEqual([]);
    fireEvent.change(screen.getByPlaceholderText('Their username or phone number'), {
      target: { value: ' bob ' },
    });
    fireEvent.click(screen.getByText('Control'));
    fireEvent.click(screen.getByTestId('share-submit'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls).toEqual([
      {
        method: 'POST',
        path: '/api/shares',
        body: { sns: ['SN-1', 'SN-2'], to: 'bob', right: 'control', expires_at: null },
      },
    ]);
    expect(toasts).toEqual([{ kind: 'success', content: 'Shared 2 device(s) (1 new, 1 updated)' }]);
  });

  it.each([
    [10212, 'Cannot share with yourself'],
    [10210, 'Share failed: The account does not exist or is disabled, or one of the devices is not yours.'],
  ])('says %s under the receiver field, not in a toast', async (code, text) => {
    answer = () => ({ status: 400, body: { code, message: 'refused' } });
    const onClose = open(['SN-1']);
    fireEvent.change(screen.getByPlaceholderText('Their username or phone number'), {
      target: { value: 'me' },
    });
    fireEvent.click(screen.getByTestId('share-submit'));
    expect(await screen.findByText(text)).toBeTruthy();
    expect(toasts).toEqual([]);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('makes a share link with a use count and shows its full URL once', async () => {
    answer = () => ({
      body: {
        status: true,
        data: { id: 4, token: 'T'.repeat(32), url_path: `/share?token=${'T'.repeat(32)}` },
      },
    });
    open(['SN-1']);
    fireEvent.click(screen.getByText('Share link'));
    expect(screen.queryByPlaceholderText('Their username or phone number')).toBeNull();
    fireEvent.change(screen.getByPlaceholderText('Leave empty: no limit'), { target: { value: '3' } });
    fireEvent.click(screen.getByTestId('share-submit'));
    const url = (await screen.findByTestId('share-link-url')) as HTMLInputElement;
    expect(url.value).toBe(`${window.location.origin}/share?token=${'T'.repeat(32)}`);
    expect(calls[0]).toEqual({
      method: 'POST',
      path: '/api/share-links',
      body: { sns: ['SN-1'], right: 'view', expires_at: null, max_uses: 3 },
    });
    expect(screen.getByText(/shown only this once/)).toBeTruthy();
  });
});

describe('expiryToIso', () => {
  it('reads the picker text as local time, a Date as it is, and nothing as never', () => {
    expect(expiryToIso('2030-01-02 03:04')).toBe(new Date(2030, 0, 2, 3, 4).toISOString());
    expect(expiryToIso(new Date(Date.UTC(2030, 0, 1)))).toBe('2030-01-01T00:00:00.000Z');
    expect(expiryToIso(undefined)).toBeNull();
    expect(expiryToIso('')).toBeNull();
    expect(expiryToIso('soon')).toBeNull();
  });
});
