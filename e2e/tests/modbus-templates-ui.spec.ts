import { expect, type Page, test } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { demoMeter, ModbusBus } from '../../apps/devsim/src/modbus';
import { E2E } from '../env';
import { api, newUser, signIn, tokenFor, uniqueName } from '../support';

// Issue 16's browser flow, all in the console: a data template built from the list page (platform polls, one
// slave, two variables, one with a capture formula), applied to a devsim DTU from the template's page; the values
// arrive on the device page, a test read shows both frames, and a write changes the devsim slave's register.

/** Fills an Arco input, whether the test id sits on the <input> or on its wrapper (InputNumber). */
async function fillInput(page: Page, testId: string, value: string): Promise<void> {
  const el = page.getByTestId(testId);
  const input = (await el.evaluate((e) => e.tagName)) === 'INPUT' ? el : el.locator('input');
  await input.fill(value);
}

/** Picks an option of the Arco Select in the form item labelled `label` of the open variable form. */
async function pickOption(page: Page, label: string, option: string): Promise<void> {
  const item = page
    .getByTestId('dt-variable-form')
    .locator('.arco-form-item')
    .filter({ has: page.locator(`label:text-is("${label}")`) });
  await item.locator('.arco-select').click();
  await page.locator('.arco-select-popup:visible .arco-select-option', { hasText: option }).first().click();
}

test('modbus: a template built in the console polls a devsim DTU, test-reads and writes', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const user = await newUser('mbui');
  const token = await tokenFor(user.username, user.password);
  const product = await api<{ product_key: string }>('POST', '/api/products', { name: 'DTU-MB-UI' }, token);
  expect(product.status, JSON.stringify(product.body)).toBe(200);
  const { product_key } = product.body.data;
  const sn = uniqueName('MBUI').toUpperCase();
  expect((await api('POST', '/api/devices', { product_key, sn: [sn] }, token)).status).toBe(200);
  const detail = await api<{ secret: string }>('GET', `/api/devices/${sn}`, undefined, token);
  const bus = new ModbusBus([demoMeter()]);
  const device = new VirtualDevice(
    { sn, product_key, secret: detail.body.data.secret },
    { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30, configGet: false, modbus: bus },
  );
  try {
    await device.connect();
    await signIn(page, user.username, user.password);

    // Create from the list page: the form opens the new template's page.
    await page.goto('/scene/data-template/list');
    await page.getByRole('button', { name: '新建模板' }).first().click();
    const name = uniqueName('电表模板');
    await page.getByTestId('dt-name').fill(name);
    await page.getByTestId('dt-template-form').getByText('平台轮询', { exact: true }).click();
    await page.getByRole('button', { name: '确定' }).click();
    await page.waitForURL(/\/scene\/data-template\/detail\/\d+/);

    // One slave (address 1, RS485 are the form's defaults).
    await page.getByTestId('dt-add-slave').click();
    await page.getByTestId('dt-slave-form').locator('input').first().fill('电表');
    await page.getByRole('button', { name: '确定' }).click();
    await expect(page.getByTestId('dt-slave-form')).toBeHidden();

    // Cabinet temperature: holding register 1, int16, capture formula x*0.1, one decimal.
    await page.getByTestId('dt-add-variable').click();
    await page.getByTestId('dt-var-name').fill('柜内温度');
    await page.getByTestId('dt-var-tag').fill('cabinet_temp');
    await fillInput(page, 'dt-var-address', '1');
    await page
      .getByTestId('dt-variable-form')
      .locator('.arco-form-item')
      .filter({ hasText: '单位' })
      .locator('input')
      .fill('°C');
    await page
      .getByTestId('dt-variable-form')
      .locator('.arco-form-item')
      .filter({ hasText: '小数位' })
      .locator('input')
      .fill('1');
    await page.getByTestId('dt-var-capture').fill('x*0.1');
    await page.getByRole('button', { name: '确定' }).click();
    await expect(page.getByTestId('dt-variable-form')).toBeHidden();
    await expect(page.getByText('cabinet_temp')).toBeVisible();

    // Setpoint: holding register 11, read-write.
    await page.getByTestId('dt-add-variable').click();
    await page.getByTestId('dt-var-name').fill('设定值');
    await page.getByTestId('dt-var-tag').fill('setpoint');
    await fillInput(page, 'dt-var-address', '11');
    await pickOption(page, '读写', '读写');
    await page
      .getByTestId('dt-variable-form')
      .locator('.arco-form-item')
      .filter({ hasText: '采集周期' })
      .locator('input')
      .fill('2');
    await page.getByRole('button', { name: '确定' }).click();
    await expect(page.getByTestId('dt-variable-form')).toBeHidden();
    await expect(page.getByText('setpoint')).toBeVisible();

    // Apply to the DTU from the template's page.
    await page.getByTestId('dt-apply').click();
    await fillInput(page, 'dt-apply-search', sn);
    await page.keyboard.press('Enter');
    const row = page.locator('.arco-modal .arco-table-tr', { hasText: sn });
    await row.locator('.arco-checkbox').click();
    await page.locator('.arco-modal').getByRole('button', { name: '应用' }).click();
    // The page's table of applied devices, not the closing dialog's (which still lists the device while it fades).
    const applied = page.locator('.arco-card').filter({
      has: page.locator('.arco-card-header-title', { hasText: '已应用的设备' }),
    });
    await expect(applied.locator('.arco-table-tr', { hasText: sn })).toBeVisible();

    // The device page: values arrive as the platform polls.
    await page.goto(`/device/detail/${product_key}/${sn}?tab=properties`);
    const card = page.getByTestId('modbus-variables-card');
    await expect(card.getByText(/^\d+(\.\d)? °C$/)).toBeVisible({ timeout: 30_000 });
    await expect(card.getByText(/^50$/)).toBeVisible();

    // Test read: the request and the response frames, and the decoded value.
    await page.getByTestId('mb-read-cabinet_temp').click();
    const result = page.getByTestId('mb-result');
    await expect(result).toContainText('01 03 00 00 00 01 84 0A');
    await expect(page.getByTestId('mb-response-hex')).toHaveText(
      /^01 03 02 [0-9A-F]{2} [0-9A-F]{2} [0-9A-F]{2} [0-9A-F]{2}$/,
    );
    await expect(page.getByTestId('mb-result-value')).toHaveText(/^\d+(\.\d)? °C$/);
    await page.keyboard.press('Escape');

    // Write: function code 6 to register 11 (protocol address 10), and the slave holds the new value.
    await page.getByTestId('mb-write-setpoint').click();
    await page.getByTestId('mb-write-value').fill('88');
    await page.getByTestId('mb-write-submit').click();
    await expect(page.getByTestId('mb-result')).toContainText('01 06 00 0A 00 58');
    await expect.poll(() => bus.slave(1)!.words('holding', 10, 1)[0]).toBe(88);
    await page.keyboard.press('Escape');
    await expect(card.getByText(/^88$/)).toBeVisible({ timeout: 15_000 });
  } finally {
    await device.close();
  }
});
