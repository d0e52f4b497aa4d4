import { expect, test, type Page } from '@playwright/test';
import { admin, api, expectTokenRefused, newUser, signIn, submitLogin, tokenFor } from '../support';

async function userRow(page: Page, username: string) {
  await page.getByPlaceholder('用户名、昵称、手机号或邮箱').fill(username);
  await page.getByRole('button', { name: '查询' }).click();
  const row = page.getByRole('row').filter({ hasText: username });
  await expect(row).toHaveCount(1);
  return row;
}

test('admin disables a user (token refused, sign-in says disabled) and enables them again', async ({
  browser,
}) => {
  const user = await newUser('dis');
  const userToken = await tokenFor(user.username, user.password);

  const adminPage = await browser.newPage();
  await signIn(adminPage, admin.username, admin.password);
  await adminPage.goto('/system/users');
  let row = await userRow(adminPage, user.username);
  await expect(row.getByText('正常')).toBeVisible();
  await row.getByRole('button', { name: '停用' }).click();
  await adminPage.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
  await expect(row.getByText('已停用')).toBeVisible();

  await expectTokenRefused(userToken);
  const userPage = await browser.newPage();
  await userPage.goto('/login');
  await submitLogin(userPage, user.username, user.password);
  await expect(userPage.getByRole('alert').filter({ hasText: '该账号已被停用' })).toBeVisible();
  await expect(userPage).toHaveURL(/\/login$/);
  expect(await userPage.evaluate(() => localStorage.getItem('token'))).toBeNull();

  row = await userRow(adminPage, user.username);
  await row.getByRole('button', { name: '启用' }).click();
  await adminPage.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
  await expect(row.getByText('正常')).toBeVisible();
  const listed = await api<{ username: string; disabled: boolean }[]>(
    'GET',
    `/api/users?keyword=${user.username}`,
    undefined,
    await tokenFor(admin.username, admin.password),
  );
  expect(listed.body.data).toEqual([expect.objectContaining({ username: user.username, disabled: false })]);

  await submitLogin(userPage, user.username, user.password);
  await userPage.waitForURL(/\/dashboard\/workplace$/);
  await adminPage.close();
  await userPage.close();
});

test('admin opens an account with a generated password, the user signs in with it, and a role change counts', async ({
  browser,
}) => {
  const username = `opened_${Date.now().toString(36)}`;
  // Phone numbers are unique across accounts: each run (and each --repeat-each) takes its own.
  const phone = `139${String(Date.now()).slice(-8)}`;
  const adminPage = await browser.newPage();
  await signIn(adminPage, admin.username, admin.password);
  await adminPage.goto('/system/users');
  await adminPage.getByRole('button', { name: '新建用户' }).click();
  await adminPage.getByTestId('user-username').fill(username);
  await adminPage.getByRole('dialog').getByRole('button', { name: '确定' }).click();
  // The generated password is shown once, after the account exists.
  const shown = adminPage.getByTestId('issued-password');
  await expect(shown).toBeVisible();
  const password = (await shown.textContent()) ?? '';
  expect(password).toMatch(/^(?=.*\d)(?=.*[a-z])(?=.*[A-Z])\S{6,64}$/);
  await adminPage.getByRole('button', { name: '我已保存' }).click();
  await expect(shown).toBeHidden();

  const userPage = await browser.newPage();
  await signIn(userPage, username, password);
  await userPage.goto('/system/users');
  await expect(userPage).not.toHaveURL(/\/system\/users$/);

  // Edit: role and contact fields.
  const row = await userRow(adminPage, username);
  await row.getByRole('button', { name: '编辑' }).click();
  const dialog = adminPage.getByRole('dialog');
  await dialog.getByText('管理员', { exact: true }).click();
  await dialog.getByTestId('user-phone').fill(phone);
  await dialog.getByRole('button', { name: '确定' }).click();
  await expect(row.getByText('管理员')).toBeVisible();
  await expect(row.getByText(phone)).toBeVisible();

  // The user's open session now has the admin role.
  await userPage.goto('/system/users');
  await expect(userPage.getByRole('button', { name: '新建用户' })).toBeVisible();
  await adminPage.close();
  await userPage.close();
});
