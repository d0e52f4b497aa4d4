import { expect, test, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { api, newUser, screenshot, signIn, tokenFor, uniqueName } from '../support';

interface DeviceIdentity {
  sn: string;
  product_key: string;
  secret: string;
}

/** A product with two properties and one device, created through the API; the identity comes from its detail. */
async function deviceFor(token: string): Promise<DeviceIdentity> {
  const product = await api<{ product_key: string }>(
    'POST',
    '/api/products',
    {
      name: 'DTU-E2E',
      properties: [
        { key: 'temperature', name: '温度', name_us: 'Temperature', unit: '°C' },
        { key: 'humidity', name: '湿度', name_us: 'Humidity', unit: '%' },
      ],
    },
    token,
  );
  expect(product.status, JSON.stringify(product.body)).toBe(200);
  const sn = uniqueName('DD').toUpperCase();
  const created = await api(
    'POST',
    '/api/devices',
    { product_key: product.body.data.product_key, sn: [sn] },
    token,
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await api('PUT', `/api/devices/${sn}`, { name: '1号泵房 DTU' }, token);
  const detail = await api<DeviceIdentity>('GET', `/api/devices/${sn}`, undefined, token);
  return { sn, product_key: detail.body.data.product_key, secret: detail.body.data.secret };
}

function startDevice(id: DeviceIdentity): VirtualDevice {
  let n = 0;
  return new VirtualDevice(id, {
    url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
    keepalive: 30,
    properties: () => ({ temperature: 21 + (n++ % 5), humidity: 40 + (n % 7) }),
    info: {
      fw_version: '2.1.0',
      hw_version: 'B1',
      bootloader_version: '1.0.3',
      imei: '861234567890123',
      imsi: '460041234567890',
      iccid: '89860412345678901234',
      ipaddress: '10.21.3.45',
      rssi: -67,
      csq: 23,
      signal_strength: 4,
      cellular_mode: 'LTE Cat.1',
      band: 'B3',
      pci: '312',
      cell_id: '0x1A2B3C',
      latitude: 31.2304,
      longitude: 121.4737,
    },
  });
}

/** A week of readings every 10 minutes, as a device sends what it buffered offline: batches with device times. */
async function sendHistory(device: VirtualDevice): Promise<void> {
  const now = Date.now();
  const count = 7 * 24 * 6;
  const items = Array.from({ length: count }, (_, i) => {
    const h = i / 6;
    return {
      ts: now - (count - i) * 10 * 60_000,
      params: {
        temperature: Math.round((22 + 5 * Math.sin((h / 24) * 2 * Math.PI) + (i % 3) * 0.6) * 10) / 10,
        humidity: Math.round(55 + 10 * Math.cos((h / 24) * 2 * Math.PI) + (i % 4)),
      },
    };
  });
  for (let i = 0; i < items.length; i += 500) {
    await device.publish('property', { id: `history${i}`, items: items.slice(i, i + 500) });
  }
}

async function openTab(page: Page, name: string): Promise<void> {
  await page.getByRole('tab', { name }).click();
}

test.describe.configure({ mode: 'serial' });

test('device detail: online live, values arriving, hex command with reply, configuration synced', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const user = await newUser('dd');
  const token = await tokenFor(user.username, user.password);
  const id = await deviceFor(token);
  const device = startDevice(id);

  try {
    await signIn(page, user.username, user.password);
    await page.goto(`/device/detail/${id.product_key}/${id.sn}`);
    await expect(page.getByTestId('device-title')).toHaveText('1号泵房 DTU');
    await expect(page.getByTestId('device-status')).toHaveText('离线');
    await expect(page.getByTestId('device-secret')).not.toContainText(id.secret);
    await page.getByRole('button', { name: '显示密钥' }).click();
    await expect(page.getByTestId('device-secret')).toContainText(id.secret);
    await expect(page.getByTestId('device-qr-url')).toHaveText(`${E2E.baseURL}/qrcode/d/${id.sn}`);
    await expect(page.getByText('设备尚未上报位置')).toBeVisible();

    // The device connects: the badge turns online and the cellular info appears without a reload.
    await device.connect();
    await expect(page.getByTestId('device-status')).toHaveText('在线');
    await expect(page.getByTestId('device-cellular')).toContainText('LTE Cat.1');
    await expect(page.getByTestId('device-cellular')).toContainText('-67 dBm');
    await expect(page.getByTestId('device-map')).toBeVisible();
    await page.getByRole('button', { name: '隐藏密钥' }).click(); // masked again for the screenshot
    await page.mouse.move(0, 0);
    await screenshot(page, 'device-detail-info-zh');
    await screenshot(page, 'device-detail-info-full', { fullPage: true });

    // Values arriving: the latest values table follows each report.
    await sendHistory(device);
    await openTab(page, '属性数据');
    await device.report({ temperature: 23.5, humidity: 61 });
    await expect(page.getByTestId('latest-temperature')).toHaveText('23.5 °C');
    await device.report({ temperature: 24.25, humidity: 60 });
    await expect(page.getByTestId('latest-temperature')).toHaveText('24.25 °C');
    await expect(page.getByTestId('property-chart')).toBeVisible();
    // A week in 30-minute buckets: each point is the average of six readings, with their min-max band.
    await page.getByText('7 天', { exact: true }).click();
    await expect(page.getByTestId('property-chart')).toContainText('每点 30 min');
    await screenshot(page, 'device-detail-charts-zh', { settle: () => page.waitForTimeout(500) }); // the chart draws

    // A hex command: the seed's rule is checked in the form, then the device's reply shows in the history.
    await openTab(page, '指令下发');
    await page.getByTestId('command-data').fill('0x0103');
    await page.getByTestId('command-send').click();
    await expect(page.getByText('HEX 数据不能以 0x 开头')).toBeVisible();
    await page.getByTestId('command-data').fill('01030000000AC5CD');
    await page.getByTestId('command-send').click();
    const history = page.getByTestId('command-history');
    const row = history.locator('tbody tr').first();
    await expect(row).toContainText('01030000000AC5CD');
    await expect(row).toContainText('已回复');
    // The reply column (the operations column after it holds Cancel for queued commands only).
    await expect(row.locator('td').nth(-2)).toHaveText('01030000000AC5CD');
    await expect(row.locator('td').last()).toHaveText('-');
    expect(device.commands.map((c) => c.data)).toContain('01030000000AC5CD');

    // Configuration: edit, save, and watch the device apply it until both versions match.
    await openTab(page, '设备配置');
    await expect(page.getByTestId('config-form')).toBeVisible();
    await page.getByRole('tab', { name: 'MQTT' }).click();
    const form = page.getByTestId('config-form');
    await form.getByLabel('服务器地址').fill('mqtt.example.com');
    await form.getByLabel('端口', { exact: true }).first().fill('70000');
    await page.getByTestId('config-save').click();
    await expect(form.getByText('不能大于 65535')).toBeVisible();
    await form.getByLabel('端口', { exact: true }).first().fill('8883');
    await form.getByLabel('主题 1').first().fill(`dtu/${id.sn}/down`);
    await page.getByTestId('config-save').click();
    await expect(page.getByTestId('config-sync')).toHaveText('已同步');
    await expect(page.getByTestId('config-expect-version')).toHaveText('1');
    await expect(page.getByTestId('config-report-version')).toHaveText('1');
    await expect(page.getByText('设备配置与期望配置一致')).toBeVisible();
    expect(device.config.version).toBe(1);
    expect(device.config.config).toMatchObject({
      mqtt: { server: 'mqtt.example.com', port: 8883, subscribe: [{ topic: `dtu/${id.sn}/down` }] },
    });
    const state = await api<{ config_version: number; expect_config_version: number }>(
      'GET',
      `/api/devices/${id.sn}/config`,
      undefined,
      token,
    );
    expect(state.body.data).toMatchObject({ config_version: 1, expect_config_version: 1 });
    await page.getByRole('tab', { name: 'MQTT' }).click();
    await page.getByTestId('device-title').scrollIntoViewIfNeeded();
    await page.mouse.move(0, 0);
    await screenshot(page, 'device-detail-config-zh');

    // The log has the story, filterable by kind.
    await openTab(page, '设备日志');
    await expect(page.getByTestId('device-log')).toContainText('指令回复');
    await expect(page.getByTestId('device-log')).toContainText('上报配置');

    // The same page in English, and the device going offline shows at once.
    await page.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
    await page.goto(`/device/detail/${id.product_key}/${id.sn}`);
    await expect(page.getByTestId('device-status')).toHaveText('Online');
    await page.mouse.move(0, 0);
    await screenshot(page, 'device-detail-info-en');
    await openTab(page, 'Properties');
    await page.getByText('7 days', { exact: true }).click();
    await expect(page.getByTestId('property-chart')).toContainText('30 min per point');
    await screenshot(page, 'device-detail-charts-en', { settle: () => page.waitForTimeout(500) });
    await openTab(page, 'Configuration');
    await expect(page.getByTestId('config-sync')).toHaveText('In sync');
    await page.getByRole('tab', { name: 'MQTT' }).click();
    await page.getByTestId('device-title').scrollIntoViewIfNeeded();
    await page.mouse.move(0, 0);
    await screenshot(page, 'device-detail-config-en');

    await device.goOffline('clean');
    await expect(page.getByTestId('device-status')).toHaveText('Offline');
  } catch (err) {
    const logs = await api('GET', `/api/devices/${id.sn}/logs?per_page=50`, undefined, token);
    console.log(JSON.stringify(logs.body.data, null, 1));
    throw err;
  } finally {
    await device.close();
  }
});

test('device detail of someone else’s device answers like a missing one', async ({ page }) => {
  const owner = await newUser('ddo');
  const id = await deviceFor(await tokenFor(owner.username, owner.password));
  const other = await newUser('ddx');
  await signIn(page, other.username, other.password);
  await page.goto(`/device/detail/${id.product_key}/${id.sn}`);
  await expect(page.getByText('设备不存在，或不属于当前账号')).toBeVisible();
});
