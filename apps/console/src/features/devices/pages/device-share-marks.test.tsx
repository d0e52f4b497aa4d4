/**
 * Shared devices in the device pages (issue 14): a device someone shared with the caller is marked with the right
 * and its owner, and offers none of the owner's actions (share, unbind, the secret); view right shows no command
 * or configuration form. The caller's own devices can be shared, one from its row or several ticked.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, MemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampleDevice } from '../sample-device';
import DeviceDetailPage from './device-detail-page';
import DeviceListPage from './device-list-page';

const OWN = sampleDevice({ sn: 'OWN-1', share: null });
const VIEWED = sampleDevice({
  sn: 'SHARED-1',
  uid: 9,
  share: { right: 'view', owner: 'alice', expires_at: null },
});
const CONTROLLED = {
  ...VIEWED,
  sn: 'SHARED-2',
  share: { right: 'control', owner: 'alice', expires_at: null },
};
const detailOf = (row: object) => ({ ...row, secret: '', iot_platform_param: {}, properties: [] });

let devices: object[] = [];
beforeEach(() => {
  localStorage.setItem('arco-locale', 'en-US');
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL) => {
      const url = new URL(input instanceof Request ? input.url : String(input), 'http://console.test');
      const one = /^\/api\/devices\/([^/]+)$/.exec(url.pathname)?.[1];
      const body =
        url.pathname === '/api/devices'
          ? { status: true, data: devices, total: devices.length, total_exact: true }
          : one
            ? { status: true, data: detailOf(devices.find((d) => (d as { sn: string }).sn === one)!) }
            : { status: true, data: [], total: 0 };
      return Promise.resolve(
        new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } }),
      );
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

// Pages and their lazy tabs load their chunks first: slow when the machine is busy.
const SLOW = { timeout: 5000 };

const client = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });

function openList() {
  render(
    <QueryClientProvider client={client()}>
      <MemoryRouter>
        <DeviceListPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

function openDetail(sn: string, tab: string) {
  const router = createMemoryRouter(
    [{ path: '/device/detail/:productkey/:sn', element: <DeviceDetailPage /> }],
    {
      initialEntries: [`/device/detail/pk0001/${sn}?tab=${tab}`],
    },
  );
  render(
    <QueryClientProvider client={client()}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

const rowOf = async (sn: string) => (await screen.findByText(sn, {}, SLOW)).closest('tr')!;

describe('shared devices in the device list', () => {
  it('marks a shared row with the right and owner and leaves the owner actions out', async () => {
    devices = [OWN, VIEWED];
    openList();
    const shared = await rowOf('SHARED-1');
    expect(within(shared).getByTestId('shared-mark').textContent).toContain('Shared · View');
    expect(within(shared).getByTestId('shared-mark').textContent).toContain('Owner: alice');
    expect(within(shared).queryByRole('button', { name: 'Share' })).toBeNull();
    expect(within(shared).queryByRole('button', { name: 'Unbind' })).toBeNull();
    expect(within(shared).getByRole('checkbox').hasAttribute('disabled')).toBe(true);
    const own = await rowOf('OWN-1');
    expect(within(own).queryByTestId('shared-mark')).toBeNull();
    expect(within(own).getByRole('button', { name: 'Share' })).toBeTruthy();
  });

  it('shares the ticked rows from the toolbar', async () => {
    devices = [OWN, { ...OWN, id: 2, sn: 'OWN-2' }];
    openList();
    const batch = () => screen.getByTestId('device-share-selected');
    await rowOf('OWN-1');
    expect(batch().hasAttribute('disabled')).toBe(true);
    fireEvent.click(
      within(await rowOf('OWN-1'))
        .getByRole('checkbox')
        .closest('label')!,
    );
    fireEvent.click(
      within(await rowOf('OWN-2'))
        .getByRole('checkbox')
        .closest('label')!,
    );
    await waitFor(() => expect(batch().textContent).toContain('Share selected (2)'), SLOW);
    fireEvent.click(batch());
    const dialog = await screen.findByTestId('share-devices', {}, SLOW);
    expect(dialog.textContent).toContain('OWN-1');
    expect(dialog.textContent).toContain('OWN-2');
  });
});

describe('shared devices in the detail page', () => {
  it('view right: marked, no share button, no secret, the command form replaced by a note', async () => {
    devices = [VIEWED];
    openDetail('SHARED-1', 'commands');
    expect((await screen.findByTestId('shared-mark', {}, SLOW)).textContent).toContain('Owner: alice');
    expect(await screen.findByTestId('command-readonly', {}, SLOW)).toBeTruthy();
    expect(screen.queryByTestId('command-send')).toBeNull();
    expect(screen.queryByTestId('device-share')).toBeNull();
  });

  it('view right: the configuration cannot be edited', async () => {
    devices = [VIEWED];
    openDetail('SHARED-1', 'config');
    expect(await screen.findByTestId('config-readonly', {}, SLOW)).toBeTruthy();
  });

  it('view right: the overview has no secret', async () => {
    devices = [VIEWED];
    openDetail('SHARED-1', 'overview');
    await screen.findByTestId('shared-mark', {}, SLOW);
    expect(screen.queryByTestId('device-secret')).toBeNull();
  });

  it('control right: the command form is there', async () => {
    devices = [CONTROLLED];
    openDetail('SHARED-2', 'commands');
    expect(await screen.findByTestId('command-send', {}, SLOW)).toBeTruthy();
    expect(screen.queryByTestId('command-readonly')).toBeNull();
  });

  it("the owner's own device: a Share button and the secret", async () => {
    devices = [OWN];
    openDetail('OWN-1', 'overview');
    expect(await screen.findByTestId('device-share', {}, SLOW)).toBeTruthy();
    expect(screen.getByTestId('device-secret')).toBeTruthy();
    expect(screen.queryByTestId('shared-mark')).toBeNull();
  });
});
