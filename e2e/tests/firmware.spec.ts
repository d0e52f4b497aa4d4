import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
import { E2E } from '../env';
import { admin, api, menuEntry, newUser, signIn, sideMenu, toast, tokenFor, uniqueName } from '../support';

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A 64 KB image that is clearly binary (the store refuses text renamed to .bin). */
function firmwareBytes(size = 64 * 1024): Buffer {
  const b = randomBytes(size);
  b.writeUInt32BE(0x7f454c46, 0);
  return b;
}

interface Version {
  id: number;
  version: string;
  size: number;
  checksum: string;
  algorithm: string;
  md5: string;
  sha256: string;
  latest: boolean;
  description: string;
}

async function newProduct(token: string, name: string): Promise<string> {
  const r = await api<{ product_key: string }>('POST', '/api/products', { name }, token);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.product_key;
}

/** The Arco Select of the form item labelled `label`: searches `search` and picks the option matching it. */
async function pick(page: Page, label: string, search: string) {
  const select = page.locator('.arco-form-item').filter({ hasText: label }).locator('.arco-select').first();
  await select.click();
  await select.locator('input').fill(search);
  await page.locator('.arco-select-popup:visible .arco-select-option').filter({ hasText: search }).click();
}

/** Arco's button-style radio: the input is hidden, its label takes the click. */
async function radio(page: Page, text: string) {
  await page.locator('.arco-radio-group').getByText(text, { exact: true }).click();
}

function versionRow(page: Page, version: string) {
  return page.locator('.arco-table-tr').filter({ has: page.getByText(version, { exact: true }) });
}

/** The "latest" tag of a version row (the row's "set as latest" button also says 最新). */
function latestTag(row: Locator) {
  return row.locator('.arco-tag').filter({ hasText: /^最新$/ });
}

async function uploadVersion(
  page: Page,
  file: { name: string; content: Buffer },
  fields: { version: string; algorithm?: 'MD5' | 'SHA-256'; checksum?: string; latest?: boolean },
) {
  await page.getByRole('button', { name: '上传版本' }).first().click();
  await page.waitForURL(/\/firmware\/detail\/\d+\/version\/create$/);
  await page.locator('input[type=file]').setInputFiles({
    name: file.name,
    mimeType: 'application/octet-stream',
    buffer: file.content,
  });
  await expect(page.getByTestId('firmware-file')).toContainText(file.name);
  await page.getByLabel('版本号').fill(fields.version);
  if (fields.algorithm) await radio(page, fields.algorithm);
  if (fields.checksum) await page.getByLabel('校验值').fill(fields.checksum);
  if (fields.latest) await page.getByRole('switch').click();
  await page.getByRole('button', { name: '上传', exact: true }).click();
}

test('admin creates a firmware, uploads versions (checksum checked), sets latest, edits and deletes with confirmation', async ({
  page,
}) => {
  const adminToken = await tokenFor(admin.username, admin.password);
  const productName = uniqueName('FW DTU ');
  const productKey = await newProduct(adminToken, productName);
  const name = uniqueName('DTU main ');
  await signIn(page, admin.username, admin.password);

  // Create the firmware from the list
  await menuEntry(page, '固件管理').click();
  await sideMenu(page).getByText('固件列表', { exact: true }).click();
  await page.waitForURL('**/firmware/list');
  await page.getByRole('button', { name: '创建固件' }).first().click();
  await page.waitForURL('**/firmware/create');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByText('请输入固件名称')).toBeVisible();
  await expect(page.getByText('请选择产品')).toBeVisible();
  await page.getByLabel('固件名称').fill(name);
  await pick(page, '所属产品', productName);
  await radio(page, '正式');
  await page.getByLabel('升级对象').fill('mcu');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '创建成功').last()).toBeVisible();
  await page.waitForURL(/\/firmware\/detail\/\d+$/);
  const firmwareId = Number(page.url().split('/').pop());
  await expect(page.getByText('还没有版本')).toBeVisible();
  await expect(page.getByText(productName)).toBeVisible();
  await expect(page.getByText(productKey, { exact: true })).toBeVisible();

  // Upload a 64 KB version with its SHA-256, as the latest
  const v1 = firmwareBytes();
  await uploadVersion(
    page,
    { name: 'dtu-1.0.0.bin', content: v1 },
    { version: '1.0.0', algorithm: 'SHA-256', checksum: sha256(v1), latest: true },
  );
  await expect(toast(page, '上传成功').last()).toBeVisible();
  await page.waitForURL(new RegExp(`/firmware/detail/${firmwareId}$`));
  const row1 = versionRow(page, '1.0.0');
  await expect(row1).toContainText('64 KB');
  await expect(row1).toContainText(sha256(v1));
  await expect(row1).toContainText('SHA-256');
  await expect(latestTag(row1)).toBeVisible();

  // Import from a URL: the server refuses to fetch from its own network (SSRF guard), said under the URL field
  await page.getByRole('button', { name: '上传版本' }).first().click();
  await page.locator('.arco-radio-group').getByText('从链接导入', { exact: true }).click();
  await page.getByLabel('下载链接').fill(`http://127.0.0.1:${E2E.port}/api/health`);
  await page.getByLabel('版本号').fill('9.9.9');
  await page.getByRole('button', { name: '导入', exact: true }).click();
  await expect(page.locator('.arco-form-item').filter({ hasText: '下载链接' })).toContainText(
    'the URL points to a private or local address',
  );
  await page.getByRole('button', { name: '取消' }).click();
  await page.waitForURL(new RegExp(`/firmware/detail/${firmwareId}$`));

  // A wrong checksum is refused under its field and nothing is stored
  const v2 = firmwareBytes();
  await uploadVersion(page, { name: 'dtu-1.1.0.bin', content: v2 }, { version: '1.1.0', checksum: md5(v1) });
  await expect(page.locator('.arco-form-item').filter({ hasText: '校验值' })).toContainText(
    `does not match the file (its md5 is ${md5(v2)})`,
  );
  await expect(page).toHaveURL(/\/version\/create$/);
  // The same file with no checksum: the server's MD5 is used
  await page.getByLabel('校验值').fill('');
  await page.getByRole('button', { name: '上传', exact: true }).click();
  await expect(toast(page, '上传成功').last()).toBeVisible();
  await page.waitForURL(new RegExp(`/firmware/detail/${firmwareId}$`));
  const row2 = versionRow(page, '1.1.0');
  await expect(row2).toContainText(md5(v2));
  await expect(row2).toContainText('64 KB');
  await expect(latestTag(row2)).toHaveCount(0);

  const listed = await api<Version[]>('GET', `/api/firmware/${firmwareId}/versions`, undefined, adminToken);
  expect(listed.body.data.map((v) => [v.version, v.size, v.sha256, v.latest])).toEqual([
    ['1.1.0', 65536, sha256(v2), false],
    ['1.0.0', 65536, sha256(v1), true],
  ]);

  // Set 1.1.0 as the latest: 1.0.0 loses the mark
  await row2.getByRole('button', { name: '设为最新' }).click();
  await expect(toast(page, '已设为最新版本').last()).toBeVisible();
  await expect(latestTag(versionRow(page, '1.1.0'))).toBeVisible();
  await expect(latestTag(versionRow(page, '1.0.0'))).toHaveCount(0);
  const after = await api<Version[]>('GET', `/api/firmware/${firmwareId}/versions`, undefined, adminToken);
  expect(after.body.data.filter((v) => v.latest).map((v) => v.version)).toEqual(['1.1.0']);

  // Edit 1.0.0: its file is shown and stays; version string and notes change
  await versionRow(page, '1.0.0').getByRole('button', { name: '编辑' }).click();
  await page.waitForURL(/\/version\/edit\/\d+$/);
  await expect(page.getByText('dtu-1.0.0.bin')).toBeVisible();
  await expect(page.getByText('64 KB (65536 B)')).toBeVisible();
  await expect(page.getByLabel('版本号')).toHaveValue('1.0.0');
  await page.getByLabel('版本号').fill('1.1.0');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByText('已存在相同类型的值')).toBeVisible();
  await page.getByLabel('版本号').fill('1.0.1');
  await page.getByLabel('版本说明').fill('回滚用');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '已保存').last()).toBeVisible();
  await page.waitForURL(new RegExp(`/firmware/detail/${firmwareId}$`));
  await expect(versionRow(page, '1.0.1')).toContainText('回滚用');

  // Delete 1.0.1 with confirmation
  await versionRow(page, '1.0.1').getByRole('button', { name: '删除' }).click();
  const confirm = page.locator('.arco-popconfirm');
  await expect(confirm.getByText('确定要删除吗？')).toBeVisible();
  await confirm.getByRole('button', { name: '确定' }).click();
  await expect(toast(page, '已删除').last()).toBeVisible();
  await expect(versionRow(page, '1.0.1')).toHaveCount(0);
  const deleted = after.body.data.find((v) => v.version === '1.0.0')!;
  const gone = await api('GET', `/api/firmware/${firmwareId}/versions/${deleted.id}`, undefined, adminToken);
  expect(gone.status).toBe(400);
  expect(gone.body.code).toBe(70001);

  // The list shows it with its latest version; deleting it says its versions go too
  await page.goto('/firmware/list');
  await page.getByLabel('关键字').fill(name);
  await page.getByRole('button', { name: '查询' }).click();
  const row = page.getByRole('row').filter({ hasText: name });
  await expect(row).toContainText(productName);
  await expect(row).toContainText('正式');
  await expect(row).toContainText('1.1.0');
  await row.getByRole('button', { name: '删除' }).click();
  await expect(confirm.getByText('该固件的 1 个版本及其文件会一并删除')).toBeVisible();
  await confirm.getByRole('button', { name: '确定' }).click();
  await expect(toast(page, '已删除').last()).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: name })).toHaveCount(0);
  const none = await api('GET', `/api/firmware/${firmwareId}`, undefined, adminToken);
  expect(none.body.code).toBe(70001);
});

test('a user has no firmware menu, is sent away from its pages, and the API refuses the role', async ({
  page,
}) => {
  const user = await newUser('fwuser');
  const token = await tokenFor(user.username, user.password);
  await signIn(page, user.username, user.password);
  await expect(menuEntry(page, '设备管理')).toBeVisible();
  await expect(menuEntry(page, '固件管理')).toHaveCount(0);
  await page.goto('/firmware/list');
  await page.waitForURL(/\/dashboard\/workplace$/);
  await expect(page.getByRole('button', { name: '创建固件' })).toHaveCount(0);
  const res = await api('GET', '/api/firmware', undefined, token);
  expect(res.status).toBe(400);
  expect(res.body.code).toBe(10108);
  // What a user may read: the versions usable in OTA tasks (none of a product they do not own).
  const usable = await api<unknown[]>('GET', '/api/firmware/versions/usable', undefined, token);
  expect(usable.status).toBe(200);
});

// A manual run with E2E_SCREENSHOTS_DIR set writes docs/screenshots/firmware-*.png in both languages (the list in
// light and dark); it is not a test, so it is not registered otherwise.
async function shot(page: Page, name: string) {
  // No tooltip of the last click in the picture.
  await page.mouse.move(720, 860);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(SHOTS!, `${name}.png`) });
}

async function seedForScreenshots(token: string): Promise<{ firmwareId: number; productName: string }> {
  const productName = 'DTU-4G 工业网关';
  const productKey = await newProduct(token, productName);
  const routerKey = await newProduct(token, 'LTE Router R40');
  const make = async (body: Record<string, unknown>) => {
    const r = await api<{ id: number }>('POST', '/api/firmware', body, token);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.id;
  };
  const upload = async (id: number, version: string, size: number, latest = false, description = '') => {
    const form = new FormData();
    form.append('version', version);
    form.append('description', description);
    form.append('latest', String(latest));
    form.append('file', new Blob([new Uint8Array(firmwareBytes(size))]), `dtu-${version}.bin`);
    const res = await fetch(`${E2E.baseURL}/api/firmware/${id}/versions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(res.status).toBe(200);
  };
  const main = await make({
    name: 'DTU 主控固件',
    product_key: productKey,
    type: 1,
    objname: 'mcu',
    public: true,
    description: 'DTU-4G 主控板固件',
  });
  await upload(main, '2.3.0', 512 * 1024, false, '修复 APN 切换后掉线');
  await upload(main, '2.3.1', 520 * 1024, false, '心跳包支持自定义内容');
  await upload(main, '2.4.0', 64 * 1024, true, '新增 MQTT 5 支持');
  const modem = await make({
    name: '4G 模组固件',
    product_key: productKey,
    type: 1,
    objname: 'modem',
    public: true,
  });
  await upload(modem, 'EC200A-1.0.7', 1536 * 1024);
  const beta = await make({ name: 'DTU 主控固件 (测试)', product_key: productKey, type: 0, objname: 'mcu' });
  await upload(beta, '2.5.0-beta.1', 66 * 1024);
  const router = await make({ name: 'R40 系统镜像', product_key: routerKey, type: 1, objname: 'rootfs' });
  await upload(router, '1.8.2', 3 * 1024 * 1024, true);
  return { firmwareId: main, productName };
}

async function toDark(page: Page) {
  await page.getByTestId('navbar-theme').getByRole('button').click();
  await expect(page.locator('body')).toHaveAttribute('arco-theme', 'dark');
}

const screenshotRun = SHOTS ? test : undefined;
screenshotRun?.('screenshots of the firmware pages', async ({ browser }: { browser: Browser }) => {
  const token = await tokenFor(admin.username, admin.password);
  const { firmwareId } = await seedForScreenshots(token);
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
    await signIn(page, admin.username, admin.password);
    await page.goto('/firmware/list');
    await expect(page.getByRole('row').filter({ hasText: 'R40' })).toBeVisible();
    await shot(page, `firmware-list-${tag}`);
    await page.goto(`/firmware/detail/${firmwareId}`);
    await expect(versionRow(page, '2.4.0')).toBeVisible();
    await shot(page, `firmware-detail-${tag}`);
    await page.goto('/firmware/create');
    await shot(page, `firmware-create-${tag}`);
    await page.goto(`/firmware/detail/${firmwareId}/version/create`);
    await expect(page.locator('.arco-upload-drag')).toBeVisible();
    await shot(page, `firmware-version-upload-${tag}`);
    await page.locator('input[type=file]').setInputFiles({
      name: `dtu-2.4.1-${tag}.bin`,
      mimeType: 'application/octet-stream',
      buffer: firmwareBytes(768 * 1024),
    });
    await page.locator('input[id^=version]').first().fill(`2.4.1-${tag}`);
    await shot(page, `firmware-version-create-${tag}`);
    // A slow uplink (about 128 KB/s) so the progress of the upload can be seen.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 128 * 1024,
    });
    await page.locator('button[type=submit]').click();
    await expect(page.locator('.arco-progress')).toBeVisible();
    await page.waitForTimeout(2500);
    await page.screenshot({ path: join(SHOTS!, `firmware-version-uploading-${tag}.png`) });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await page.waitForURL(new RegExp(`/firmware/detail/${firmwareId}$`), { timeout: 30_000 });
    // The screenshots of the other language show the seeded versions only.
    const versions = await api<Version[]>('GET', `/api/firmware/${firmwareId}/versions`, undefined, token);
    const uploaded = versions.body.data.find((v) => v.version === `2.4.1-${tag}`)!;
    await api('DELETE', `/api/firmware/${firmwareId}/versions/${uploaded.id}`, undefined, token);
    await page.goto('/firmware/list');
    await expect(page.getByRole('row').filter({ hasText: 'R40' })).toBeVisible();
    await toDark(page);
    await shot(page, `firmware-list-${tag}-dark`);
    await context.close();
  }
});
