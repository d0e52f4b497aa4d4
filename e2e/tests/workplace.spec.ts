import { expect, test } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { api, newUser, screenshot, signIn, tokenFor, uniqueName } from '../support';

test("the Workplace counts the user's own devices: total, online, offline, by product", async ({ page }) => {
  const user = await newUser('wp');
  const token = await tokenFor(user.username, user.password);
  const sns: string[] = [];
  const identities: { sn: string; product_key: string; secret: string }[] = [];
  for (const [name, count] of [
    ['水表 DTU', 2],
    ['网关', 1],
  ] as const) {
    const product = await api<{ product_key: string }>('POST', '/api/products', { name }, token);
    const batch = Array.from({ length: count }, () => uniqueName('WP').toUpperCase());
    await api('POST', '/api/devices', { product_key: product.body.data.product_key, sn: batch }, token);
    for (const sn of batch) {
      const d = await api<{ secret: string; product_key: string }>(
        'GET',
        `/api/devices/${sn}`,
        undefined,
        token,
      );
      identities.push({ sn, product_key: d.body.data.product_key, secret: d.body.data.secret });
    }
    sns.push(...batch);
  }
  // Someone else's devices never count.
  const other = await newUser('wpo');
  const otherToken = await tokenFor(other.username, other.password);
  const op = await api<{ product_key: string }>('POST', '/api/products', { name: 'other' }, otherToken);
  await api(
    'POST',
    '/api/devices',
    { product_key: op.body.data.product_key, sn: [uniqueName('WPO').toUpperCase()] },
    otherToken,
  );

  const device = new VirtualDevice(identities[0]!, {
    url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
    keepalive: 30,
  });
  await device.connect();
  try {
    await device.report({ temperature: 20 });
    await expect
      .poll(
        async () =>
          (await api<{ online: number }>('GET', `/api/devices/${sns[0]}`, undefined, token)).body.data.online,
      )
      .toBe(1);

    await signIn(page, user.username, user.password);
    await expect(page.getByTestId('stat-device-total-value')).toHaveText('3');
    await expect(page.getByTestId('stat-device-online-value')).toHaveText('1');
    await expect(page.getByTestId('stat-device-offline-value')).toHaveText('2');
    const overview = await api<{ by_product: { product_name: string; total: number }[] }>(
      'GET',
      '/api/dashboard/overview',
      undefined,
      token,
    );
    expect(overview.body.data.by_product.map((p) => [p.product_name, p.total])).toEqual([
      ['水表 DTU', 2],
      ['网关', 1],
    ]);
    // Today's point of the trend has the device that connected and its message.
    const trend = await api<{ days: { online: number; messages: number }[] }>(
      'GET',
      '/api/dashboard/trend?range=7',
      undefined,
      token,
    );
    expect(trend.body.data.days).toHaveLength(7);
    expect(trend.body.data.days.at(-1)!.online).toBe(1);
    await expect(page.getByTestId('workplace-trend').locator('canvas')).toBeVisible();
    await screenshot(page, 'workplace-workplace-zh');

    // A second device comes online; the figures follow on the next load.
    const second = new VirtualDevice(identities[2]!, {
      url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
      keepalive: 30,
    });
    await second.connect();
    try {
      await expect
        .poll(
          async () =>
            (await api<{ online: number }>('GET', `/api/devices/${sns[2]}`, undefined, token)).body.data
              .online,
        )
        .toBe(1);
      await page.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
      await page.reload();
      await expect(page.getByTestId('stat-device-online-value')).toHaveText('2');
      await expect(page.getByTestId('stat-device-offline-value')).toHaveText('1');
      await expect(page.getByText('Devices by product')).toBeVisible();
      await screenshot(page, 'workplace-workplace-en');
    } finally {
      await second.close();
    }
  } finally {
    await device.close();
  }
});
