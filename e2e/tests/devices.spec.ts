import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import ExcelJS from 'exceljs';
import { Fleet } from '../../apps/devsim/src/fleet';
import { E2E } from '../env';
import { admin, api, newUser, signIn, tokenFor } from '../support';

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;

/** Writes a screenshot for docs/screenshots when E2E_SCREENSHOTS_DIR is set (a manual run); otherwise nothing. */
async function shot(page: Page, name: string) {
  if (!SHOTS) return;
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** What the product calls the properties devsim reports: the list and its export use these words and units. */
const PROPERTIES = [
  { key: 'temperature', name: '温度', name_us: 'Temperature', unit: '°C' },
  { key: 'humidity', name: '湿度', name_us: 'Humidity', unit: '%' },
];

async function newProduct(token: string, name: string): Promise<string> {
  const r = await api<{ product_key: string }>(
    'POST',
    '/api/products',
    { name, properties: PROPERTIES },
    token,
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.product_key;
}

async function chooseProduct(page: Page, name: string) {
  await page.locator('.arco-tabs-content-item-active .arco-select').first().click();
  await page.locator('.arco-select-popup:visible .arco-select-option').filter({ hasText: name }).click();
}

function rowOf(page: Page, sn: string) {
  return page.locator('.arco-table-tr').filter({ has: page.getByRole('link', { name: sn, exact: true }) });
}

async function xlsxFile(rows: string[][]): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('devices');
  for (const r of rows) ws.addRow(r);
  const path = join(mkdtempSync(join(tmpdir(), 'cellhub-import-')), 'devices.xlsx');
  writeFileSync(path, Buffer.from(await wb.xlsx.writeBuffer()));
  return path;
}

test('create devices in the UI, see them come online live, import a spreadsheet, unbind', async ({
  page,
}) => {
  const user = await newUser('dev');
  const token = await tokenFor(user.username, user.password);
  const productKey = await newProduct(token, `Boiler DTU ${user.username}`);
  const otherKey = await newProduct(token, `Other ${user.username}`);
  const tag = user.username.slice(-8).toUpperCase();
  const [sn1, sn2, taken, foreign] = ['A', 'B', 'OLD', 'OTHER'].map((s) => `E2E-${tag}-${s}`) as [
    string,
    string,
    string,
    string,
  ];
  await api('POST', '/api/devices', { product_key: productKey, sn: [taken] }, token);
  await api('POST', '/api/devices', { product_key: otherKey, sn: [foreign] }, token);

  await signIn(page, user.username, user.password);
  await page.goto('/device/create');
  await chooseProduct(page, `Boiler DTU ${user.username}`);
  // A bad SN is named by its line before anything is sent (not "10113 · form error").
  await page.getByPlaceholder('每行一个序列号，最多 1000 个').fill(`${sn1}\nbad sn`);
  await page.getByRole('button', { name: '添加', exact: true }).click();
  await expect(page.getByText(/1 行序列号格式不正确：第 2 行“bad sn”/)).toBeVisible();
  await page.getByPlaceholder('每行一个序列号，最多 1000 个').fill([sn1, sn2, taken, foreign].join('\n'));
  await expect(page.getByText('4 个序列号')).toBeVisible();
  await page.getByRole('button', { name: '添加', exact: true }).click();
  await expect(page.getByText('成功 2 个，失败 2 个')).toBeVisible();
  const result = page.locator('.arco-table').last();
  await expect(result.locator('tr', { hasText: sn1 }).getByText('已创建', { exact: true })).toBeVisible();
  await expect(
    result.locator('tr', { hasText: taken }).getByText('序列号已存在', { exact: true }),
  ).toBeVisible();
  await expect(
    result.locator('tr', { hasText: foreign }).getByText('不属于该产品', { exact: true }),
  ).toBeVisible();

  // The devices start offline; devsim brings two of them online and the list follows without a reload.
  await page.goto('/device/list');
  await expect(rowOf(page, sn1).getByText('离线')).toBeVisible();
  const identities = await Promise.all(
    [sn1, sn2].map(async (sn) => {
      const d = await api<{ secret: string }>('GET', `/api/devices/${sn}`, undefined, token);
      return { sn, product_key: productKey, secret: d.body.data.secret };
    }),
  );
  const fleet = new Fleet(identities, {
    url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
    rate: 1,
    connectRate: 0,
    flapRatio: 0,
    offlineEvery: 3600,
    offlineFor: 1,
    badRatio: 0,
    infoEvery: 0,
    properties: ['temperature', 'humidity'],
    bufferOffline: 0,
  });
  try {
    await fleet.start();
    await expect(rowOf(page, sn1).getByText('在线')).toBeVisible({ timeout: 20_000 });
    await expect(rowOf(page, sn2).getByText('在线')).toBeVisible();
    // Latest data in the product's words and units, not `temperature=21.5`.
    await expect(rowOf(page, sn1).getByText(/温度 -?[\d.]+ °C/)).toBeVisible({ timeout: 20_000 });
    await expect(page.getByText('实时更新中')).toBeVisible();

    // Column picker: the choice survives a reload.
    await page.getByRole('button', { name: '列设置' }).click();
    await page.locator('.arco-popover-content').getByText('固件版本').click();
    await expect(page.locator('.arco-table-th').filter({ hasText: '固件版本' })).toHaveCount(0);
    await page.reload();
    await expect(rowOf(page, sn1)).toBeVisible();
    await expect(page.locator('.arco-table-th').filter({ hasText: '固件版本' })).toHaveCount(0);
    await expect(page.locator('.arco-table-th').filter({ hasText: 'IMEI' })).toHaveCount(1);

    // Export the filtered list as CSV.
    await page.getByPlaceholder('序列号、名称、IMEI 或 ICCID').fill(`E2E-${tag}`);
    await page.getByRole('button', { name: '查询' }).click();
    await page.getByRole('button', { name: '导出' }).hover();
    const downloading = page.waitForEvent('download');
    await page.getByRole('menuitem', { name: '导出 CSV' }).click();
    const file = await downloading;
    expect(file.suggestedFilename()).toMatch(/^devices-\d{8}-\d{4}\.csv$/);
    const csv = readFileSync(await file.path(), 'utf8');
    expect(csv.charCodeAt(0)).toBe(0xfeff);
    expect(csv).toContain(sn1);
    const [header, ...lines] = csv.slice(1).split('\r\n');
    expect(header).toContain('序列号');
    // One column per property, named with its unit; the values are bare numbers (not quoted, no formula guard).
    const columns = header!.split(',');
    const temp = columns.indexOf('温度 (°C)');
    expect(temp, header).toBeGreaterThan(-1);
    const row = lines.find((l) => l.startsWith(`${sn1},`))!.split(',');
    expect(row[temp]).toMatch(/^-?\d+(\.\d+)?$/);
  } finally {
    await fleet.stop();
  }

  // Import: the spreadsheet renames an existing device and adds a new one; update-only then refuses new SNs.
  const fresh = `E2E-${tag}-XLS`;
  await page.goto('/device/create');
  await page.getByRole('tab', { name: '从文件导入' }).click();
  await chooseProduct(page, `Boiler DTU ${user.username}`);
  await page.locator('input[type=file]').setInputFiles(
    await xlsxFile([
      ['sn', 'name', 'imei'],
      [sn1, 'Boiler room', '861234567890123'],
      [fresh, 'New from Excel', ''],
      ['bad/sn', '', ''],
    ]),
  );
  await page.getByRole('button', { name: '导入', exact: true }).click();
  await expect(page.getByText('共 3 行：新建 1，更新 1，失败 1')).toBeVisible();
  const importResult = page.locator('.arco-tabs-content-item-active .arco-table');
  await expect(
    importResult.locator('tr', { hasText: sn1 }).getByText('已更新', { exact: true }),
  ).toBeVisible();
  await expect(
    importResult.locator('tr', { hasText: fresh }).getByText('已创建', { exact: true }),
  ).toBeVisible();
  await expect(
    importResult.locator('tr', { hasText: 'bad/sn' }).getByText('无效', { exact: true }),
  ).toBeVisible();
  // Which line broke which rule, in the user's language (not "10113 · sn: sn_rule").
  await expect(
    importResult.locator('tr', { hasText: 'bad/sn' }).getByText(/^第 4 行：序列号只能由字母、数字/),
  ).toBeVisible();
  await page.locator('.arco-tabs-content-item-active .arco-checkbox').click();
  await page.locator('input[type=file]').setInputFiles({
    name: 'update.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`sn,name\n${sn2},Renamed\nE2E-${tag}-NONE,x\n`),
  });
  await page.getByRole('button', { name: '导入', exact: true }).click();
  await expect(page.getByText('共 2 行：新建 0，更新 1，失败 1')).toBeVisible();
  await expect(importResult.getByText('设备不存在（仅更新）')).toBeVisible();
  const renamed = await api<{ name: string }>('GET', `/api/devices/${sn1}`, undefined, token);
  expect(renamed.body.data.name).toBe('Boiler room');

  // Unbind: the confirmation names what happens; the device leaves the user's list.
  await page.goto('/device/list');
  await rowOf(page, sn2).getByRole('button', { name: '解绑' }).click();
  const confirm = page.locator('.arco-popconfirm');
  await expect(confirm.getByText('确定要解绑吗？')).toBeVisible();
  await expect(confirm.getByText(/原密钥立即失效/)).toBeVisible();
  await confirm.getByRole('button', { name: '确定' }).click();
  await expect(rowOf(page, sn2)).toHaveCount(0);
  const gone = await api('GET', `/api/devices/${sn2}`, undefined, token);
  expect(gone.body.code).toBe(10117);
});

test('bind an in-stock device with its secret; its public page shows only safe fields', async ({
  page,
  browser,
}) => {
  const adminToken = await tokenFor(admin.username, admin.password);
  const productName = `Stock DTU ${Date.now().toString(36)}`;
  const productKey = await newProduct(adminToken, productName);
  const sn = `E2E-STOCK-${Date.now().toString(36).toUpperCase()}`;
  await api('POST', '/api/devices', { product_key: productKey, sn: [sn], name: 'Water meter' }, adminToken);
  const secret = (await api<{ secret: string }>('GET', `/api/devices/${sn}`, undefined, adminToken)).body.data
    .secret;

  const user = await newUser('bind');
  await signIn(page, user.username, user.password);
  await page.goto('/device/bind');
  await page.getByPlaceholder('设备序列号').fill(sn);
  await page.getByPlaceholder('设备标签上或卖家提供的密钥').fill('not-the-secret');
  await page.getByRole('button', { name: '绑定', exact: true }).click();
  await expect(page.getByText('序列号或密钥不正确')).toBeVisible();
  // Said once, beside the field: no toast on top of it.
  await expect(page.locator('.arco-message')).toHaveCount(0);
  await page.getByPlaceholder('设备标签上或卖家提供的密钥').fill(secret);
  await page.getByRole('button', { name: '绑定', exact: true }).click();
  await expect(page.getByText(`设备 ${sn} 已绑定到你的账号`)).toBeVisible();
  await page.getByRole('button', { name: '查看设备' }).click();
  await expect(page).toHaveURL(new RegExp(`/device/detail/${productKey}/${sn}$`));

  // The label page needs no sign-in and shows no owner or secret.
  const anonymous = await browser.newContext({
    baseURL: E2E.baseURL,
    viewport: { width: 1440, height: 900 },
  });
  const pub = await anonymous.newPage();
  await pub.goto(`/qrcode/d/${sn}`);
  await expect(pub.getByText('Water meter')).toBeVisible();
  await expect(pub.getByText(productName)).toBeVisible();
  await expect(pub.getByText('离线')).toBeVisible();
  await expect(pub.getByText(secret)).toHaveCount(0);
  await expect(pub.getByText(user.username)).toHaveCount(0);
  await expect(pub).toHaveURL(new RegExp(`/qrcode/d/${sn}$`));
  await pub.goto('/qrcode/d/NO-SUCH-DEVICE');
  await expect(pub.getByText('设备不存在')).toBeVisible();
  await anonymous.close();
});

// A manual run with E2E_SCREENSHOTS_DIR set writes the pages of docs/screenshots in both languages; it is not a
// test, so it is not registered otherwise.
const screenshotRun = SHOTS ? test : undefined;
screenshotRun?.('screenshots of the device pages', async ({ browser }) => {
  const user = await newUser('shot');
  const token = await tokenFor(user.username, user.password);
  const productKey = await newProduct(token, 'Boiler DTU');
  const sns = Array.from({ length: 6 }, (_, i) => `BLR-2024-${String(i + 1).padStart(4, '0')}`);
  await api('POST', '/api/devices', { product_key: productKey, sn: sns, name: 'Boiler room' }, token);
  const identities = await Promise.all(
    sns.slice(0, 4).map(async (sn) => {
      const d = await api<{ secret: string }>('GET', `/api/devices/${sn}`, undefined, token);
      return { sn, product_key: productKey, secret: d.body.data.secret };
    }),
  );
  const fleet = new Fleet(identities, {
    url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
    rate: 0.5,
    connectRate: 0,
    flapRatio: 0,
    offlineEvery: 3600,
    offlineFor: 1,
    badRatio: 0,
    infoEvery: 0,
    properties: ['temperature', 'humidity', 'voltage'],
    bufferOffline: 0,
  });
  await fleet.start();
  try {
    for (const [lang, tag] of [
      ['zh-CN', 'zh'],
      ['en-US', 'en'],
    ] as const) {
      const context = await browser.newContext({
        baseURL: E2E.baseURL,
        viewport: { width: 1440, height: 900 },
      });
      await context.addInitScript((l) => localStorage.setItem('arco-locale', l), lang);
      const page = await context.newPage();
      await signIn(page, user.username, user.password);
      await page.goto('/device/list');
      await expect(rowOf(page, sns[0]!).locator('.arco-badge-status-success')).toBeVisible({
        timeout: 20_000,
      });
      await expect(rowOf(page, sns[0]!).getByText(lang === 'zh-CN' ? /温度 / : /Temperature /)).toBeVisible({
        timeout: 20_000,
      });
      await shot(page, `device-list-${tag}`);
      await page.goto('/device/create');
      await chooseProduct(page, 'Boiler DTU');
      await page
        .locator('.arco-tabs-content-item-active textarea')
        .first()
        .fill(`${sns[0]}\nBLR-${tag.toUpperCase()}-0100\nBLR-${tag.toUpperCase()}-0101`);
      await page.locator('button[type=submit]').click();
      await expect(page.locator('.arco-alert')).toBeVisible();
      await page.locator('.arco-tabs-content-item-active .arco-table-tr').last().scrollIntoViewIfNeeded();
      await shot(page, `device-create-${tag}`);
      await page.goto('/device/bind');
      await page.locator('input').first().fill('BLR-2024-0200');
      await shot(page, `device-bind-${tag}`);
      await page.goto(`/qrcode/d/${sns[0]}`);
      await expect(page.locator('.arco-badge-status-success')).toBeVisible();
      await shot(page, `device-qrcode-${tag}`);
      await context.close();
    }
  } finally {
    await fleet.stop();
  }
});
