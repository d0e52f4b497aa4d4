import { expect, type Page, test } from '@playwright/test';
import { withCrc } from '../../packages/contract/src/modbus/crc';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { demoMeter, ModbusBus } from '../../apps/devsim/src/modbus';
import { E2E } from '../env';
import { api, newUser, screenshot, signIn, tokenFor, uniqueName } from '../support';

/** Picks a device in one of the rule form's device pickers. */
async function pick(page: Page, testId: string, sn: string): Promise<void> {
  const picker = page.getByTestId(testId);
  await picker.click();
  await picker.locator('input').fill(sn);
  await page
    .locator('.arco-select-popup:visible .arco-select-option')
    .filter({ hasText: sn })
    .first()
    .click();
  await page.keyboard.press('Escape');
}

test('data transmission: a SCADA DTU polls a devsim meter through a rule made in the browser', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const user = await newUser('transmit');
  const token = await tokenFor(user.username, user.password);
  const product = await api<{ product_key: string }>('POST', '/api/products', { name: 'DTU-485' }, token);
  expect(product.status, JSON.stringify(product.body)).toBe(200);
  const { product_key } = product.body.data;
  const scadaSn = uniqueName('SCADA').toUpperCase();
  const meterSn = uniqueName('METER').toUpperCase();
  const created = await api('POST', '/api/devices', { product_key, sn: [scadaSn, meterSn] }, token);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const secret = async (sn: string) =>
    (await api<{ secret: string }>('GET', `/api/devices/${sn}`, undefined, token)).body.data.secret;

  // The edge DTU has the devsim demo meter (Modbus slave 1) on its serial port; the management DTU stands for the
  // SCADA PC's one and records what reaches its serial port.
  const url = `mqtt://127.0.0.1:${E2E.mqttPort}`;
  const meter = new VirtualDevice(
    { sn: meterSn, product_key, secret: await secret(meterSn) },
    { url, keepalive: 30, configGet: false, modbus: new ModbusBus([demoMeter(1)]) },
  );
  const received: Uint8Array[] = [];
  const serialPort = {
    receive: async (bytes: Uint8Array) => {
      received.push(bytes);
    },
  } as unknown as ModbusBus;
  const scada = new VirtualDevice(
    { sn: scadaSn, product_key, secret: await secret(scadaSn) },
    { url, keepalive: 30, configGet: false, modbus: serialPort },
  );
  try {
    await Promise.all([meter.connect(), scada.connect()]);
    await signIn(page, user.username, user.password);

    await page.goto('/data-transmit/list');
    await expect(page.getByText('还没有转发规则')).toBeVisible();
    await page.getByRole('button', { name: '创建规则' }).first().click();
    await page.waitForURL(/\/data-transmit\/create$/);
    const name = uniqueName('boiler');
    await page.getByTestId('dt-name').fill(name);
    await pick(page, 'dt-management', scadaSn);
    await pick(page, 'dt-edge', meterSn);
    await page.getByTestId('dt-mode').getByText('按 Modbus 从机地址').click();
    await page.getByTestId(`dt-addr-${meterSn}`).fill('1');
    await screenshot(page, 'data-transmit-form');
    await page.getByTestId('dt-save').click();
    await page.waitForURL(/\/data-transmit\/detail\/\d+$/);
    await expect(page.getByText('实时', { exact: true })).toBeVisible();

    // Read holding register 10 of slave 1 (the demo meter holds 50 there): request and answer, byte for byte.
    const request = withCrc(new Uint8Array([0x01, 0x03, 0x00, 0x0a, 0x00, 0x01]));
    await scada.publishBytes('raw', request);
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(Buffer.from(received[0]!).toString('hex')).toBe(
      Buffer.from(withCrc(new Uint8Array([0x01, 0x03, 0x02, 0x00, 0x32]))).toString('hex'),
    );

    // The counters arrive live: 8 request bytes down to the meter, 7 answer bytes down to the SCADA DTU.
    await expect(page.getByTestId(`dt-down-${meterSn}`)).toContainText('1 帧', { timeout: 15_000 });
    await expect(page.getByTestId(`dt-down-${meterSn}`)).toContainText('8 B');
    await expect(page.getByTestId(`dt-up-${meterSn}`)).toContainText('7 B');
    await expect(page.getByTestId(`dt-down-${scadaSn}`)).toContainText('1 帧');
    await expect(page.getByTestId(`dt-drops-${scadaSn}`)).toHaveText('0');
    await screenshot(page, 'data-transmit-detail');

    // A frame for a slave address no edge device has goes nowhere and counts as a drop of the sender.
    await scada.publishBytes('raw', withCrc(new Uint8Array([0x09, 0x03, 0x00, 0x0a, 0x00, 0x01])));
    await expect(page.getByTestId(`dt-drops-${scadaSn}`)).toHaveText('1', { timeout: 15_000 });

    // The list shows the rule; switching it off stops the bus.
    await page.goto('/data-transmit/list');
    const row = page.locator('.arco-table-tr').filter({ hasText: name });
    await expect(row).toContainText(scadaSn);
    await row.getByRole('switch').click();
    await expect(row.getByRole('switch')).not.toBeChecked();
    await screenshot(page, 'data-transmit-list');
    const before = received.length;
    await scada.publishBytes('raw', request);
    // Switched back on, the next request (read coil 0) is answered first: had the register read sent while off
    // gone through, its answer (function 3) would come before.
    await row.getByRole('switch').click();
    await expect(row.getByRole('switch')).toBeChecked();
    await scada.publishBytes('raw', withCrc(new Uint8Array([0x01, 0x01, 0x00, 0x00, 0x00, 0x01])));
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(before);
    expect(received[before]![1]).toBe(0x01);
  } finally {
    await Promise.all([meter.close(), scada.close()].map((p) => p.catch(() => undefined)));
  }
});
