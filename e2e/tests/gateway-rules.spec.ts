import { expect, type Page, test } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { gatewayHandlers, newGatewayStats, SubDeviceReporter } from '../../apps/devsim/src/gateway';
import { E2E } from '../env';
import { admin, api, screenshot, signIn, tokenFor, uniqueName } from '../support';

/** Picks a device in a gateway rule picker. */
async function pick(page: Page, testId: string, sn: string): Promise<void> {
  const picker = page.getByTestId(testId);
  await picker.click();
  await picker.locator('input').fill(sn);
  await page
    .locator('.arco-select-popup:visible .arco-select-option')
    .filter({ hasText: sn })
    .first()
    .click();
}

test('gateway rules: a rule made in the browser, sub-devices bound, reported through a devsim gateway', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const token = await tokenFor(admin.username, admin.password);
  const product = async (name: string, nodetype: string) => {
    const res = await api<{ product_key: string }>('POST', '/api/products', { name, nodetype }, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.product_key;
  };
  const gwKey = await product('E2E gateway', 'gateway');
  const subKey = await product('E2E sub-device', 'sub_device');
  const gwSn = uniqueName('GW').toUpperCase();
  const subs = [`${gwSn}-S01`, `${gwSn}-S02`];
  expect((await api('POST', '/api/devices', { product_key: gwKey, sn: [gwSn] }, token)).status).toBe(200);
  expect((await api('POST', '/api/devices', { product_key: subKey, sn: subs }, token)).status).toBe(200);
  const secret = (await api<{ secret: string }>('GET', `/api/devices/${gwSn}`, undefined, token)).body.data
    .secret;

  await signIn(page, admin.username, admin.password);
  await page.goto('/rule-setting/gate-way/create');
  const name = uniqueName('boiler');
  await page.getByTestId('gw-name').fill(name);
  await pick(page, 'gw-gateway', gwSn);
  await page.getByTestId('gw-save').click();
  await page.waitForURL(/\/rule-setting\/gate-way\/detail\/\d+$/);
  await expect(page.getByText('暂无子设备')).toBeVisible();

  // Bind both sub-devices and the gateway itself: a result per sn.
  await page.getByTestId('gw-bind').click();
  await page.getByTestId('gw-bind-lines').fill(`${subs[0]}, 1, 供水温度\n${subs[1]}, 2\n${gwSn}`);
  await page.getByTestId('gw-bind-submit').click();
  const result = page.getByTestId('gw-bind-result');
  await expect(result).toContainText('成功 2 个，失败 1 个');
  await expect(result).toContainText('该设备不是子设备 (85004)');
  await screenshot(page, 'gateway-rules-bind');
  await page.getByRole('button', { name: '关闭' }).click();
  const table = page.getByTestId('gw-subs');
  await expect(table.getByText('供水温度')).toBeVisible();

  // A devsim gateway speaks for them: they come online, their readings are theirs, a command reaches them.
  const stats = newGatewayStats();
  const gateway = new VirtualDevice(
    { sn: gwSn, product_key: gwKey, secret },
    {
      url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
      keepalive: 30,
      configGet: false,
      handlers: gatewayHandlers(stats),
    },
  );
  const reporter = new SubDeviceReporter(
    () => [gateway],
    () => subs,
    { rate: 1 },
    stats,
  );
  try {
    await gateway.connect();
    reporter.start(100);
    await expect(table.getByText('在线')).toHaveCount(2, { timeout: 20_000 });
    await screenshot(page, 'gateway-rules-detail');
    await expect
      .poll(
        async () =>
          (await api<unknown[]>('GET', `/api/devices/${subs[0]}/properties`, undefined, token)).body.data
            .length,
        { timeout: 10_000 },
      )
      .toBeGreaterThan(0);
    const sent = await api<{ id: string }>(
      'POST',
      `/api/devices/${subs[1]}/commands`,
      { type: 'string', data: 'ping' },
      token,
    );
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await expect
      .poll(
        async () =>
          (
            await api<{ id: string; status: string }[]>(
              'GET',
              `/api/devices/${subs[1]}/commands`,
              undefined,
              token,
            )
          ).body.data.find((c) => c.id === sent.body.data.id)?.status,
        { timeout: 10_000 },
      )
      .toBe('replied');

    // Unbind one after confirming: it leaves the table.
    await table.locator('tr', { hasText: subs[1] }).getByRole('button', { name: '解绑' }).click();
    await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
    await expect(table.getByText(subs[1]!)).toHaveCount(0);

    // The gateway goes: so does its sub-device.
    reporter.stop();
    await gateway.goOffline('abrupt');
    await expect(table.getByText('离线')).toHaveCount(1, { timeout: 20_000 });
  } finally {
    reporter.stop();
    await gateway.close().catch(() => undefined);
  }

  // Delete the rule from the list after confirming.
  await page.goto('/rule-setting/gate-way/list');
  await page.getByTestId('gw-keyword').fill(name);
  await page.getByRole('button', { name: '查询' }).click();
  const row = page.locator('tr', { hasText: name });
  await row.getByRole('button', { name: '删除' }).click();
  await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
  await expect(row).toHaveCount(0);
});
