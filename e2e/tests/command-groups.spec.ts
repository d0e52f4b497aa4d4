import { expect, test, type Locator, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { admin, api, newUser, screenshot, SCREENSHOTS_DIR, signIn, tokenFor, uniqueName } from '../support';

/**
 * Command groups (docs/product-tooling.md): an admin defines a group with a parameterised HEX command in the
 * browser (an undefined placeholder refused first), a user opens their devsim device, fills the parameters (an
 * out-of-range value refused in the browser), sends it, the device replies, and the history names the command.
 */

/** Picks an option of an Arco select by its text. */
async function choose(page: Page, select: Locator, option: string | RegExp): Promise<void> {
  await select.click();
  await page.locator('.arco-select-option').filter({ hasText: option }).first().click();
}

/** The input of a parameter row's field, by the field's label. */
const paramInput = (row: Locator, label: string) =>
  row.locator('.arco-form-item').filter({ hasText: label }).locator('input').first();

test('an admin defines a parameterised command; a user sends it to a devsim device and history names it', async ({
  page,
}) => {
  const user = await newUser('cg');
  const token = await tokenFor(user.username, user.password);
  const productName = `${uniqueName('CG')}-DTU`;
  const product = await api<{ product_key: string }>('POST', '/api/products', { name: productName }, token);
  expect(product.status).toBe(200);
  const sn = `${uniqueName('CG').toUpperCase()}-1`;
  const pk = product.body.data.product_key;
  expect((await api('POST', '/api/devices', { product_key: pk, sn: [sn] }, token)).status).toBe(200);
  const secret = (await api<{ secret: string }>('GET', `/api/devices/${sn}`, undefined, token)).body.data
    .secret;
  const device = new VirtualDevice(
    { sn, product_key: pk, secret },
    { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30, commandDelayMs: 500 },
  );
  await device.connect();
  try {
    // The admin defines the group and its command.
    await signIn(page, admin.username, admin.password);
    await page.goto('/product/command_group/create');
    await choose(page, page.getByTestId('cg-product'), productName);
    const groupName = uniqueName('Modbus');
    await page.getByTestId('cg-name').fill(groupName);
    await page.getByTestId('cg-save').click();
    await expect(page).toHaveURL(/\/product\/command_group\/detail\/\d+$/);
    const groupId = Number(/detail\/(\d+)$/.exec(page.url())![1]);
    await page.getByTestId('cg-add-command').click();
    await page.getByTestId('cmd-name').fill('读寄存器');
    await page.getByTestId('cmd-data').fill('{{slave}}03{{addr}}{{count}}');
    // slave: an int of one byte, 1..247; addr: two hex bytes.
    await page.getByTestId('cmd-add-param').click();
    const slave = page.getByTestId('cmd-param-0');
    await page.getByTestId('cmd-param-0-name').fill('slave');
    await choose(page, slave.locator('.arco-select'), '整数');
    await paramInput(slave, '最小值').fill('1');
    await paramInput(slave, '最大值').fill('247');
    await paramInput(slave, '字节数').fill('1');
    await page.getByTestId('cmd-add-param').click();
    await page.getByTestId('cmd-param-1-name').fill('addr');
    await paramInput(page.getByTestId('cmd-param-1'), '字节数').fill('2');
    await page.getByTestId('cmd-reply').fill('^01');
    await page.getByTestId('cmd-save').click();
    // {{count}} has no definition: refused in the browser under the template.
    await expect(page.getByText('模板引用了未定义的参数 count')).toBeVisible();
    await page.getByTestId('cmd-data').fill('{{slave}}03{{addr}}0002');
    await page.getByTestId('cmd-save').click();
    await expect(page).toHaveURL(new RegExp(`/product/command_group/detail/${groupId}$`));
    await expect(page.getByTestId('cg-commands')).toContainText('读寄存器');
    await screenshot(page, 'command-group-detail-zh');
    const stored = await api<{ commands: { params: unknown[] }[] }>(
      'GET',
      `/api/command-groups/${groupId}`,
      undefined,
      await tokenFor(admin.username, admin.password),
    );
    expect(stored.body.data.commands[0]?.params).toEqual([
      { name: 'slave', label: '', type: 'int', min: 1, max: 247, bytes: 1 },
      { name: 'addr', label: '', type: 'hex', bytes: 2 },
    ]);

    // The user opens their device and sends it.
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
    await signIn(page, user.username, user.password);
    await page.goto(`/device/detail/${pk}/${sn}?tab=commands`);
    const card = page.getByTestId('command-groups-card');
    await expect(card).toBeVisible();
    await choose(page, card.getByTestId('cg-command'), '读寄存器');
    await card.getByTestId('cg-param-slave').fill('300');
    await card.getByTestId('cg-param-addr').fill('a');
    await card.getByTestId('cg-send').click();
    await expect(card.getByText('超出范围')).toBeVisible();
    await card.getByTestId('cg-param-slave').fill('1');
    await expect(card.getByTestId('cg-preview')).toHaveText('0103000A0002');
    await card.getByTestId('cg-send').click();
    await expect(card.getByTestId('cg-last')).toContainText('回复符合期望');
    const history = page.getByTestId('command-history');
    await expect(history.locator('tr').filter({ hasText: `${groupName} / 读寄存器` })).toContainText(
      '0103000A0002',
    );
    expect(device.commands.map((c) => c.data)).toContain('0103000A0002');
    const rows = await api<{ data: string; status: string; command_ref: { name: string } | null }[]>(
      'GET',
      `/api/devices/${sn}/commands`,
      undefined,
      token,
    );
    expect(rows.body.data[0]).toMatchObject({
      data: '0103000A0002',
      status: 'replied',
      command_ref: { name: '读寄存器', group: groupName },
    });

    if (SCREENSHOTS_DIR) {
      await page.setViewportSize({ width: 1280, height: 900 });
      await screenshot(page, 'command-groups-device-zh', { fullPage: true });
      await page.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
      await page.reload();
      await choose(page, page.getByTestId('cg-command'), '读寄存器');
      await page.getByTestId('cg-param-slave').fill('999');
      await page.getByTestId('cg-param-slave').blur();
      // The side menu slides in after a reload; the picture waits for it (pictures only).
      const settle = () => page.waitForTimeout(800);
      await screenshot(page, 'command-groups-device-en', { fullPage: true, settle });
      await page.getByTestId('navbar-theme').getByRole('button').click();
      await expect(page.locator('body')).toHaveAttribute('arco-theme', 'dark');
      await screenshot(page, 'command-groups-device-en-dark', { fullPage: true });
      await page.context().clearCookies();
      await page.evaluate(() => localStorage.clear());
      await signIn(page, admin.username, admin.password);
      await page.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
      await page.goto('/product/command_group');
      await expect(page.locator('tbody tr').first()).toBeVisible();
      await screenshot(page, 'command-group-list-en');
      await page.goto(`/product/command_group/detail/${groupId}/command/create`);
      await page.getByTestId('cmd-add-param').click();
      await page.getByTestId('cmd-add-param').click();
      await screenshot(page, 'command-edit-en', { fullPage: true });
      await page.evaluate(() => localStorage.setItem('arco-locale', 'zh-CN'));
      await page.goto('/product/command_group');
      await expect(page.locator('tbody tr').first()).toBeVisible();
      await screenshot(page, 'command-group-list-zh');
    }
  } finally {
    await device.close();
  }
});

test('an admin imports a thing model after its preview, and a feature hides the command groups card', async ({
  page,
}) => {
  const user = await newUser('tm');
  const token = await tokenFor(user.username, user.password);
  const adminToken = await tokenFor(admin.username, admin.password);
  const productName = `${uniqueName('TM')}-DTU`;
  const product = await api<{ product_key: string }>(
    'POST',
    '/api/products',
    { name: productName, properties: [{ key: 'temp', name: '温度', unit: '°C' }] },
    token,
  );
  const pk = product.body.data.product_key;
  const sn = `${uniqueName('TM').toUpperCase()}-1`;
  expect((await api('POST', '/api/devices', { product_key: pk, sn: [sn] }, token)).status).toBe(200);
  const group = await api<{ id: number }>(
    'POST',
    '/api/command-groups',
    { product_key: pk, name: 'Basics' },
    adminToken,
  );
  await api(
    'POST',
    `/api/command-groups/${group.body.data.id}/commands`,
    { name: 'Ping', type: 'string', data: 'PING' },
    adminToken,
  );

  // Thing model: export shape, import with a preview of the changes, confirm.
  await signIn(page, admin.username, admin.password);
  await page.goto('/product/model');
  await choose(page, page.getByTestId('model-product'), productName);
  await expect(page.getByRole('tab', { name: /属性 \(1\)/ })).toBeVisible();
  const model = {
    properties: [{ key: 'temp', name: '温度', unit: '°C', cycles: 60 }],
    events: [
      {
        key: 'overheat',
        name: '过热',
        level: 'warn',
        output: [{ key: 'temp', name: '温度', datatype: 'float' }],
      },
    ],
    services: [
      { key: 'reboot', name: '重启', input: [{ key: 'delay', name: '延时', datatype: 'int', unit: 's' }] },
    ],
  };
  await page.getByTestId('model-file').setInputFiles({
    name: 'model.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(model)),
  });
  const dialog = page.locator('.arco-modal');
  await expect(dialog).toContainText('+ overheat');
  await expect(dialog).toContainText('~ temp');
  // Pictures wait for the dialog's and the table's fade-in (only when pictures are asked for).
  const fade = () => page.waitForTimeout(600);
  await screenshot(page, 'thing-model-preview-zh', { settle: fade });
  await dialog.getByRole('button', { name: '替换物模型' }).click();
  await expect(page.getByRole('tab', { name: /事件 \(1\)/ })).toBeVisible();
  await page.getByRole('tab', { name: /事件/ }).click();
  await expect(page.locator('tbody tr').filter({ hasText: 'overheat' })).toContainText('告警');
  await screenshot(page, 'thing-model-events-zh', { settle: fade });
  const stored = await api<{ services: { key: string }[] }>(
    'GET',
    `/api/thing-models/${pk}`,
    undefined,
    adminToken,
  );
  expect(stored.body.data.services.map((s) => s.key)).toEqual(['reboot']);
  // A file that is not a thing model is refused in the browser.
  await page.getByTestId('model-file').setInputFiles({
    name: 'bad.json',
    mimeType: 'application/json',
    buffer: Buffer.from('{"events":[{"key":"1 bad"}]}'),
  });
  await expect(page.getByText(/文件不是有效的物模型 JSON/)).toBeVisible();

  // Features: a feature without the command groups panel hides the card on the product's devices.
  await page.goto('/product/feature/create');
  await page.getByTestId('feature-key').fill(`gps${Date.now() % 100000}`);
  await page.getByTestId('feature-name').fill('GPS 定位');
  await choose(page, page.getByTestId('feature-products'), productName);
  await page.keyboard.press('Escape');
  await page.getByTestId('feature-save').click();
  await expect(page).toHaveURL(/\/product\/feature\/detail\/\d+$/);
  await expect(page.locator('.arco-descriptions').getByText(productName)).toBeVisible();
  await screenshot(page, 'feature-detail-zh', { settle: fade });
  await page.goto('/product/feature');
  await expect(page.locator('tbody tr').first()).toBeVisible();
  await screenshot(page, 'feature-list-zh', { settle: fade });

  await page.evaluate(() => localStorage.clear());
  await signIn(page, user.username, user.password);
  await page.goto(`/device/detail/${pk}/${sn}?tab=commands`);
  await expect(page.getByTestId('command-history')).toBeVisible();
  await expect(page.getByTestId('command-groups-card')).toHaveCount(0);
  const groups = await api<unknown[]>('GET', `/api/devices/${sn}/command-groups`, undefined, token);
  expect(groups.body.data).toEqual([]);
});
