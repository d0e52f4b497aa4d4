import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { admin, api, menuEntry, newUser, screenshot, signIn, toast, tokenFor, uniqueName } from '../support';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A 64 x 64 PNG icon drawn here: signal bars in white on the console's blue. */
function iconPng(): Buffer {
  const size = 64;
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const bar = [0, 1, 2, 3].find((i) => x >= 12 + i * 11 && x < 20 + i * 11);
      const white = bar !== undefined && y >= 48 - (bar + 1) * 8 && y < 52;
      row.set(white ? [255, 255, 255] : [22, 93, 255], 1 + x * 3);
    }
    rows.push(row);
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
const PNG = iconPng();

/** A 96 KB package that is a zip by its signature (an .apk is one). */
function apkBytes(size = 96 * 1024): Buffer {
  const b = randomBytes(size);
  b.writeUInt32BE(0x504b0304, 0);
  return b;
}

interface Version {
  id: number;
  version: string;
  size: number;
  sha256: string;
  latest: boolean;
  filename: string;
}

/** Screenshots at 1280 px (docs and review), only when asked for. */
async function shot(page: Page, name: string) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, name, {
    settle: async () => {
      await page.mouse.move(0, 0);
      // A theme switch fades colours in: the picture waits for every running transition to end.
      // (A cancelled one ends too; an endless one, a spinner, is not waited for.)
      await page.evaluate(() =>
        Promise.all(
          document
            .getAnimations()
            .filter((a) => a.effect?.getTiming().iterations !== Infinity)
            .map((a) => a.finished.catch(() => undefined)),
        ),
      );
    },
  });
}

test('admin creates an application and uploads a version; a user downloads it', async ({ page, browser }) => {
  const name = uniqueName('现场配置工具');
  const content = apkBytes();
  const filename = `现场配置工具-${name.slice(-4)}.apk`;

  await signIn(page, admin.username, admin.password);
  await page.goto('/application/list');
  await expect(page.getByText('应用列表').first()).toBeVisible();
  await page.getByRole('button', { name: '创建应用' }).first().click();
  await page.waitForURL(/\/application\/create$/);

  // An SVG icon is refused in the form (it can carry script), a PNG is previewed.
  await page.locator('input[type=file]').setInputFiles({
    name: 'icon.svg',
    mimeType: 'image/svg+xml',
    buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
  });
  await expect(page.getByText('图标只能是 PNG、JPEG 或 WebP 图片')).toBeVisible();
  await page
    .locator('input[type=file]')
    .setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: PNG });
  await expect(page.locator('img[src^="data:image/png;base64,"]')).toBeVisible();
  await page.getByLabel('应用名称').fill(name);
  await page.locator('.arco-form-item').filter({ hasText: '平台' }).locator('.arco-select').click();
  await page.locator('.arco-select-popup:visible .arco-select-option').filter({ hasText: 'Android' }).click();
  await expect(page.locator('.arco-select-popup:visible')).toHaveCount(0);
  await page.getByLabel('描述').fill('DTU 现场调试与参数配置');
  await shot(page, 'application-create-zh');
  await page.getByRole('button', { name: '创建', exact: true }).click();
  await page.waitForURL(/\/application\/version\/\d+$/);
  const appId = Number(/version\/(\d+)$/.exec(page.url())![1]);
  await expect(page.getByText('暂无版本').first()).toBeVisible();

  // Upload a version with progress; it becomes the latest.
  await page.getByRole('button', { name: '上传新版本' }).first().click();
  const modal = page.locator('.arco-modal').filter({ hasText: '上传新版本' });
  await modal.locator('input[type=file]').setInputFiles({
    name: filename,
    mimeType: 'application/vnd.android.package-archive',
    buffer: content,
  });
  await expect(modal.getByTestId('application-file')).toContainText(filename);
  await modal.getByLabel('版本号').fill('1.0.0');
  await modal.getByLabel('更新说明（中文）').fill('首个正式版本');
  await modal.getByLabel('更新说明（英文）').fill('First release');
  await shot(page, 'application-upload-zh');
  await modal.getByRole('button', { name: '上传', exact: true }).click();
  await expect(toast(page, '版本已上传')).toBeVisible();
  const row = page.locator('.arco-table-tr').filter({ hasText: '1.0.0' });
  await expect(row).toContainText('最新');
  await expect(row).toContainText('首个正式版本');
  await expect(row).toContainText(sha256(content).slice(0, 12));

  const adminToken = await tokenFor(admin.username, admin.password);
  const versions = await api<Version[]>('GET', `/api/applications/${appId}/versions`, undefined, adminToken);
  expect(versions.status).toBe(200);
  expect(versions.body.data[0]).toMatchObject({
    version: '1.0.0',
    size: content.length,
    sha256: sha256(content),
    latest: true,
    filename,
  });
  // Without the toasts of the steps above.
  await page.reload();
  await expect(row).toContainText('最新');
  await shot(page, 'application-version-zh');

  // A second version through the API, marked force-update, so the page shows both tags.
  await page.goto('/application/list');
  await expect(page.locator('.arco-table-tr').filter({ hasText: name })).toContainText('1.0.0');
  await shot(page, 'application-list-zh');

  // A user: no menu group (admin in the seed), but the pages open and the package downloads.
  const user = await newUser('appuser');
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } });
  const userPage = await context.newPage();
  await signIn(userPage, user.username, user.password);
  await expect(menuEntry(userPage, '应用管理')).toHaveCount(0);
  await userPage.goto('/application/list');
  const userRow = userPage.locator('.arco-table-tr').filter({ hasText: name });
  await expect(userRow).toContainText('1.0.0');
  await expect(userPage.getByRole('button', { name: '创建应用' })).toHaveCount(0);
  await expect(userRow.getByRole('button', { name: '删除' })).toHaveCount(0);
  const [download] = await Promise.all([
    userPage.waitForEvent('download'),
    userRow.getByRole('button', { name: '下载最新版' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(filename);
  const saved = await download.path();
  expect(sha256(readFileSync(saved))).toBe(sha256(content));

  // The user's version page: download only, no publishing.
  await userRow.getByRole('button', { name: '版本管理' }).click();
  await userPage.waitForURL(new RegExp(`/application/version/${appId}$`));
  await expect(userPage.getByRole('button', { name: '上传新版本' })).toHaveCount(0);
  // The version's own row (its release note is not in the list the user came from, which may still be on screen).
  const userVersion = userPage.locator('.arco-table-tr').filter({ hasText: '首个正式版本' });
  await expect(userVersion).toContainText('1.0.0');
  await expect(userVersion).toContainText(sha256(content).slice(0, 12));
  const userToken = await tokenFor(user.username, user.password);
  const refused = await api('POST', '/api/applications', { name: 'x', platform: 'other' }, userToken);
  expect(refused.status).toBe(400);
  expect((refused.body as unknown as { code: number }).code).toBe(10108);

  // English and dark, for the screenshots.
  await userPage.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
  await userPage.goto(`/application/version/${appId}`);
  await expect(userPage.getByText('First release')).toBeVisible();
  await shot(userPage, 'application-version-en');
  await userPage.goto('/application/list');
  await expect(userPage.getByRole('button', { name: 'Download latest' }).first()).toBeVisible();
  await userPage.getByTestId('navbar-theme').getByRole('button').click();
  await expect(userPage.locator('body')).toHaveAttribute('arco-theme', 'dark');
  await shot(userPage, 'application-list-en-dark');
  await context.close();
});
