import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { api, newUser, signIn, tokenFor, uniqueName } from '../support';

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;

/** The number of points the property chart plots (one per non-empty bucket). */
async function plotted(page: Page): Promise<number> {
  return Number(await page.getByTestId('property-chart').getAttribute('data-points'));
}

test('device detail: the property chart gains points live as a devsim device reports', async ({ page }) => {
  test.setTimeout(120_000);
  const user = await newUser('chart');
  const token = await tokenFor(user.username, user.password);
  const product = await api<{ product_key: string }>(
    'POST',
    '/api/products',
    {
      name: 'DTU-LIVE',
      properties: [{ key: 'temperature', name: '温度', name_us: 'Temperature', unit: '°C' }],
    },
    token,
  );
  expect(product.status, JSON.stringify(product.body)).toBe(200);
  const sn = uniqueName('LC').toUpperCase();
  const created = await api(
    'POST',
    '/api/devices',
    { product_key: product.body.data.product_key, sn: [sn] },
    token,
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const detail = await api<{ product_key: string; secret: string }>(
    'GET',
    `/api/devices/${sn}`,
    undefined,
    token,
  );
  const device = new VirtualDevice(
    { sn, product_key: detail.body.data.product_key, secret: detail.body.data.secret },
    { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30 },
  );

  let reporting = true;
  try {
    await device.connect();
    // One reading from half an hour ago, so the chart has a point before the live ones.
    await device.publish('property', {
      id: 'earlier',
      items: [{ ts: Date.now() - 30 * 60_000, params: { temperature: 18 } }],
    });

    const seriesRequests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/properties/series')) seriesRequests.push(r.url());
    });
    await signIn(page, user.username, user.password);
    await page.goto(`/device/detail/${detail.body.data.product_key}/${sn}`);
    await expect(page.getByTestId('device-status')).toHaveText('在线');
    await page.getByRole('tab', { name: '属性数据' }).click();
    // The last hour in 15-second buckets: a report every second opens a new point every 15 seconds.
    await page.getByText('1 小时', { exact: true }).click();
    await expect(page.getByTestId('property-chart')).toContainText('每点 15 s');
    await expect.poll(() => seriesRequests.filter((u) => u.includes('range=1h')).length).toBe(1);
    const before = await plotted(page);
    expect(before).toBe(1);
    const requestsBefore = seriesRequests.length;

    const reports = (async () => {
      for (let i = 0; reporting; i++) {
        await device.report({ temperature: 21 + (i % 5) });
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    // Two more points: the chart moved with the reports, at least one 15-second bucket boundary later.
    await expect.poll(() => plotted(page), { timeout: 45_000 }).toBeGreaterThanOrEqual(before + 2);
    // Live, not polled: the page fetched no series while the points came.
    expect(seriesRequests.length).toBe(requestsBefore);
    reporting = false;
    await reports;

    if (SHOTS) {
      await page.mouse.move(0, 0);
      await page.screenshot({ path: join(SHOTS, 'device-chart-live.png') });
    }
  } finally {
    reporting = false;
    await device.close();
  }
});
