import { expect, test } from '@playwright/test';
import {
  admin,
  api,
  expectTokenRefused,
  menuEntry,
  newUser,
  screenshot,
  signIn,
  storedToken,
  submitLogin,
  toast,
} from '../support';

// Menu titles in the default language (zh-CN).
const ADMIN_AREAS = ['固件管理', '物联网平台', '系统管理', '卡片管理'];
const USER_AREAS = ['设备管理', '产品管理', '物联网卡'];

test('admin signs in through the form and sees the admin areas', async ({ page }) => {
  await signIn(page, admin.username, admin.password);
  for (const area of [...ADMIN_AREAS, ...USER_AREAS]) await expect(menuEntry(page, area)).toBeVisible();
  await screenshot(page, 'workplace-admin-light');
});

test('a user sees devices, products and cards but no admin area', async ({ page }) => {
  const user = await newUser();
  await signIn(page, user.username, user.password);
  for (const area of USER_AREAS) await expect(menuEntry(page, area)).toBeVisible();
  for (const area of ADMIN_AREAS) await expect(menuEntry(page, area)).toHaveCount(0);
});

test('the login form needs the user agreement and names a wrong password', async ({ page }) => {
  const user = await newUser();
  await page.goto('/login');
  await screenshot(page, 'login-zh');
  await page.getByTestId('login-username').fill(user.username);
  await page.getByTestId('login-password').fill(user.password);
  await page.getByTestId('login-submit').click();
  await expect(page.getByText('请先阅读并同意用户协议！')).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);

  await submitLogin(page, user.username, 'Wrong0ne');
  await expect(page.getByRole('alert').filter({ hasText: '登录失败：用户名或密码错误' })).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
  expect(await storedToken(page)).toBeNull();
});

test('sign out from the user menu: back to login and the token is refused', async ({ page }) => {
  const user = await newUser();
  await signIn(page, user.username, user.password);
  const token = await storedToken(page);
  expect(token).toBeTruthy();
  const before = await api('GET', '/api/user/info', undefined, token!);
  expect(before.status).toBe(200);

  await page.getByTestId('navbar-user').locator('.arco-avatar').click();
  await page.getByTestId('user-menu-logout').click();
  // Like the reference, the login page remembers where the user was (redirect=Workplace).
  await page.waitForURL(/\/login(\?|$)/);
  await expect(toast(page, '登出成功')).toBeVisible();
  expect(await storedToken(page)).toBeNull();
  await expectTokenRefused(token!);

  // The console no longer lets the visitor in either.
  await page.goto('/dashboard/workplace');
  await page.waitForURL(/\/login\?redirect=Workplace/);
});
