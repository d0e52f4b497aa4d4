import { expect, test } from '@playwright/test';
import { agreeToTerms, api, PASSWORD, storedToken, submitLogin, toast, uniqueName } from '../support';

test('register through the form: mismatched passwords are refused, then the account signs in', async ({
  page,
}) => {
  const username = uniqueName('reg');
  await page.goto('/login');
  await page.getByRole('button', { name: '注册账号' }).click();
  await page.waitForURL(/\/register$/);

  await page.getByPlaceholder('用户名（3-32 位字母、数字、_-.）').fill(username);
  await page.getByPlaceholder('密码', { exact: true }).fill(PASSWORD);
  await page.getByPlaceholder('确认密码').fill(`${PASSWORD}x`);
  await agreeToTerms(page);
  await page.getByTestId('register-submit').click();
  await expect(page.getByText('两次输入的密码不一致')).toBeVisible();
  await expect(page).toHaveURL(/\/register$/);
  const none = await api('POST', '/api/auth/login', { username, password: PASSWORD });
  expect(none.status).toBe(400);

  await page.getByPlaceholder('确认密码').fill(PASSWORD);
  await expect(page.getByText('两次输入的密码不一致')).toHaveCount(0);
  await page.getByTestId('register-submit').click();
  await page.waitForURL(/\/login$/);
  await expect(toast(page, '注册成功，请登录')).toBeVisible();

  await submitLogin(page, username, PASSWORD);
  await page.waitForURL(/\/dashboard\/workplace$/);
  const info = await api<{ username: string; role: string }>(
    'GET',
    '/api/user/info',
    undefined,
    (await storedToken(page))!,
  );
  expect(info.body.data).toMatchObject({ username, role: 'user' });
});
