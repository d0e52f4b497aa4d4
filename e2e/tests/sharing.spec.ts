import { expect, test, type Browser, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { api, devicesFor, newUser, screenshot, signIn, submitLogin, tokenFor } from '../support';

/** A second signed-in browser: the receiver works beside the owner. */
async function signedInPage(browser: Browser, username: string, password: string): Promise<Page> {
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, username, password);
  return page;
}

const deviceRow = (page: Page, sn: string) => page.locator('.arco-table-tr').filter({ hasText: sn });

/** Clicks a row's text button, then the OK of its confirmation. */
async function confirmRowAction(page: Page, row: ReturnType<Page['locator']>, name: string) {
  await row.getByRole('button', { name, exact: true }).click();
  await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
}

test('an owner shares a device with view right, upgrades it to control, then revokes it', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const owner = await newUser('sho');
  const receiver = await newUser('shr');
  const ownerToken = await tokenFor(owner.username, owner.password);
  const receiverToken = await tokenFor(receiver.username, receiver.password);
  const [id] = await devicesFor(ownerToken, 1, 'SHV');
  const device = new VirtualDevice(id!, { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30 });
  await device.connect();
  try {
    // The owner shares from the device list: the row's Share action opens the dialog.
    await signIn(page, owner.username, owner.password);
    await page.goto('/device/list');
    await deviceRow(page, id!.sn).getByRole('button', { name: '分享', exact: true }).click();
    const dialog = page.locator('.arco-modal').filter({ hasText: '分享设备' });
    await expect(dialog.getByTestId('share-devices')).toContainText(id!.sn);
    await dialog.getByTestId('share-to').fill(receiver.username);
    await expect(dialog.getByTestId('share-right-radio-view')).toContainText('不能下发指令或配置');
    await screenshot(page, 'sharing-dialog-zh');
    await dialog.getByTestId('share-submit').click();
    await expect(page.locator('.arco-message').filter({ hasText: '已分享 1 台设备' })).toBeVisible();
    const outgoing = await api<{ id: number; right: string; to_username: string }[]>(
      'GET',
      '/api/shares/outgoing',
      undefined,
      ownerToken,
    );
    expect(outgoing.body.data).toMatchObject([{ right: 'view', to_username: receiver.username }]);

    // The receiver sees the device in their list, marked shared with its owner.
    const other = await signedInPage(browser, receiver.username, receiver.password);
    await other.goto('/device/list');
    const row = deviceRow(other, id!.sn);
    await expect(row.getByTestId('shared-mark')).toContainText('共享 · 查看');
    await expect(row.getByTestId('shared-mark')).toContainText(owner.username);
    // Management is the owner's: no unbind, no share on a shared row.
    await expect(row.getByRole('button', { name: '解绑' })).toHaveCount(0);
    await expect(row.getByRole('button', { name: '分享', exact: true })).toHaveCount(0);
    await screenshot(other, 'sharing-receiver-list-zh');

    // View right: the command form is not offered, and the server refuses a send all the same.
    await other.goto(`/device/detail/${id!.product_key}/${id!.sn}?tab=commands`);
    await expect(other.getByTestId('shared-mark')).toContainText(owner.username);
    await expect(other.getByTestId('command-readonly')).toBeVisible();
    await expect(other.getByTestId('command-send')).toHaveCount(0);
    const refused = await api(
      'POST',
      `/api/devices/${id!.sn}/commands`,
      { type: 'hex', data: '0102' },
      receiverToken,
    );
    expect(refused.body.code).toBe(10108);
    expect(device.commands).toEqual([]);

    // The owner upgrades the share to control in My Shares.
    await page.goto('/myshare/list');
    const share = deviceRow(page, id!.sn);
    await expect(share).toContainText(receiver.username);
    await share.getByRole('button', { name: '修改' }).click();
    const modal = page.locator('.arco-modal').filter({ hasText: '修改分享' });
    await modal.getByTestId('share-right-radio-control').click();
    await modal.getByRole('button', { name: '确定' }).click();
    await expect(share.getByTestId('share-right-control')).toBeVisible();

    // Control right: the receiver's command goes through and the device replies.
    await other.reload();
    await other.getByTestId('command-data').fill('0102');
    await other.getByTestId('command-send').click();
    const history = other.getByTestId('command-history').locator('tbody tr').first();
    await expect(history).toContainText('0102');
    await expect(history).toContainText('已回复');
    expect(device.commands.map((c) => c.data)).toEqual(['0102']);

    // The owner revokes; the receiver's open list loses the device at once, without a reload (the server tells
    // the sockets watching it that its access changed, and the list reads itself again).
    await other.goto('/device/list');
    await expect(deviceRow(other, id!.sn)).toBeVisible();
    await confirmRowAction(page, share, '撤销');
    await expect(page.getByText('你还没有分享过设备')).toBeVisible();
    await expect(other.getByText(id!.sn)).toHaveCount(0);
    const gone = await api('GET', `/api/devices/${id!.sn}`, undefined, receiverToken);
    expect(gone.body.code).toBe(10117);
    await other.context().close();
  } finally {
    await device.close();
  }
});

test('a share link made for two devices is accepted by another user, not by its owner, and is used up', async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  const owner = await newUser('slo');
  const receiver = await newUser('slr');
  const late = await newUser('sll');
  const ownerToken = await tokenFor(owner.username, owner.password);
  const ids = await devicesFor(ownerToken, 2, 'SHL');

  // The owner selects both rows and makes a one-use control link in the dialog.
  await signIn(page, owner.username, owner.password);
  await page.goto('/device/list');
  for (const d of ids) await deviceRow(page, d.sn).locator('.arco-checkbox').click();
  await page.getByTestId('device-share-selected').click();
  const dialog = page.locator('.arco-modal').filter({ hasText: '分享设备' });
  await expect(dialog.getByTestId('share-devices')).toContainText('共 2 台');
  await dialog.getByText('生成分享链接').click();
  await dialog.getByTestId('share-right-radio-control').click();
  await dialog.getByPlaceholder('不填则不限次数').fill('1');
  await dialog.getByTestId('share-submit').click();
  const url = await dialog.getByTestId('share-link-url').inputValue();
  expect(url).toMatch(new RegExp(`^${E2E.baseURL}/share\\?token=[A-Za-z0-9_-]{32}$`));
  await screenshot(page, 'sharing-link-created-zh');
  await dialog.getByRole('button', { name: '完成' }).click();

  // Its owner opening it is told 10212.
  await page.goto(url);
  await expect(page.getByText('不能分享给自己')).toBeVisible();

  // The receiver opens it signed out, signs in, and comes back to it (seed section 6: the route and its query
  // ride along); the page says whose devices and which right, and accepting lands on the device list.
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } });
  const other = await context.newPage();
  await other.goto(url);
  await other.waitForURL(/\/login\?redirect=Share&token=/);
  await submitLogin(other, receiver.username, receiver.password);
  await other.waitForURL(url);
  await expect(other.getByText(`${owner.username} 向你分享了 2 台设备`)).toBeVisible();
  await expect(other.getByTestId('share-right-control')).toBeVisible();
  await screenshot(other, 'sharing-landing-zh');
  await other.getByRole('button', { name: '接受分享' }).click();
  await other.waitForURL(/\/device\/list$/);
  for (const d of ids)
    await expect(deviceRow(other, d.sn).getByTestId('shared-mark')).toContainText('共享 · 控制');
  await other.context().close();

  // The one use is spent: the next user gets the shared result page with 10211's text.
  const third = await signedInPage(browser, late.username, late.password);
  await third.goto(url);
  await expect(third.getByTestId('result-page')).toBeVisible();
  await expect(third.getByText('分享链接不存在')).toBeVisible();
  await third.context().close();

  // In My Shares the link counts its use and the receiver holds both devices.
  await page.goto('/myshare/list?tab=links');
  await expect(page.locator('.arco-table-tr').filter({ hasText: '1 / 1' })).toContainText('已失效');
  await page.goto('/myshare/list');
  for (const d of ids) await expect(deviceRow(page, d.sn)).toContainText(receiver.username);
});
