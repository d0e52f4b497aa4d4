import { join } from 'node:path';
import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { admin, api, newUser, signIn, toast, tokenFor, uniqueName } from '../support';

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;

interface Card {
  iccid: string;
  expiry: string | null;
  package_id: number | null;
  device_sn: string | null;
}
interface Balance {
  balance_fen: number;
}

let iccidSeq = 0;
/** A Chinese 20-digit ICCID (prefix 8986, no Luhn digit) no other test or run uses. */
function newIccid(): string {
  const tail = `${Date.now()}${iccidSeq++}${Math.floor(Math.random() * 1e6)}`.slice(-16).padStart(16, '0');
  return `8986${tail}`;
}

/**
 * The Arco Select of the form item labelled `label` (inside `root`, the page by default): types `search` when the
 * select searches, and picks the option containing `option`.
 */
async function pick(page: Page, label: string, option: string, root: Page | Locator = page) {
  const select = root.locator('.arco-form-item').filter({ hasText: label }).locator('.arco-select').first();
  await select.click();
  const input = select.locator('input:not([readonly])');
  if (await input.count()) await input.first().fill(option);
  await page
    .locator('.arco-select-popup:visible .arco-select-option')
    .filter({ hasText: option })
    .first()
    .click();
}

/** Local YYYY-MM-DD, as the pages show expiries. */
function day(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** A product and one device of the user; the device is a devsim DTU reporting `iccid` in its info. */
async function deviceReporting(token: string, iccid: string) {
  const product = await api<{ product_key: string }>('POST', '/api/products', { name: 'SIM DTU' }, token);
  expect(product.status, JSON.stringify(product.body)).toBe(200);
  const sn = uniqueName('SIM').toUpperCase();
  const created = await api(
    'POST',
    '/api/devices',
    { product_key: product.body.data.product_key, sn: [sn] },
    token,
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const d = await api<{ secret: string; product_key: string }>('GET', `/api/devices/${sn}`, undefined, token);
  const info = { fw_version: '2.1.0', imei: '861234567890123', iccid };
  const device = new VirtualDevice(
    { sn, product_key: d.body.data.product_key, secret: d.body.data.secret },
    { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30, info: () => info, configGet: false },
  );
  await device.connect();
  await expect
    .poll(
      async () =>
        (await api<{ iccid: string }>('GET', `/api/devices/${sn}`, undefined, token)).body.data.iccid,
    )
    .toBe(iccid);
  return { sn, device };
}

test.describe.configure({ mode: 'serial' });

test('admin creates a provider, a package and cards (form and batch file), tops up a user; the user buys a package and sees balance and expiry change', async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const user = await newUser('simu');
  const userToken = await tokenFor(user.username, user.password);
  const adminToken = await tokenFor(admin.username, admin.password);
  const providerName = uniqueName('移动手工 ');
  const packageCode = uniqueName('E2E-').slice(0, 30);
  const packageName = `月包 1GB ${packageCode}`;
  const formIccid = newIccid();
  const deviceIccid = newIccid();
  const stockIccid = newIccid();

  await signIn(page, admin.username, admin.password);

  // Provider (manual): the form, then the edit page it lands on
  await page.goto('/card-admin/provider');
  await page.getByRole('button', { name: '新建卡商' }).first().click();
  await page.waitForURL('**/card-admin/provider/create');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByText('请输入名称')).toBeVisible();
  await page.getByLabel('名称').fill(providerName);
  await expect(page.getByText('不对接运营商接口')).toBeVisible();
  await page.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '创建成功').last()).toBeVisible();
  await page.waitForURL(/\/card-admin\/provider\/edit\/\d+$/);
  const providerId = Number(page.url().split('/').pop());
  const provider = await api<{ name: string; kind: string; operator: string }>(
    'GET',
    `/api/card-admin/providers/${providerId}`,
    undefined,
    adminToken,
  );
  expect(provider.body.data).toMatchObject({ name: providerName, kind: 'manual', operator: 'china_mobile' });

  // Package: price typed in yuan is stored as whole fen
  await page.goto('/card-admin/package');
  await page.getByRole('button', { name: '新建套餐' }).click();
  await page.waitForURL('**/card-admin/package/create');
  await page.getByLabel('套餐名称').fill(packageName);
  await page.getByLabel('套餐编码').fill(packageCode);
  await page.getByLabel('流量（MB）').fill('1024');
  await page.getByLabel('价格（元）').fill('19.99');
  await page.getByRole('button', { name: '保存' }).click();
  await expect(toast(page, '创建成功').last()).toBeVisible();
  await page.waitForURL('**/card-admin/package');
  await page.getByLabel('关键字').fill(packageCode);
  await page.getByRole('button', { name: '查询' }).click();
  const pkgRow = page.getByRole('row').filter({ hasText: packageCode });
  await expect(pkgRow).toContainText('¥19.99');
  await expect(pkgRow).toContainText('未使用');
  const pkgs = await api<{ id: number; code: string; price_fen: number; flow_mb: number }[]>(
    'GET',
    `/api/packages?keyword=${encodeURIComponent(packageCode)}`,
    undefined,
    adminToken,
  );
  const pkg = pkgs.body.data.find((p) => p.code === packageCode)!;
  expect(pkg).toMatchObject({ price_fen: 1999, flow_mb: 1024 });

  // One card by form, assigned to the user, on the package
  await page.goto('/card-admin/card/create');
  await page.getByLabel('ICCID').fill('12345');
  await page.getByRole('button', { name: '保存', exact: true }).click();
  await expect(page.getByText('ICCID 为 19 或 20 位数字')).toBeVisible();
  await page.getByLabel('ICCID').fill(formIccid);
  await page.getByLabel('卡号（MSISDN）').fill('1064812340001');
  await pick(page, '卡商', providerName);
  await pick(page, '当前套餐', packageCode);
  await pick(page, '分配给用户', user.username);
  await page.getByRole('button', { name: '保存', exact: true }).click();
  await expect(toast(page, `已添加 ${formIccid}`).last()).toBeVisible();
  await page.waitForURL('**/card-admin/card');

  // More cards from a CSV file: two good rows, a bad ICCID and a duplicate, each failure with its reason
  await page.goto('/card-admin/card/batch');
  const template = page.waitForEvent('download');
  await page.getByTestId('sim-template-cards').hover();
  await page.getByText('CSV 模板', { exact: true }).click();
  expect((await template).suggestedFilename()).toBe('sim-cards-template.csv');
  const csv = [
    'iccid,phone,imsi,operator,provider,package',
    `${deviceIccid},1064812340002,460041234500002,移动,${providerName},${packageCode}`,
    `${stockIccid},1064812340003,,china_mobile,${providerName},`,
    `12345,,,,${providerName},`,
    `${formIccid},,,,${providerName},${packageCode}`,
  ].join('\r\n');
  await page.locator('input[type=file]').setInputFiles({
    name: 'cards.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  await expect(page.getByTestId('sim-batch-file')).toContainText('cards.csv');
  await page.getByRole('button', { name: '开始导入' }).click();
  const result = page.getByTestId('sim-batch-result');
  await expect(result).toContainText('成功 2 张，失败 2 行');
  const failures = page.getByTestId('sim-batch-failures');
  await expect(failures.getByRole('row').filter({ hasText: 'ICCID 格式错误' })).toContainText('12345');
  await expect(failures.getByRole('row').filter({ hasText: 'ICCID 已存在' })).toContainText(formIccid);
  await page.getByRole('button', { name: '查看入库记录' }).click();
  await page.waitForURL(/\/card-admin\/card\/log\?id=\d+$/);
  await expect(page.getByTestId('sim-log-detail')).toContainText('cards.csv');
  await expect(page.getByTestId('sim-log-detail')).toContainText('成功 2，失败 2');

  // Top up the user's balance with a note, from the orders page
  await page.goto('/card/order');
  await page.getByRole('button', { name: '余额充值' }).click();
  const topup = page.locator('.arco-modal').filter({ hasText: '余额充值' });
  await pick(page, '用户', user.username, topup);
  await topup.getByLabel('充值金额（元）').fill('50');
  await topup.getByLabel('备注').fill('e2e 对公转账');
  await topup.getByRole('button', { name: '下一步' }).click();
  await expect(page.getByTestId('sim-topup-confirm')).toContainText(
    `为 ${user.username} 充值 ¥50.00，充值后余额 ¥50.00`,
  );
  await topup.getByRole('button', { name: '确认充值' }).click();
  await expect(toast(page, '充值成功，当前余额 ¥50.00').last()).toBeVisible();
  const topped = await api<Balance>('GET', `/api/balance?uid=${user.uid}`, undefined, adminToken);
  expect(topped.body.data.balance_fen).toBe(5000);

  // The user's device reports the batch card; the assigned card is theirs too; the stock card is not
  const { sn, device } = await deviceReporting(userToken, deviceIccid);
  const userCtx = await browser.newContext({ baseURL: E2E.baseURL, viewport: { width: 1280, height: 900 } });
  const up = await userCtx.newPage();
  try {
    await signIn(up, user.username, user.password);
    await up.goto('/card/list');
    await expect(up.getByRole('row').filter({ hasText: formIccid })).toContainText('1064812340001');
    const deviceRow = up.getByRole('row').filter({ hasText: deviceIccid });
    await expect(deviceRow).toContainText(sn);
    await expect(up.getByRole('row').filter({ hasText: stockIccid })).toHaveCount(0);
    const before = await api<Card[]>('GET', '/api/cards', undefined, userToken);
    expect(before.body.data.map((c) => c.iccid).sort()).toEqual([deviceIccid, formIccid].sort());
    const expiryBefore = Object.fromEntries(before.body.data.map((c) => [c.iccid, c.expiry!]));

    // Renew both cards: the summary shows the total, the balance after, each card's new expiry
    await deviceRow.getByRole('button', { name: '续费' }).click();
    await up.waitForURL(new RegExp(`/card/package\\?iccids=${deviceIccid}$`));
    await expect(up.getByTestId('sim-header-balance')).toHaveText('¥50.00');
    const picker = up.getByTestId('sim-card-picker');
    await picker.click();
    await picker.locator('input').fill(formIccid);
    await up.locator('.arco-select-popup:visible .arco-select-option').filter({ hasText: formIccid }).click();
    await up.keyboard.press('Escape');
    await up.getByTestId('sim-package-card').filter({ hasText: packageName }).click();
    const summary = up.getByTestId('sim-order-summary');
    await expect(up.getByTestId('sim-order-total')).toHaveText('¥39.98');
    await expect(summary).toContainText('¥10.02');
    await expect(summary.getByText('续费', { exact: true })).toHaveCount(3); // two cards and the order kind
    await up.getByRole('button', { name: '余额支付 ¥39.98' }).click();
    const confirm = up.locator('.arco-modal').filter({ hasText: '确认支付' });
    await expect(confirm).toContainText('将从余额中扣除 ¥39.98，为 2 张卡购买');
    await confirm.getByRole('button', { name: '确认支付' }).click();

    const paid = up.getByTestId('sim-pay-result');
    await expect(up.getByText('支付成功')).toBeVisible();
    await expect(up.getByTestId('sim-new-balance')).toHaveText('¥10.02');
    await expect(up.getByTestId('sim-header-balance')).toHaveText('¥10.02');
    const after = await api<Card[]>('GET', '/api/cards', undefined, userToken);
    for (const c of after.body.data) {
      // A renewal of a valid card adds one month to its expiry.
      expect(new Date(c.expiry!).getTime()).toBeGreaterThan(new Date(expiryBefore[c.iccid]!).getTime());
      await expect(paid.getByRole('row').filter({ hasText: c.iccid })).toContainText(day(c.expiry!));
    }
    const balance = await api<Balance>('GET', '/api/balance', undefined, userToken);
    expect(balance.body.data.balance_fen).toBe(1002);

    // The ledger: the top-up with its note and the payment
    await up.getByRole('tab', { name: '余额明细' }).click();
    await expect(up.getByTestId('sim-balance')).toHaveText('¥10.02');
    const ledger = up.getByTestId('sim-ledger');
    await expect(ledger.getByRole('row').filter({ hasText: '订单支付' })).toContainText('-¥39.98');
    await expect(ledger.getByRole('row').filter({ hasText: '充值' })).toContainText('e2e 对公转账');

    // Not enough left for another renewal: the page says so before anything is sent
    await up.getByRole('tab', { name: '购买套餐' }).click();
    await up.getByRole('button', { name: '继续购买' }).click();
    await up.getByTestId('sim-package-card').filter({ hasText: packageName }).click();
    await expect(up.getByText('余额不足：当前余额 ¥10.02，需支付 ¥39.98')).toBeVisible();
    await expect(up.getByRole('button', { name: '余额支付 ¥39.98' })).toBeDisabled();

    // The card's detail: new expiry, the device it sits in, the order in its package history
    const card = after.body.data.find((c) => c.iccid === deviceIccid)!;
    await up.goto(`/card/detail/${deviceIccid}`);
    await expect(up.getByTestId('sim-detail-expiry')).toContainText(day(card.expiry!));
    await expect(up.getByTestId('sim-device-link')).toHaveText(sn);
    await expect(up.getByText(packageName).first()).toBeVisible();
    await expect(up.locator('.arco-table-tr').filter({ hasText: '续费' }).first()).toContainText('已支付');

    // Another user's card answers like a missing one
    await up.goto(`/card/detail/${stockIccid}`);
    await expect(up.getByText('物联网卡不存在')).toBeVisible();
    const other = await api('GET', `/api/cards/${stockIccid}`, undefined, userToken);
    expect(other.status).toBe(400);
    expect(other.body.code).toBe(60003);
  } finally {
    await device.close();
    await userCtx.close();
  }

  // The package is in use now: deleting it is refused with 60001, said in a dialog
  await page.goto('/card-admin/package');
  await page.getByLabel('关键字').fill(packageCode);
  await page.getByRole('button', { name: '查询' }).click();
  const used = page.getByRole('row').filter({ hasText: packageCode });
  await expect(used).toContainText('2 张卡 · 1 个订单');
  await used.getByRole('button', { name: '删除' }).click();
  await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
  const refusal = page.locator('.arco-modal').filter({ hasText: '流量套餐不可更改' });
  await expect(refusal).toContainText('不能删除');
  await refusal.getByRole('button', { name: '关闭' }).click();

  // Admin refunds the order (with a note): the balance comes back
  await page.goto('/card/order');
  const orderRow = page
    .getByRole('row')
    .filter({ hasText: user.username })
    .filter({ hasText: '已支付' })
    .first();
  await expect(orderRow).toContainText('¥39.98');
  await orderRow.getByRole('button', { name: '退款' }).click();
  const refund = page.locator('.arco-modal').filter({ hasText: '退款：' });
  await expect(refund).toContainText(`¥39.98 将退回 ${user.username} 的余额`);
  await refund.getByRole('textbox').fill('e2e 退款');
  await refund.getByRole('button', { name: '退款' }).click();
  await expect(toast(page, '已退款').last()).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: user.username }).first()).toContainText('已退款');
  const refunded = await api<Balance>('GET', `/api/balance?uid=${user.uid}`, undefined, adminToken);
  expect(refunded.body.data.balance_fen).toBe(5000);
});

test('a user has no SIM admin menu and the admin API refuses the role', async ({ page }) => {
  const user = await newUser('simr');
  const token = await tokenFor(user.username, user.password);
  await signIn(page, user.username, user.password);
  await page.goto('/card-admin/provider');
  await expect(page).not.toHaveURL(/provider/);
  await expect(page.getByRole('button', { name: '新建卡商' })).toHaveCount(0);
  await page.goto('/card/order');
  await page.waitForURL(/\/dashboard\/workplace$/);
  for (const path of ['/api/card-admin/providers', '/api/card-admin/cards', '/api/balance/accounts']) {
    const r = await api('GET', path, undefined, token);
    expect(r.status, path).toBe(400);
    expect(r.body.code, path).toBe(10108);
  }
  // The empty state says where cards come from.
  await page.goto('/card/list');
  await expect(page.getByText('还没有物联网卡')).toBeVisible();
});

// A manual run with E2E_SCREENSHOTS_DIR set writes docs/screenshots/sim-*.png at 1280 px (zh-CN and en-US, one
// dark); it is not a test, so it is not registered otherwise.
async function shot(page: Page, name: string) {
  await page.mouse.move(1270, 890);
  await page.waitForTimeout(600);
  await page.screenshot({ path: join(SHOTS!, `${name}.png`) });
}

async function seedForScreenshots(adminToken: string) {
  const user = await newUser('simshot');
  const userToken = await tokenFor(user.username, user.password);
  const call = async <T>(method: string, path: string, body?: unknown, token = adminToken) => {
    const r = await api<T>(method, path, body, token);
    expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.data;
  };
  const cm = await call<{ id: number }>('POST', '/api/card-admin/providers', {
    name: '移动物联网 华东手工',
    kind: 'manual',
    operator: 'china_mobile',
    remark: '线下对账',
  });
  const cu = await call<{ id: number }>('POST', '/api/card-admin/providers', {
    name: '联通物联网',
    kind: 'manual',
    operator: 'china_unicom',
  });
  await call('POST', '/api/card-admin/providers', {
    name: 'OneLink 江苏',
    kind: 'onelink',
    operator: 'china_mobile',
    sync_interval_min: 0,
    config: { appid: 'C5010535A1', password: 'e2e-secret' },
  });
  await call('POST', '/api/card-admin/providers', {
    name: '1NCE Global',
    kind: '1nce',
    operator: 'other',
    enabled: false,
    sync_interval_min: 0,
    config: { username: 'iot@example.com', password: 'e2e-secret' },
  });
  const stamp = Date.now().toString(36).toUpperCase().slice(-4);
  const pk = async (body: Record<string, unknown>) =>
    (await call<{ id: number }>('POST', '/api/packages', body)).id;
  const m1 = await pk({
    name: '移动月包 1GB',
    code: `CM1G-${stamp}`,
    operator: 'china_mobile',
    type: 'monthly',
    validity_unit: 'month',
    validity_count: 1,
    flow_mb: 1024,
    price_fen: 1500,
  });
  const m5 = await pk({
    name: '移动月包 5GB',
    code: `CM5G-${stamp}`,
    operator: 'china_mobile',
    type: 'monthly',
    validity_unit: 'month',
    validity_count: 1,
    flow_mb: 5120,
    price_fen: 4500,
  });
  await pk({
    name: '移动年包 20GB',
    code: `CM20GY-${stamp}`,
    operator: 'china_mobile',
    type: 'pool',
    validity_unit: 'year',
    validity_count: 1,
    flow_mb: 20480,
    price_fen: 16800,
    remark: '全年共享',
  });
  const u500 = await pk({
    name: '联通月包 500MB',
    code: `CU500-${stamp}`,
    operator: 'china_unicom',
    type: 'monthly',
    validity_unit: 'month',
    validity_count: 1,
    flow_mb: 500,
    price_fen: 850,
  });
  await pk({
    name: '电信半年包 3GB',
    code: `CT3G-${stamp}`,
    operator: 'china_telecom',
    type: 'pool',
    validity_unit: 'month',
    validity_count: 6,
    flow_mb: 3072,
    price_fen: 5400,
    on_sale: false,
  });
  const cards = Array.from({ length: 6 }, () => newIccid());
  const plan: [string, number, string, number | null, boolean][] = [
    [cards[0]!, cm.id, 'china_mobile', m1, true],
    [cards[1]!, cm.id, 'china_mobile', m5, true],
    [cards[2]!, cu.id, 'china_unicom', u500, true],
    [cards[3]!, cm.id, 'china_mobile', null, true],
    [cards[4]!, cm.id, 'china_mobile', m1, false],
    [cards[5]!, cu.id, 'china_unicom', null, false],
  ];
  for (const [i, [iccid, provider, operator, packageId, mine]] of plan.entries()) {
    await call('POST', '/api/card-admin/cards', {
      iccid,
      phone: `10648${String(20000000 + i * 7919).slice(-8)}`,
      imsi: `4600412345${String(10000 + i)}`,
      operator,
      provider_id: provider,
      package_id: packageId,
      uid: mine && i !== 0 ? user.uid : null,
    });
  }
  await call('PUT', `/api/card-admin/cards/${cards[0]}`, {
    status: 'active',
    activation_time: '2025-03-02T08:00:00Z',
  });
  await call('PUT', `/api/card-admin/cards/${cards[1]}`, {
    status: 'active',
    activation_time: '2025-06-12T08:00:00Z',
  });
  await call('PUT', `/api/card-admin/cards/${cards[2]}`, {
    status: 'active',
    activation_time: '2025-01-20T08:00:00Z',
    expiry: new Date(Date.now() + 6 * 86_400_000).toISOString(),
  });
  await call('PUT', `/api/card-admin/cards/${cards[4]}`, { status: 'suspended' });
  // Daily usage of the last 60 days for the detail's chart.
  const rows = ['iccid,date,used_mb'];
  for (let i = 0; i < 60; i++) {
    const d = new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10);
    rows.push(`${cards[0]},${d},${(18 + 14 * Math.sin(i / 3) + (i % 5) * 2.5).toFixed(2)}`);
    rows.push(`${cards[1]},${d},${(60 + 30 * Math.cos(i / 4)).toFixed(2)}`);
    rows.push(`${cards[2]},${d},${(4 + (i % 7)).toFixed(2)}`);
  }
  const form = new FormData();
  form.append('file', new Blob([rows.join('\n')], { type: 'text/csv' }), 'usage.csv');
  const imported = await fetch(`${E2E.baseURL}/api/card-admin/usage/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}` },
    body: form,
  });
  expect(imported.status).toBe(200);
  await call('POST', '/api/balance/topups', { uid: user.uid, amount_fen: 30000, note: '对公转账 2025-03' });
  // The device of card 0 took card 3 for a while: SIM swap on both.
  const { device } = await deviceReporting(userToken, cards[3]!);
  await device.publish('info', { iccid: cards[0] });
  await expect
    .poll(
      async () =>
        (await api<{ swaps: unknown[] }>('GET', `/api/cards/${cards[0]}`, undefined, userToken)).body.data
          .swaps.length,
    )
    .toBe(1);
  await device.close();
  const order = async (packageId: number, iccids: string[], pay: boolean) =>
    api('POST', '/api/orders', { package_id: packageId, iccids, pay }, userToken);
  await order(m1, [cards[0]!], true);
  await order(u500, [cards[2]!], true);
  await order(m5, [cards[1]!, cards[3]!], false);
  return { user, cards, m1 };
}

async function toDark(page: Page) {
  await page.getByTestId('navbar-theme').getByRole('button').click();
  await expect(page.locator('body')).toHaveAttribute('arco-theme', 'dark');
}

const screenshotRun = SHOTS ? test : undefined;
screenshotRun?.('screenshots of the SIM pages', async ({ browser }: { browser: Browser }) => {
  test.setTimeout(300_000);
  const adminToken = await tokenFor(admin.username, admin.password);
  const { user, cards } = await seedForScreenshots(adminToken);
  for (const [lang, tag] of [
    ['zh-CN', 'zh'],
    ['en-US', 'en'],
  ] as const) {
    const context = await browser.newContext({
      baseURL: E2E.baseURL,
      viewport: { width: 1280, height: 900 },
    });
    await context.addInitScript((l) => localStorage.setItem('arco-locale', l), lang);
    const page = await context.newPage();
    await signIn(page, user.username, user.password);
    if (tag === 'zh') {
      // The Workplace's SIM figures: balance, orders, cards by operator and expiring soon.
      await expect(page.getByTestId('stat-sim-total-value')).toHaveText('4');
      await expect(page.getByTestId('stat-balance')).toContainText('¥276.50');
      // The sign-in toast has gone.
      await expect(page.locator('.arco-message')).toHaveCount(0, { timeout: 8000 });
      await shot(page, 'sim-workplace-zh');
    }
    await page.goto('/card/list');
    await expect(page.getByRole('row').filter({ hasText: cards[0]! })).toBeVisible();
    await shot(page, `sim-card-list-${tag}`);
    await page.goto(`/card/detail/${cards[0]}`);
    await expect(page.getByTestId('sim-swap-banner')).toBeVisible();
    await expect(page.getByTestId('sim-usage-chart').locator('canvas')).toBeVisible();
    await shot(page, `sim-card-detail-${tag}`);
    await page.goto(`/card/package?iccids=${cards[0]},${cards[1]}`);
    await page.getByTestId('sim-package-card').nth(1).waitFor();
    await page.getByTestId('sim-package-card').filter({ hasText: '5GB' }).click();
    await expect(page.getByTestId('sim-order-total')).toHaveText('¥90.00');
    await shot(page, `sim-package-${tag}`);
    if (tag === 'zh') {
      await page.goto('/card/package?tab=balance');
      await expect(page.getByTestId('sim-ledger').getByRole('row').nth(2)).toBeVisible();
      await shot(page, 'sim-balance-zh');
      await page.goto('/card/list');
      await expect(page.getByRole('row').filter({ hasText: cards[0]! })).toBeVisible();
      await toDark(page);
      await shot(page, 'sim-card-list-zh-dark');
    }
    await context.close();

    const adminCtx = await browser.newContext({
      baseURL: E2E.baseURL,
      viewport: { width: 1280, height: 900 },
    });
    await adminCtx.addInitScript((l) => localStorage.setItem('arco-locale', l), lang);
    const ap = await adminCtx.newPage();
    await signIn(ap, admin.username, admin.password);
    await ap.goto('/card-admin/provider');
    await expect(ap.getByRole('row').filter({ hasText: '1NCE Global' })).toBeVisible();
    await shot(ap, `sim-admin-providers-${tag}`);
    await ap.goto('/card-admin/card');
    await expect(ap.getByRole('row').filter({ hasText: cards[5]! })).toBeVisible();
    await shot(ap, `sim-admin-cards-${tag}`);
    await ap.goto('/card-admin/package');
    await expect(ap.getByRole('row').filter({ hasText: '电信半年包' })).toBeVisible();
    await shot(ap, `sim-admin-packages-${tag}`);
    await ap.goto('/card/order');
    await expect(ap.getByRole('row').filter({ hasText: user.username }).first()).toBeVisible();
    await shot(ap, `sim-admin-orders-${tag}`);
    if (tag === 'zh') {
      await ap.goto('/card-admin/card/batch');
      await shot(ap, 'sim-admin-batch-zh');
    }
    await adminCtx.close();
  }
});
