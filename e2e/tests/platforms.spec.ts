import { expect, test, type Page } from '@playwright/test';
import { admin, api, newUser, signIn, toast, tokenFor, uniqueName } from '../support';

async function pick(page: Page, label: string, option: string | RegExp) {
  await page.locator('.arco-form-item').filter({ hasText: label }).locator('.arco-select').first().click();
  await page.getByRole('option', { name: option }).click();
}

test('admin creates an aliyun platform (secret masked), binds a product, and a device gets its signed parameters', async ({
  page,
}) => {
  const adminToken = await tokenFor(admin.username, admin.password);
  const platformName = uniqueName('Aliyun ');
  const accessSecret = `AKS-${uniqueName('secret')}`;
  await signIn(page, admin.username, admin.password);

  // Create the platform
  await page.goto('/platform/create');
  await page.getByLabel('平台名称').fill(platformName);
  await expect(page.getByLabel('地域（Region ID）')).toHaveValue('cn-shanghai');
  await page.getByLabel('AccessKey ID').fill('LTAI5tE2e');
  await page.getByLabel('AccessKey Secret').fill(accessSecret);
  await page.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '创建成功')).toBeVisible();
  await page.waitForURL('**/platform/list');
  const row = page.getByRole('row').filter({ hasText: platformName });
  await expect(row).toContainText('阿里云物联网平台');
  await expect(row).toContainText('*.iot-as-mqtt.cn-shanghai.aliyuncs.com:1883');

  // The secret is never sent back: masked in the API and in the edit form.
  const listed = await api<{ id: number; name: string; platform_config: Record<string, unknown> }[]>(
    'GET',
    `/api/platforms?keyword=${encodeURIComponent(platformName)}`,
    undefined,
    adminToken,
  );
  expect(JSON.stringify(listed.body)).not.toContain(accessSecret);
  const platform = listed.body.data[0]!;
  expect(platform.platform_config.access_key_secret).toBe('******');
  await row.getByRole('button', { name: '编辑' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByLabel('AccessKey Secret')).toHaveValue('******');
  expect(await page.content()).not.toContain(accessSecret);
  await dialog.getByRole('button', { name: '取消' }).click();

  // Bind a new product to it
  const productName = uniqueName('Bound ');
  await page.goto('/product/create');
  await page.getByLabel('产品名称').fill(productName);
  await pick(page, '物联网平台', new RegExp(platformName));
  await page.getByLabel('阿里云 ProductKey').fill('a1E2eTest01');
  await page.getByRole('button', { name: '保存' }).click();
  await page.waitForURL(/\/product\/detail\/pk[0-9a-f]{16}$/);
  // The detail page loads lazily: until it renders, the create form (and its open select) may still be shown.
  await expect(page.getByRole('tab', { name: '概览' })).toBeVisible();
  await expect(page.locator('form #nodetype_input, form #iot_platform_id_input')).toHaveCount(0);
  const productKey = page.url().split('/').pop()!;
  await expect(page.getByText(platformName, { exact: true })).toBeVisible();

  // A device of the product, with its DeviceSecret set from the platform tab
  const sn = uniqueName('ALI-');
  expect((await api('POST', '/api/devices', { product_key: productKey, sn: [sn] }, adminToken)).status).toBe(
    200,
  );
  await page.getByRole('tab', { name: '平台绑定' }).click();
  const deviceRow = page.getByRole('row').filter({ hasText: sn });
  await expect(deviceRow).toContainText('未设置');
  await deviceRow.getByRole('button', { name: '设置凭证' }).click();
  const credDialog = page.getByRole('dialog');
  await credDialog.getByLabel('设备密钥').fill('e2e-device-secret');
  await credDialog.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '1 条成功，0 条失败')).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: sn })).not.toContainText('未设置');

  const device = await api<{ iot_platform_param: Record<string, unknown> }>(
    'GET',
    `/api/devices/${sn}`,
    undefined,
    adminToken,
  );
  expect(device.body.data.iot_platform_param).toMatchObject({
    platform_type: 'aliyun',
    host: 'a1E2eTest01.iot-as-mqtt.cn-shanghai.aliyuncs.com',
    username: `${sn}&a1E2eTest01`,
  });
  expect(String(device.body.data.iot_platform_param.client_id)).toMatch(
    new RegExp(`^${sn}\\|securemode=3,signmethod=hmacsha256,timestamp=\\d+\\|$`),
  );

  // A bound platform cannot be deleted
  await page.goto('/platform/list');
  await page.getByRole('row').filter({ hasText: platformName }).getByRole('button', { name: '删除' }).click();
  await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
  await expect(toast(page, '有 1 个产品绑定了该平台，请先解除绑定')).toBeVisible();
});

test('role user can neither open the platform pages nor call their API', async ({ page }) => {
  const user = await newUser('plat');
  const token = await tokenFor(user.username, user.password);
  const r = await api('GET', '/api/platforms', undefined, token);
  expect(r.status).toBe(400);
  expect(r.body.code).toBe(10108);
  await signIn(page, user.username, user.password);
  await page.goto('/platform/list');
  await expect(page).not.toHaveURL(/\/platform\/list/);
  await expect(page.getByRole('button', { name: '创建平台' })).toHaveCount(0);
});
