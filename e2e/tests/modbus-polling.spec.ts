import { expect, test } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { demoMeter, ModbusBus } from '../../apps/devsim/src/modbus';
import { E2E } from '../env';
import { api, newUser, signIn, tokenFor, uniqueName } from '../support';

/** Creates a resource through the API and returns its data, failing the test with the body otherwise. */
async function create<T>(path: string, body: unknown, token: string): Promise<T> {
  const res = await api<T>('POST', path, body, token);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.data;
}

test('modbus: the platform polls a devsim meter, test-reads a variable and writes one', async ({ page }) => {
  test.setTimeout(120_000);
  const user = await newUser('modbus');
  const token = await tokenFor(user.username, user.password);
  const { product_key } = await create<{ product_key: string }>(
    '/api/products',
    { name: 'DTU-MODBUS' },
    token,
  );
  const sn = uniqueName('MB').toUpperCase();
  await create('/api/devices', { product_key, sn: [sn] }, token);
  const detail = await api<{ secret: string }>('GET', `/api/devices/${sn}`, undefined, token);
  // A template polled by the platform, describing the devsim demo meter (apps/devsim/src/modbus.ts).
  const tpl = await create<{ id: number }>(
    '/api/data-templates',
    { name: uniqueName('meter'), type: 'modbus_rtu', collect_mode: 'platform' },
    token,
  );
  const slave = await create<{ id: number }>(
    `/api/data-templates/${tpl.id}/slaves`,
    { name: 'meter', address: 1, serial_port: 'rs485' },
    token,
  );
  for (const v of [
    {
      name: 'Cabinet temperature',
      tag: 'cabinet_temp',
      unit: '°C',
      register_type: 'holding',
      register_address: 1,
      data_format: 'int16',
      decimals: 1,
      capture_formula: 'x*0.1',
    },
    {
      name: 'Setpoint',
      tag: 'setpoint',
      register_type: 'holding',
      register_address: 11,
      data_format: 'uint16',
      access: 'rw',
    },
  ])
    await create(
      `/api/data-templates/${tpl.id}/slaves/${slave.id}/variables`,
      { sampling_cycle_s: 1, ...v },
      token,
    );
  await create(`/api/data-templates/${tpl.id}/devices`, { sns: [sn] }, token);

  const bus = new ModbusBus([demoMeter()]);
  const device = new VirtualDevice(
    { sn, product_key, secret: detail.body.data.secret },
    { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30, configGet: false, modbus: bus },
  );
  try {
    await device.connect();
    await signIn(page, user.username, user.password);
    await page.goto(`/device/detail/${product_key}/${sn}?tab=properties`);
    const card = page.getByTestId('modbus-variables-card');
    // Values arrive as the platform polls (1 s cycle): the temperature shows a number in °C.
    await expect(card.getByText(/^\d+(\.\d)? °C$/)).toBeVisible({ timeout: 30_000 });

    await page.getByTestId('mb-read-cabinet_temp').click();
    const result = page.getByTestId('mb-result');
    await expect(result).toBeVisible();
    await expect(page.getByTestId('mb-response-hex')).toHaveText(
      /^01 03 02 [0-9A-F]{2} [0-9A-F]{2} [0-9A-F]{2} [0-9A-F]{2}$/,
    );
    await expect(page.getByTestId('mb-result-value')).toHaveText(/\d+(\.\d)? °C/);
    await page.keyboard.press('Escape');

    await page.getByTestId('mb-write-setpoint').click();
    await page.getByTestId('mb-write-value').fill('77');
    await page.getByTestId('mb-write-submit').click();
    await expect(page.getByTestId('mb-result')).toContainText('01 06 00 0A 00 4D');
    // The slave changed, and polling reads the new value back.
    expect(bus.slave(1)!.words('holding', 10, 1)).toEqual([77]);
    await page.keyboard.press('Escape');
    await expect(card.getByText(/^77$/)).toBeVisible({ timeout: 15_000 });
  } finally {
    await device.close();
  }
});
