import { expect, test, type Page } from '@playwright/test';
import { admin, api, menuEntry, newUser, openSettings, screenshot, signIn, tokenFor } from '../support';

const bodyFilter = (page: Page) => page.evaluate(() => getComputedStyle(document.body).filter);
const settingsStore = (page: Page) =>
  page.evaluate(() => JSON.parse(sessionStorage.getItem('cellhub-app-settings') ?? 'null') as unknown);

test('language: zh-CN to en-US from the navbar, kept in localStorage across a reload, and back', async ({
  page,
}) => {
  const user = await newUser();
  await signIn(page, user.username, user.password);
  await expect(page.getByText(`欢迎回来，${user.username}`)).toBeVisible();
  await expect(menuEntry(page, '设备管理')).toBeVisible();

  await page.getByTestId('navbar-locale').getByRole('button').click();
  await page.getByRole('menuitem', { name: 'English' }).click();
  await expect(menuEntry(page, 'Devices')).toBeVisible();
  await expect(menuEntry(page, '设备管理')).toHaveCount(0);
  await expect(page.getByText(`Welcome back, ${user.username}`)).toBeVisible();
  await expect(page.getByTestId('navbar-locale').getByRole('button')).toHaveAccessibleName('Language');
  expect(await page.evaluate(() => localStorage.getItem('arco-locale'))).toBe('en-US');

  await page.reload();
  await expect(menuEntry(page, 'Devices')).toBeVisible();
  await expect(page.getByText(`Welcome back, ${user.username}`)).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en-US');

  // The sign-in page follows the stored choice too.
  const login = await page.context().newPage();
  await login.goto('/login');
  await expect(login.getByRole('heading', { name: 'Sign in to Cellhub' })).toBeVisible();
  await screenshot(login, 'login-en');
  await login.close();

  await page.getByTestId('navbar-locale').getByRole('button').click();
  await page.getByRole('menuitem', { name: '中文' }).click();
  await expect(menuEntry(page, '设备管理')).toBeVisible();
  await expect(menuEntry(page, 'Devices')).toHaveCount(0);
  await expect(page.getByText(`欢迎回来，${user.username}`)).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('arco-locale'))).toBe('zh-CN');
});

test('theme toggle and colour-weak mode', async ({ page }) => {
  await signIn(page, admin.username, admin.password);
  const body = page.locator('body');
  await expect(body).not.toHaveAttribute('arco-theme');
  const themeButton = page.getByTestId('navbar-theme').getByRole('button');

  await themeButton.click();
  await expect(body).toHaveAttribute('arco-theme', 'dark');
  await expect(themeButton).toHaveAccessibleName('点击切换为亮色模式');
  await screenshot(page, 'workplace-admin-dark', {
    settle: async () => {
      await page.mouse.move(0, 450); // no tooltip over the picture
      await page.waitForTimeout(300);
    },
  });
  await themeButton.click();
  await expect(body).not.toHaveAttribute('arco-theme');

  expect(await bodyFilter(page)).toBe('none');
  const drawer = await openSettings(page);
  const colorWeak = page.getByTestId('settings-colorWeak');
  await colorWeak.click();
  await expect(colorWeak).toHaveAttribute('aria-checked', 'true');
  await expect.poll(() => bodyFilter(page)).toBe('invert(0.8)');
  expect(await page.evaluate(() => document.body.style.filter)).toBe('invert(80%)');
  await colorWeak.click();
  await expect(colorWeak).toHaveAttribute('aria-checked', 'false');
  await expect.poll(() => bodyFilter(page)).toBe('none');
  await expect(drawer).toBeVisible();
});

test('settings drawer: 300 px, every setting, footer switch, copy, kept per browser session', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  // The drawer's labels as the seed names them: English.
  await page.addInitScript(() => {
    if (!localStorage.getItem('arco-locale')) localStorage.setItem('arco-locale', 'en-US');
  });
  const user = await newUser();
  await signIn(page, user.username, user.password);
  await expect(page.getByTestId('layout-footer')).toBeVisible();

  const drawer = await openSettings(page);
  await expect(drawer).toHaveCSS('width', '300px');
  expect((await drawer.boundingBox())?.width).toBe(300);
  for (const label of [
    'Navbar',
    'Menu',
    'Top Menu',
    'Footer',
    'Tab Bar',
    'Menu From Server',
    'Menu Width (px)',
    'Color Weak',
  ]) {
    await expect(drawer.getByText(label, { exact: true })).toBeVisible();
  }
  await expect(drawer.getByRole('switch', { name: 'Footer' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByTestId('settings-tabBar')).toHaveAttribute('aria-checked', 'false');
  await expect(page.getByTestId('settings-menuFromServer')).toHaveAttribute('aria-checked', 'false');
  await expect(page.getByTestId('settings-menuWidth')).toHaveValue('220');
  await screenshot(page, 'settings-drawer', { settle: () => page.waitForTimeout(400) }); // the drawer slides in

  await page.getByTestId('settings-footer').click();
  await expect(page.getByTestId('settings-footer')).toHaveAttribute('aria-checked', 'false');
  await expect(page.getByTestId('layout-footer')).toHaveCount(0);
  expect(await settingsStore(page)).toMatchObject({ footer: false });

  await page.getByTestId('settings-copy').click();
  await expect(
    page.locator('.arco-message').filter({ hasText: 'Copy Success, Please replace the settings' }),
  ).toBeVisible();
  const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as Record<
    string,
    unknown
  >;
  expect(copied).toMatchObject({ footer: false, navbar: true, menuWidth: 220, theme: 'light' });
  expect(copied).not.toHaveProperty('globalSettings');

  await page.getByRole('button', { name: 'Close' }).click();
  await expect(drawer).toBeHidden();

  // Same tab after a reload: still off (sessionStorage).
  await page.reload();
  await expect(page.getByTestId('side-menu')).toBeVisible();
  await expect(page.getByTestId('layout-footer')).toHaveCount(0);

  // A new tab is a new session: signed in (localStorage) but with the default settings.
  const other = await context.newPage();
  await other.goto('/dashboard/workplace');
  await expect(other.getByTestId('side-menu')).toBeVisible();
  await expect(other.getByTestId('layout-footer')).toBeVisible();
  expect(await settingsStore(other)).toBeNull();
  await other.close();
});

test('menu from server: the admin menu keeps working with names from POST /api/user/menu', async ({
  page,
}) => {
  await signIn(page, admin.username, admin.password);
  const names = await api<string[]>(
    'POST',
    '/api/user/menu',
    undefined,
    await tokenFor(admin.username, admin.password),
  );
  expect(names.body.data).toEqual(expect.arrayContaining(['SystemUsers', 'FirmwareList', 'DeviceList']));

  await openSettings(page);
  const menuCall = page.waitForResponse(
    (r) => r.url().endsWith('/api/user/menu') && r.request().method() === 'POST',
  );
  await page.getByTestId('settings-menuFromServer').click();
  expect((await menuCall).status()).toBe(200);
  await expect(page.locator('.arco-notification').filter({ hasText: '菜单加载成功' })).toBeVisible();
  await expect(page.getByTestId('settings-menuFromServer')).toHaveAttribute('aria-checked', 'true');
  const stored = (await settingsStore(page)) as { menuFromServer: boolean };
  expect(stored.menuFromServer).toBe(true);
  await page.getByRole('button', { name: '关闭' }).click();

  for (const area of ['设备管理', '固件管理', '系统管理', '卡片管理'])
    await expect(menuEntry(page, area)).toBeVisible();
  await menuEntry(page, '系统管理').click();
  await page.getByRole('menuitem', { name: '用户管理' }).click();
  await page.waitForURL(/\/system\/users$/);
  await expect(page.getByRole('columnheader', { name: '用户名' })).toBeVisible();

  await page.goto('/device/list');
  await expect(page.getByRole('menuitem', { name: '设备列表' })).toHaveClass(/arco-menu-selected/);

  // The menu really comes from the server's answer: a shorter answer gives a shorter menu, and a route missing
  // from it is not found (seed section 6), even for an admin.
  const other = await page.context().newPage();
  await other.route('**/api/user/menu', (route) =>
    route.fulfill({ json: { status: true, data: ['dashboard', 'Workplace', 'device', 'DeviceList'] } }),
  );
  await other.goto('/dashboard/workplace');
  await expect(menuEntry(other, '固件管理')).toBeVisible();
  await openSettings(other);
  await other.getByTestId('settings-menuFromServer').click();
  await expect(other.locator('.arco-notification').filter({ hasText: '菜单加载成功' })).toBeVisible();
  await other.getByRole('button', { name: '关闭' }).click();
  await expect(menuEntry(other, '设备管理')).toBeVisible();
  await expect(menuEntry(other, '固件管理')).toHaveCount(0);
  await expect(menuEntry(other, '系统管理')).toHaveCount(0);
  await other.goto('/system/users');
  await expect(other.getByText('抱歉，页面不见了～')).toBeVisible();
  await other.close();
});
