import { expect, test, type Page } from '@playwright/test';
import {
  api,
  expectTokenRefused,
  newUser,
  screenshot,
  signIn,
  storedToken,
  submitLogin,
  toast,
  tokenFor,
} from '../support';

async function openUserSettings(page: Page): Promise<void> {
  await page.getByTestId('navbar-user').locator('.arco-avatar').click();
  await page.getByTestId('user-menu-setting').click();
  await page.waitForURL(/\/user\/setting$/);
}

test('profile: nickname and profile are saved and still there after a reload', async ({ page }) => {
  const user = await newUser('prof');
  await signIn(page, user.username, user.password);
  await openUserSettings(page);

  const nickname = page.getByPlaceholder('请输入昵称');
  const profile = page.getByPlaceholder('请输入个人简介，最多 200 字');
  await expect(nickname).toHaveValue('');
  await nickname.fill('测试昵称');
  await profile.fill('A device fleet operator in Shenzhen.');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '保存成功')).toBeVisible();
  await screenshot(page, 'user-settings');

  const info = await api<{ nickname: string; profile: string }>(
    'GET',
    '/api/user/info',
    undefined,
    (await storedToken(page))!,
  );
  expect(info.body.data).toMatchObject({
    nickname: '测试昵称',
    profile: 'A device fleet operator in Shenzhen.',
  });

  await page.reload();
  await expect(page.getByPlaceholder('请输入昵称')).toHaveValue('测试昵称');
  await expect(page.getByPlaceholder('请输入个人简介，最多 200 字')).toHaveValue(
    'A device fleet operator in Shenzhen.',
  );
  // The navbar avatar now shows the nickname's first character.
  await expect(page.getByTestId('navbar-user').locator('.arco-avatar')).toHaveText('测');
});

test('password change: mismatch is refused, success signs out and ends the old token', async ({ page }) => {
  const user = await newUser('pwd');
  await signIn(page, user.username, user.password);
  const oldToken = (await storedToken(page))!;
  // A second session of the same account, to see that it ends too.
  const otherToken = await tokenFor(user.username, user.password);
  await openUserSettings(page);

  await page.getByRole('tab', { name: '安全设置' }).click();
  await page.getByRole('button', { name: '修改' }).first().click();
  const dialog = page.getByRole('dialog').filter({ hasText: '修改密码' });
  await expect(dialog).toBeVisible();
  const newPassword = 'N3wPassw0rd';
  await dialog.getByPlaceholder('请输入原密码').fill(user.password);
  await dialog.getByPlaceholder('请输入新密码').fill(newPassword);
  await dialog.getByPlaceholder('请再次输入新密码').fill(`${newPassword}9`);
  await dialog.getByRole('button', { name: '确定' }).click();
  await expect(dialog.getByText('两次输入的新密码不一致')).toBeVisible();
  await expect(page).toHaveURL(/\/user\/setting$/);
  // Nothing changed on the server.
  expect((await api('GET', '/api/user/info', undefined, oldToken)).status).toBe(200);

  await dialog.getByPlaceholder('请再次输入新密码').fill(newPassword);
  await expect(dialog.getByText('两次输入的新密码不一致')).toHaveCount(0);
  await dialog.getByRole('button', { name: '确定' }).click();
  await page.waitForURL(/\/login(\?|$)/);
  await expect(toast(page, '密码已修改，请重新登录')).toBeVisible();
  expect(await storedToken(page)).toBeNull();
  await expectTokenRefused(oldToken);
  await expectTokenRefused(otherToken);

  // The old password no longer works; the new one does.
  const refused = await api('POST', '/api/auth/login', { username: user.username, password: user.password });
  expect(refused.status).toBe(400);
  await page.goto('/login');
  await submitLogin(page, user.username, newPassword);
  await page.waitForURL(/\/dashboard\/workplace$/);
});
