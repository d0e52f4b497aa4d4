import { expect, test } from '@playwright/test';
import { admin, menuEntry, newUser, signIn, sideMenu, submitLogin } from '../support';

// Seed section 6: no access sends a user to the first permitted route (the Workplace); signed out sends a visitor
// to login carrying the route name; unknown paths show not-found.

test('a user opening admin URLs lands on the Workplace; an admin stays', async ({ browser }) => {
  const user = await newUser();
  const userPage = await browser.newPage();
  await signIn(userPage, user.username, user.password);
  const refused: [path: string, title: string][] = [
    ['/firmware/list', '固件列表'],
    ['/system/setting', '系统设置'],
    ['/card-admin/card', '卡片库存'],
    ['/platform/list', '平台列表'],
  ];
  for (const [path, title] of refused) {
    await userPage.goto(path);
    await userPage.waitForURL(/\/dashboard\/workplace$/);
    await expect(menuEntry(userPage, '设备管理')).toBeVisible();
    // Not without a word: the notice names the page and says it needs another role.
    await expect(
      userPage.locator('.arco-message').filter({ hasText: `「${title}」需要其他角色才能打开` }),
    ).toBeVisible();
  }
  await userPage.close();

  // The same addresses do open for an administrator, so the redirect above is the guard's doing.
  const adminPage = await browser.newPage();
  await signIn(adminPage, admin.username, admin.password);
  await adminPage.goto('/system/setting');
  await expect(adminPage.getByRole('menuitem', { name: '系统设置' })).toHaveClass(/arco-menu-selected/);
  await expect(adminPage).toHaveURL(/\/system\/setting$/);
  await adminPage.close();
});

test('a signed-out visitor goes to login with the route name and comes back after sign-in', async ({
  page,
}) => {
  const user = await newUser();
  await page.goto('/device/list');
  await page.waitForURL(/\/login\?/);
  expect(new URL(page.url()).searchParams.get('redirect')).toBe('DeviceList');
  await submitLogin(page, user.username, user.password);
  await page.waitForURL(/\/device\/list$/);
  await expect(sideMenu(page)).toBeVisible();
  await expect(page.getByRole('menuitem', { name: '设备列表' })).toHaveClass(/arco-menu-selected/);
});

test('an unknown path shows the 404 page with a Back button', async ({ page }) => {
  const user = await newUser();
  await signIn(page, user.username, user.password);
  await page.goto('/dashboard/workplace');
  await page.goto('/no/such/page');
  await expect(page.getByText('抱歉，页面不见了～')).toBeVisible();
  await expect(page.locator('.arco-result-icon')).toBeVisible();
  await expect(sideMenu(page)).toBeVisible();
  await page.getByRole('button', { name: '返回' }).click();
  await page.waitForURL(/\/dashboard\/workplace$/);
  await expect(page.getByText('抱歉，页面不见了～')).toHaveCount(0);
});

test('signed out, an unknown path shows the 404 page on its own', async ({ page }) => {
  await page.goto('/nothing-here');
  await expect(page).toHaveURL(/\/nothing-here$/);
  await expect(page.getByText('抱歉，页面不见了～')).toBeVisible();
  await expect(page.getByRole('button', { name: '返回' })).toBeVisible();
  await expect(sideMenu(page)).toHaveCount(0);
});
