import { expect, test, type Page } from '@playwright/test';
import { admin, api, newUser, screenshot, signIn, tokenFor, uniqueName } from '../support';

/** Screenshots at 1280 px (review), only when asked for. */
async function shot(page: Page, name: string) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, name, { settle: () => page.mouse.move(0, 0) });
}

/** Picks `label` in the Arco select of the form item labelled `item`. */
async function choose(page: Page, item: string, label: string) {
  await page
    .locator('.arco-form-item:visible')
    .filter({ hasText: item })
    .locator('.arco-select')
    .first()
    .click();
  await page
    .locator('.arco-select-popup:visible .arco-select-option')
    .filter({ hasText: label })
    .first()
    .click();
}

test('admin stocks in a range, ships three by scanning, the user sees them with their timeline', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const token = await tokenFor(admin.username, admin.password);
  const productName = uniqueName('库存DTU');
  const made = await api<{ product_key: string }>('POST', '/api/products', { name: productName }, token);
  expect(made.status).toBe(200);
  const productKey = made.body.data.product_key;
  const customer = await newUser('stock');
  const prefix = `ST${Date.now().toString(36).toUpperCase()}`;
  const sns = [1, 2, 3, 4, 5].map((n) => `${prefix}${String(n).padStart(3, '0')}`);

  await signIn(page, admin.username, admin.password);

  // Stock in: a range of five, previewed before it is made.
  await page.goto('/device-admin/create');
  await choose(page, '产品', productName);
  await page.locator('.arco-form-item').filter({ hasText: '前缀' }).locator('input').fill(prefix);
  await page.locator('.arco-form-item').filter({ hasText: '结束号' }).locator('input').fill('5');
  await page.locator('.arco-form-item').filter({ hasText: '位数' }).locator('input').fill('3');
  await expect(page.getByText(`将入库 ${sns[0]} 至 ${sns[4]}，共 5 台`)).toBeVisible();
  await page.getByRole('button', { name: '按号段入库' }).click();
  await expect(page.getByText('成功 5 台，失败 0 台')).toBeVisible();
  await shot(page, 'device-stock-create-zh');

  // The stock list finds them.
  await page.goto('/device-admin/stock');
  await page.getByPlaceholder('序列号、名称、IMEI 或 ICCID').fill(prefix);
  await page.getByPlaceholder('序列号、名称、IMEI 或 ICCID').press('Enter');
  await expect(page.locator('.arco-table-tr').filter({ hasText: sns[4]! })).toBeVisible();
  await expect(page.getByText('共 5 台')).toBeVisible();
  await shot(page, 'device-stock-list-zh');

  // Fast out: three scanned (one twice), each checked at once, then shipped.
  await page.goto('/device-admin/fast-out-stock');
  await page.getByPlaceholder('客户的用户名或手机号').fill(customer.username);
  const scanner = page.getByPlaceholder('扫描条码，或输入序列号后按回车');
  for (const sn of [sns[0]!, sns[1]!, sns[2]!, sns[0]!]) {
    await scanner.fill(sn);
    await scanner.press('Enter');
  }
  await expect(page.locator('.arco-table-tr').filter({ hasText: '在库，可出库' })).toHaveCount(3);
  await expect(page.locator('.arco-table-tr').filter({ hasText: '重复扫描' })).toHaveCount(1);
  await shot(page, 'device-stock-fast-out-zh');
  await page.getByRole('button', { name: '出库 3 台' }).click();
  await expect(page.getByText(`已出库 3 台给 ${customer.username}，失败 0 台`)).toBeVisible();
  await page.getByRole('tab', { name: '出库记录' }).click();
  await expect(page.locator('.arco-table-tr').filter({ hasText: customer.username })).toBeVisible();
  await shot(page, 'device-stock-shipments-zh');

  // The API agrees: the customer owns exactly the three.
  const userToken = await tokenFor(customer.username, customer.password);
  const mine = await api<{ sn: string }[]>('GET', '/api/devices', undefined, userToken);
  expect(mine.body.data.map((d) => d.sn).sort()).toEqual(sns.slice(0, 3));

  // The customer sees them in their list, and one device's timeline: produced, then shipped to them.
  const context = await browser.newContext();
  const userPage = await context.newPage();
  await signIn(userPage, customer.username, customer.password);
  await userPage.goto('/device/list');
  for (const sn of sns.slice(0, 3)) await expect(userPage.getByText(sn, { exact: true })).toBeVisible();
  await expect(userPage.getByText(sns[3]!, { exact: true })).toHaveCount(0);
  await userPage.goto(`/device/detail/${productKey}/${sns[1]}`);
  const timeline = userPage.getByTestId('device-timeline');
  await expect(timeline.getByText('生产入库')).toBeVisible();
  await expect(timeline.getByText(`出库给 ${customer.username}`)).toBeVisible();
  const steps = await timeline.locator('.arco-timeline-item').allInnerTexts();
  expect(steps.findIndex((s) => s.includes('生产入库'))).toBeLessThan(
    steps.findIndex((s) => s.includes('出库')),
  );
  await userPage.setViewportSize({ width: 1280, height: 800 });
  await screenshot(timeline, 'device-stock-timeline-zh');

  // English and dark, for the screenshots.
  await page.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
  await page.goto('/device-admin/stock');
  await expect(page.getByRole('button', { name: 'Export CSV' })).toBeVisible();
  await shot(page, 'device-stock-list-en');
  await page.goto('/device-admin/fast-out-stock');
  await expect(page.getByText('Scan or type serial numbers')).toBeVisible();
  await page.getByTestId('navbar-theme').getByRole('button').click();
  await expect(page.locator('body')).toHaveAttribute('arco-theme', 'dark');
  await shot(page, 'device-stock-fast-out-en-dark');
  await context.close();
});
