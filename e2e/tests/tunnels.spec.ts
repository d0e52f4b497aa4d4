import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Browser, type Page } from '@playwright/test';
import type { TunnelItem } from '@cellhub/contract/tunnels';
import { formatSize } from '../../apps/console/src/lib/format-size';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { newTunnelStats, tunnelHandler } from '../../apps/devsim/src/tunnel';
import { E2E } from '../env';
import { api, devicesFor, newUser, screenshot, signIn, tokenFor, toast } from '../support';

/** A PLC's web page on the device's LAN: a page of about 3 KB that names the path it was asked for. */
async function plcWebServer(): Promise<{ server: http.Server; port: number; paths: string[] }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<h1>PLC S7-1200 ${req.url}</h1>${'<p>register ok</p>'.repeat(170)}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, paths };
}

/** GET over a new connection (no keep-alive): the tunnel carries exactly this one. */
function get(hostPort: string, path: string): Promise<{ status: number; body: string }> {
  const [host, port] = hostPort.split(':');
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port: Number(port), path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

async function signedInPage(browser: Browser, username: string, password: string): Promise<Page> {
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, username, password);
  return page;
}

test('an owner opens a remote tunnel to a devsim device LAN port, uses it, closes it; a view share may not', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const owner = await newUser('tno');
  const viewer = await newUser('tnv');
  const ownerToken = await tokenFor(owner.username, owner.password);
  const viewerToken = await tokenFor(viewer.username, viewer.password);
  const [id] = await devicesFor(ownerToken, 1, 'TUN');
  const lan = await plcWebServer();
  // devsim --tunnel --tunnel-local 127.0.0.1: the device answers P/down/tunnel and its "LAN" is this machine.
  const stats = newTunnelStats();
  const device = new VirtualDevice(id!, {
    url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
    keepalive: 30,
    handlers: { tunnel: tunnelHandler({ localHost: '127.0.0.1' }, stats) },
  });
  await device.connect();
  const tunnels = async () =>
    (await api<TunnelItem[]>('GET', `/api/devices/${id!.sn}/tunnels`, undefined, ownerToken)).body.data;
  try {
    await signIn(page, owner.username, owner.password);
    await page.goto(`/device/detail/${id!.product_key}/${id!.sn}`);
    await page.getByRole('tab', { name: '远程链接' }).click();
    const panel = page.getByTestId('tunnels-panel');
    await expect(panel).toContainText('还没有远程链接');

    // Open one: HTTP to the PLC's address on the LAN; the request waits until the device connected back.
    await panel.getByTestId('tunnel-open').click();
    const form = page.getByTestId('tunnel-form');
    await form.getByLabel('名称').fill('PLC 网页');
    await form.getByText('HTTP', { exact: true }).click();
    await form.getByLabel('本地 IP').fill('192.168.1.10');
    await form.getByLabel('本地端口').fill(String(lan.port));
    await form.getByRole('button', { name: '打开', exact: true }).click();
    await expect(toast(page, /^远程链接已打开：127\.0\.0\.1:\d+$/)).toBeVisible({ timeout: 20_000 });
    await expect(form).toHaveCount(0);

    const [opened] = await tunnels();
    expect(opened).toMatchObject({
      status: 'open',
      protocol: 'http',
      local_ip: '192.168.1.10',
      local_port: lan.port,
      opened_by: owner.username,
      allowed_ip: '127.0.0.1',
    });
    const address = opened!.address!;
    const [first, last] = E2E.tunnelPorts.split('-').map(Number);
    const port = Number(address.split(':')[1]);
    expect(port).toBeGreaterThanOrEqual(first!);
    expect(port).toBeLessThanOrEqual(last!);

    const row = panel.locator('.arco-table-tr').filter({ hasText: 'PLC 网页' });
    await expect(row.getByTestId('tunnel-status')).toHaveText('已打开');
    await expect(row.getByTestId('tunnel-address')).toHaveText(`http://${address}`);
    await expect(row.getByRole('link', { name: `http://${address}` })).toHaveAttribute(
      'href',
      `http://${address}`,
    );
    await expect(row).toContainText('仅限 127.0.0.1 访问');
    await expect(row).toContainText(`192.168.1.10:${lan.port}`);
    await expect(row).toContainText('0 B / 0 B');

    // Through the exposed port to the device's LAN and back: the PLC's own page.
    const answer = await get(address, '/status?plc=1');
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('<h1>PLC S7-1200 /status?plc=1</h1>');
    expect(answer.body.length).toBeGreaterThan(3000);
    expect(lan.paths).toEqual(['/status?plc=1']);
    expect(stats.opened).toBeGreaterThanOrEqual(1);

    // The bytes move on the page (read again every few seconds while open), as the API counts them.
    await expect.poll(async () => (await tunnels())[0]!.bytes_out, { timeout: 15_000 }).toBeGreaterThan(3000);
    const counted = (await tunnels())[0]!;
    expect(counted.bytes_in).toBeGreaterThan(0);
    expect(counted.connections).toBe(1);
    await expect(row).toContainText(`${formatSize(counted.bytes_in)} / ${formatSize(counted.bytes_out)}`, {
      timeout: 15_000,
    });
    await expect(row).toContainText('连接 1 次');
    await screenshot(page, 'tunnels-open');

    // A view share: the tab is not offered, the tab's URL says why, and the API refuses with 10108.
    const shared = await api(
      'POST',
      '/api/shares',
      { sns: [id!.sn], to: viewer.username, right: 'view' },
      ownerToken,
    );
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    const other = await signedInPage(browser, viewer.username, viewer.password);
    await other.goto(`/device/detail/${id!.product_key}/${id!.sn}`);
    await expect(other.getByTestId('shared-mark')).toContainText(owner.username);
    await expect(other.getByRole('tab', { name: '属性数据' })).toBeVisible();
    await expect(other.getByRole('tab', { name: '远程链接' })).toHaveCount(0);
    await other.goto(`/device/detail/${id!.product_key}/${id!.sn}?tab=tunnels`);
    await expect(other.getByText('远程链接仅限设备所有者或拥有控制权限的分享用户使用。')).toBeVisible();
    await expect(other.getByTestId('tunnel-open')).toHaveCount(0);
    const refused = await api(
      'POST',
      `/api/devices/${id!.sn}/tunnels`,
      { name: 'x', protocol: 'tcp', local_ip: '192.168.1.10', local_port: lan.port },
      viewerToken,
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 10108, message: 'No permission for this operation' });
    const listed = await api('GET', `/api/devices/${id!.sn}/tunnels`, undefined, viewerToken);
    expect(listed.body.code).toBe(10108);
    await other.context().close();

    // The owner closes it after confirming: the status changes and the port stops answering.
    await row.getByRole('button', { name: '关闭', exact: true }).click();
    await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
    await expect(toast(page, '远程链接已关闭')).toBeVisible();
    await expect(row.getByTestId('tunnel-status')).toHaveText('已关闭');
    await expect(row).toContainText('手动关闭');
    await expect(row.getByRole('button', { name: '关闭', exact: true })).toHaveCount(0);
    const closed = (await tunnels())[0]!;
    expect(closed).toMatchObject({ status: 'closed', reason: 'user', connections: 1 });
    expect(closed.bytes_out).toBe(counted.bytes_out);
    await expect(get(address, '/after-close')).rejects.toThrow(/ECONNREFUSED|ECONNRESET|socket hang up/);
    expect(lan.paths).toEqual(['/status?plc=1']);
    await screenshot(page, 'tunnels-closed');
  } finally {
    await device.close().catch(() => undefined);
    await new Promise((resolve) => lan.server.close(resolve));
  }
});

test('an owner opens a WebSocket tunnel and a page in the browser talks to the LAN through it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const owner = await newUser('tnw');
  const ownerToken = await tokenFor(owner.username, owner.password);
  const [id] = await devicesFor(ownerToken, 1, 'TUW');
  const lan = await plcWebServer();
  const device = new VirtualDevice(id!, {
    url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
    keepalive: 30,
    handlers: { tunnel: tunnelHandler({ localHost: '127.0.0.1' }, newTunnelStats()) },
  });
  await device.connect();
  try {
    await signIn(page, owner.username, owner.password);
    await page.goto(`/device/detail/${id!.product_key}/${id!.sn}`);
    await page.getByRole('tab', { name: '远程链接' }).click();
    const panel = page.getByTestId('tunnels-panel');
    await panel.getByTestId('tunnel-open').click();
    const form = page.getByTestId('tunnel-form');
    await form.getByLabel('名称').fill('PLC 终端');
    await form.getByText('WebSocket', { exact: true }).click();
    await form.getByLabel('本地 IP').fill('192.168.1.10');
    await form.getByLabel('本地端口').fill(String(lan.port));
    await screenshot(page, 'tunnels-ws-form');
    await form.getByRole('button', { name: '打开', exact: true }).click();
    await expect(toast(page, /^远程链接已打开：ws:\/\/.+\/api\/tunnels\/\d+\/ws\/[\w-]+$/)).toBeVisible({
      timeout: 20_000,
    });

    const [opened] = (await api<TunnelItem[]>('GET', `/api/devices/${id!.sn}/tunnels`, undefined, ownerToken))
      .body.data;
    expect(opened).toMatchObject({ status: 'open', exposure: 'ws', allowed_ip: '127.0.0.1' });
    const url = opened!.address!;
    expect(url.startsWith(E2E.baseURL.replace(/^http/, 'ws'))).toBe(true);
    const row = panel.locator('.arco-table-tr').filter({ hasText: 'PLC 终端' });
    await expect(row.getByTestId('tunnel-address')).toContainText(url);
    await expect(row.locator('.arco-typography-operation-copy')).toBeVisible();
    await expect(row).toContainText('WebSocket 地址含密钥');
    await screenshot(page, 'tunnels-ws-open');

    // The browser itself: binary frames out, binary frames back, the PLC's page byte for byte.
    const answer = await page.evaluate(async (wsUrl) => {
      const ws = new WebSocket(wsUrl);
      ws.binaryType = 'arraybuffer';
      const parts: Uint8Array[] = [];
      ws.onmessage = (e) => parts.push(new Uint8Array(e.data as ArrayBuffer));
      await new Promise((resolve, reject) => {
        ws.onopen = resolve;
        ws.onerror = reject;
      });
      ws.send(new TextEncoder().encode('GET /from-browser HTTP/1.0\r\nHost: plc\r\n\r\n'));
      const code = await new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)));
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      return { code, text: new TextDecoder().decode(all) };
    }, url);
    expect(answer.code).toBe(1000);
    expect(answer.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.text).toContain('<h1>PLC S7-1200 /from-browser</h1>');
    expect(lan.paths).toEqual(['/from-browser']);

    await row.getByRole('button', { name: '关闭', exact: true }).click();
    await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
    await expect(row.getByTestId('tunnel-status')).toHaveText('已关闭');
    await expect(row.locator('.arco-typography-operation-copy')).toHaveCount(0);
  } finally {
    await device.close().catch(() => undefined);
    await new Promise((resolve) => lan.server.close(resolve));
  }
});
