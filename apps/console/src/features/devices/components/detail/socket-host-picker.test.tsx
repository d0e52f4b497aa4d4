import { cleanup, render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import ConfigForm from './config-form';

const hosts = [
  { id: 4, name: 'Field TCP', protocol: 'tcp', address: 'iot.example.com', port: 20001 },
  { id: 5, name: 'Field UDP', protocol: 'udp', address: 'iot.example.com', port: 20002 },
];

function open() {
  vi.stubGlobal(
    'fetch',
    vi.fn(() =>
      Promise.resolve(
        new Response(JSON.stringify({ status: true, data: hosts }), {
          headers: { 'Content-Type': 'application/json' },
        }),
      ),
    ),
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <ConfigForm
        base={{ socket: [{ enable: true, protocol: 'tcp', server: 'iot.example.com', port: 20001 }] }}
        saving={false}
        onSave={() => Promise.resolve()}
      />
    </QueryClientProvider>,
  );
}

beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('socket settings and device hosts', () => {
  it('shows a socket pointing at a host as such, and offers the hosts', async () => {
    open();
    const first = await screen.findByTestId('config-socket-1-host');
    expect(await within(first).findByText('Device host: Field TCP')).toBeTruthy();
    const second = screen.getByTestId('config-socket-2-host');
    expect(within(second).queryByText(/Device host:/)).toBeNull();
  });
});
