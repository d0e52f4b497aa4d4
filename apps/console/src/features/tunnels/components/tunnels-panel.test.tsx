import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { TunnelItem } from '@cellhub/contract/tunnels';
import { useParams } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderPage } from '../../../lib/mock-api.test-kit';
import zhCN from '../locale/zh-CN';
import TunnelsPanel from './tunnels-panel';

afterEach(() => vi.unstubAllGlobals());

const OPEN: TunnelItem = {
  id: 3,
  sn: 'DTU-1',
  name: 'PLC web',
  protocol: 'http',
  exposure: 'tcp',
  local_ip: '192.168.1.10',
  local_port: 80,
  address: 'cellhub.example.com:21003',
  status: 'open',
  code: null,
  reason: null,
  allowed_ip: '203.0.113.9',
  bytes_in: 2048,
  bytes_out: 10240,
  connections: 2,
  opened_by: 'alice',
  idle_timeout: 600,
  expires_at: '2026-11-26T16:00:00.000Z',
  createdat: '2026-11-26T14:00:00.000Z',
  closed_at: null,
};
const FAILED: TunnelItem = {
  ...OPEN,
  id: 2,
  name: 'Camera',
  protocol: 'tcp',
  address: null,
  status: 'failed',
  code: 11016,
  reason: 'refused',
  expires_at: null,
  closed_at: '2026-11-26T13:00:00.000Z',
};

const WS: TunnelItem = {
  ...OPEN,
  id: 4,
  name: 'Terminal',
  protocol: 'tcp',
  exposure: 'ws',
  local_port: 22,
};

function Page() {
  const { sn = '' } = useParams();
  return <TunnelsPanel sn={sn} />;
}
const open = () => renderPage(Page, '/device/:sn', '/device/DTU-1');
const row = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;

describe('remote tunnel tab', () => {
  it('lists tunnels with their address, status, reason and bytes', async () => {
    mockApi({ 'GET /api/devices/DTU-1/tunnels': { data: [OPEN, FAILED], total: 2 } });
    open();
    await screen.findByText('PLC web');
    const live = row('PLC web');
    expect(within(live).getByText('http://cellhub.example.com:21003')).toBeTruthy();
    expect(within(live).getByText(zhCN['tunnels.status.open'])).toBeTruthy();
    expect(within(live).getByText('2 KB / 10 KB', { exact: false })).toBeTruthy();
    expect(within(live).getByText('连接 2 次')).toBeTruthy();
    expect(within(live).getByText('alice')).toBeTruthy();
    expect(within(live).getByRole('button', { name: zhCN['tunnels.close'] })).toBeTruthy();
    const failed = row('Camera');
    expect(within(failed).getByText(zhCN['tunnels.status.failed'])).toBeTruthy();
    expect(within(failed).getByText(`11016 · ${zhCN['tunnels.reason.refused']}`)).toBeTruthy();
    expect(within(failed).queryByRole('button', { name: zhCN['tunnels.close'] })).toBeNull();
  });

  it('opens a tunnel from the form and shows why the device refused', async () => {
    mockApi({ 'GET /api/devices/DTU-1/tunnels': { data: [], total: 0 } });
    open();
    expect(await screen.findByText(zhCN['tunnels.empty'], { exact: false })).toBeTruthy();
    // The device refuses first (11016, reason refused), then opens.
    mockApi({
      'GET /api/devices/DTU-1/tunnels': { data: [], total: 0 },
      'POST /api/devices/DTU-1/tunnels': {
        refuse: 11016,
        details: { reason: 'refused', why: 'ECONNREFUSED' },
      },
    });
    fireEvent.click(screen.getByTestId('tunnel-open'));
    const form = await screen.findByTestId('tunnel-form');
    fireEvent.change(within(form).getByPlaceholderText(zhCN['tunnels.form.name.placeholder']), {
      target: { value: 'PLC web' },
    });
    fireEvent.change(within(form).getByPlaceholderText('80'), { target: { value: '8080' } });
    fireEvent.click(screen.getByRole('button', { name: zhCN['tunnels.form.submit'] }));
    const failed = await screen.findByTestId('tunnel-failed');
    expect(failed.textContent).toContain(zhCN['tunnels.reason.refused']);
    const second = mockApi({
      'GET /api/devices/DTU-1/tunnels': { data: [], total: 0 },
      'POST /api/devices/DTU-1/tunnels': (body) => ({ data: { ...OPEN, ...(body as object) } }),
    });
    fireEvent.click(screen.getByRole('button', { name: zhCN['tunnels.form.submit'] }));
    await waitFor(() => expect(screen.queryByTestId('tunnel-form')).toBeNull());
    expect(second.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'PLC web',
      protocol: 'tcp',
      exposure: 'tcp',
      local_ip: '192.168.1.10',
      local_port: 8080,
    });
  });

  it('opens a WebSocket tunnel and shows its URL with a copy button', async () => {
    const url = 'wss://cellhub.example.com/api/tunnels/4/ws/s3cr3t-abcdefghijklmnopqrstuvwx';
    const calls = mockApi({
      'GET /api/devices/DTU-1/tunnels': { data: [{ ...WS, address: url }], total: 1 },
      'POST /api/devices/DTU-1/tunnels': (body) => ({ data: { ...WS, ...(body as object), address: url } }),
    });
    open();
    await screen.findByText('Terminal');
    const live = row('Terminal');
    expect(within(live).getByText(url)).toBeTruthy();
    expect(within(live).getByText(`TCP · ${zhCN['tunnels.exposure.ws']}`)).toBeTruthy();
    expect(within(live).getByText(zhCN['tunnels.ws.hint'], { exact: false })).toBeTruthy();
    expect(live.querySelector('.arco-typography-operation-copy')).not.toBeNull();

    fireEvent.click(screen.getByTestId('tunnel-open'));
    const form = await screen.findByTestId('tunnel-form');
    fireEvent.change(within(form).getByPlaceholderText(zhCN['tunnels.form.name.placeholder']), {
      target: { value: 'Terminal' },
    });
    fireEvent.change(within(form).getByPlaceholderText('80'), { target: { value: '22' } });
    fireEvent.click(within(form).getByText(zhCN['tunnels.exposure.ws']));
    fireEvent.click(screen.getByRole('button', { name: zhCN['tunnels.form.submit'] }));
    await waitFor(() => expect(screen.queryByTestId('tunnel-form')).toBeNull());
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ exposure: 'ws', local_port: 22 });
  });

  it('shows a closed WebSocket tunnel without its secret or a copy button', async () => {
    const closed = { ...WS, status: 'closed', reason: 'idle', address: 'wss://h/api/tunnels/4/ws' } as const;
    mockApi({ 'GET /api/devices/DTU-1/tunnels': { data: [closed], total: 1 } });
    open();
    await screen.findByText('Terminal');
    const item = row('Terminal');
    expect(within(item).getByText('wss://h/api/tunnels/4/ws')).toBeTruthy();
    expect(item.querySelector('.arco-typography-operation-copy')).toBeNull();
  });

  it('refuses an address that is not IPv4 before sending', async () => {
    const calls = mockApi({ 'GET /api/devices/DTU-1/tunnels': { data: [], total: 0 } });
    open();
    fireEvent.click(await screen.findByTestId('tunnel-open'));
    const form = await screen.findByTestId('tunnel-form');
    fireEvent.change(within(form).getByPlaceholderText(zhCN['tunnels.form.name.placeholder']), {
      target: { value: 'x' },
    });
    fireEvent.change(within(form).getByPlaceholderText(zhCN['tunnels.form.localIp.placeholder']), {
      target: { value: '192.168.1.300' },
    });
    fireEvent.change(within(form).getByPlaceholderText('80'), { target: { value: '80' } });
    fireEvent.click(screen.getByRole('button', { name: zhCN['tunnels.form.submit'] }));
    expect(await screen.findByText(zhCN['tunnels.form.localIp.invalid'])).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('tells a view share the tab is not theirs, without asking the server', () => {
    const calls = mockApi({});
    renderPage(() => <TunnelsPanel sn="DTU-1" readOnly />, '/device/:sn', '/device/DTU-1');
    expect(screen.getByText(zhCN['tunnels.readOnly'])).toBeTruthy();
    expect(calls.filter((c) => c.path.includes('tunnels'))).toEqual([]);
  });
});
