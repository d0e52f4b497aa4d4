import { expect, test, type Page } from '@playwright/test';
import { api, newUser, signIn, toast, tokenFor, uniqueName } from '../support';

/** The Arco Select inside the form item labelled `label`: opens it and picks `option`. */
async function pick(page: Page, label: string, option: string | RegExp) {
  await page.locator('.arco-form-item').filter({ hasText: label }).locator('.arco-select').click();
  await page.getByRole('option', { name: option }).click();
}

test('a user creates a product, adds and edits properties, edits the product, finds it, and cannot delete it while it has a device', async ({
  page,
}) => {
  const user = await newUser('prod');
  const token = await tokenFor(user.username, user.password);
  const name = uniqueName('Meter ');
  await signIn(page, user.username, user.password);

  // Create
  await page.goto('/product/create');
  await page.getByLabel('产品名称').fill(name);
  await page.getByLabel('产品型号').fill('DTU-710');
  await pick(page, '节点类型', '网关设备');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '创建成功')).toBeVisible();
  await page.waitForURL(/\/product\/detail\/pk[0-9a-f]{16}$/);
  // The detail page loads lazily: until it renders, the create form (and its open select) may still be shown.
  await expect(page.getByRole('tab', { name: '概览' })).toBeVisible();
  await expect(page.locator('form #nodetype_input, form #iot_platform_id_input')).toHaveCount(0);
  const productKey = page.url().split('/').pop()!;
  await expect(page.getByText('网关设备')).toBeVisible();

  // The secret is hidden until asked for, and matches what the API answers its owner.
  const secret = (
    await api<{ product_secret: string }>('GET', `/api/products/${productKey}`, undefined, token)
  ).body.data.product_secret;
  await expect(page.getByTestId('product-secret')).not.toContainText(secret);
  await page.getByRole('button', { name: '显示密钥' }).click();
  await expect(page.getByTestId('product-secret')).toHaveText(secret);

  // Add a property on its page
  await page.getByRole('tab', { name: /属性/ }).click();
  await page.getByRole('button', { name: '添加属性' }).click();
  await page.waitForURL(`**/product/property/add/${productKey}`);
  await page.getByLabel('标识符').fill('temp');
  await page.getByLabel('名称', { exact: true }).fill('温度');
  await page.getByLabel('英文名称').fill('Temperature');
  await page.getByLabel('单位').fill('°C');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '属性已保存')).toBeVisible();
  await page.waitForURL(/tab=properties/);
  const row = page.getByRole('row').filter({ hasText: 'temp' });
  await expect(row).toContainText('温度');
  await expect(row).toContainText('°C');

  // A second property with the same key is refused under the key field.
  await page.getByRole('button', { name: '添加属性' }).click();
  await page.getByLabel('标识符').fill('temp');
  await page.getByLabel('名称', { exact: true }).fill('again');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByText('已存在相同标识符的属性')).toBeVisible();
  await page.goto(`/product/detail/${productKey}?tab=properties`);

  // Edit it in place
  await page.getByRole('row').filter({ hasText: 'temp' }).getByRole('button', { name: '编辑' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('名称', { exact: true }).fill('环境温度');
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'temp' })).toContainText('环境温度');

  // Edit the product
  await page.goto(`/product/edit/${productKey}`);
  await expect(page.getByLabel('产品名称')).toHaveValue(name);
  await page.getByLabel('产品名称').fill(`${name} v2`);
  await page.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '已保存')).toBeVisible();
  await page.waitForURL(`**/product/detail/${productKey}`);

  // See it in the list, with its device count
  const created = await api(
    'POST',
    '/api/devices',
    { product_key: productKey, sn: [uniqueName('SN-')] },
    token,
  );
  expect(created.status).toBe(200);
  await page.goto('/product/list');
  await page.getByPlaceholder('产品名称或 ProductKey').fill(`${name} v2`);
  await page.getByRole('button', { name: '查询' }).click();
  const listed = page.getByRole('row').filter({ hasText: productKey });
  await expect(listed).toHaveCount(1);
  await expect(listed).toContainText(`${name} v2`);
  await expect(listed.getByRole('cell', { name: '1', exact: true })).toHaveCount(1);

  // Delete is refused with the reason and the count
  await listed.getByRole('button', { name: '删除' }).click();
  await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
  await expect(toast(page, '该产品下还有 1 台设备，请先删除这些设备再删除产品')).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: productKey })).toHaveCount(1);
  const still = await api('GET', `/api/products/${productKey}`, undefined, token);
  expect(still.status).toBe(200);
});
