import { createHmac, randomBytes } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { canonicalString, parseQueryPairs } from '@cellhub/contract/signature';
import { E2E } from '../env';
import {
  admin,
  api,
  nextSmsCode,
  screenshot,
  signIn,
  tokenFor,
  uniqueName,
  uniquePhone,
  PASSWORD,
} from '../support';

/**
 * A signed open-API call from Node, the way a customer's program makes one (docs/open-api.md): the canonical string
 * of the contract, HMAC-SHA256 keyed by the secret, lowercase hex. `tamper` signs with another secret.
 */
async function signedGet(
  url: string,
  key: { accessKey: string; secret: string },
  tamper = false,
): Promise<{ status: number; body: { status?: true; code?: number; data?: unknown; total?: number } }> {
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  const canonical = canonicalString({ path: url, ts, nonce, params: parseQueryPairs(url) ?? [] });
  const signature = createHmac('sha256', tamper ? `${key.secret}x` : key.secret)
    .update(canonical, 'utf8')
    .digest('hex');
  const res = await fetch(`${E2E.baseURL}${url}`, {
    headers: {
      'x-n-accesskey': key.accessKey,
      'x-n-ts': ts,
      'x-n-nonce': nonce,
      'x-n-signature': signature,
    },
  });
  return { status: res.status, body: (await res.json()) as never };
}

/** A user with a phone (set by the admin, so no SMS is spent on binding it): the key's code goes there. */
async function userWithPhone(): Promise<{ username: string; phone: string }> {
  const username = uniqueName('keys');
  const phone = uniquePhone();
  const adminToken = await tokenFor(admin.username, admin.password);
  const r = await api('POST', '/api/users', { username, password: PASSWORD, phone }, adminToken);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { username, phone };
}

const inputOf = (page: Page, testId: string) => page.getByTestId(testId).locator('input').first();

test('access keys: create in the browser, secret once, verify by SMS, sign a request, see last use', async ({
  page,
}) => {
  const user = await userWithPhone();
  await signIn(page, user.username, PASSWORD);

  // No key yet: the list says what a key is for.
  await page.goto('/accesskey/list');
  await expect(page.getByText('还没有访问密钥')).toBeVisible();
  await page.getByRole('button', { name: '创建密钥' }).first().click();
  await page.waitForURL(/\/accesskey\/create$/);

  // A typo in the allow-list is named under the field before anything is sent.
  await page.getByTestId('access-key-name').fill('e2e sync');
  await page.getByText('控制设备', { exact: true }).click();
  const ipInput = inputOf(page, 'access-key-ip-allow');
  await ipInput.fill('300.1.1.1');
  await ipInput.press('Enter');
  await page.getByTestId('access-key-submit').click();
  await expect(page.getByText('不是有效的 IPv4/IPv6 地址或 CIDR 网段：300.1.1.1')).toBeVisible();
  await page
    .getByTestId('access-key-ip-allow')
    .locator('.arco-tag')
    .filter({ hasText: '300.1.1.1' })
    .locator('.arco-tag-close-btn')
    .click();
  // The test's own requests come from this machine.
  for (const ip of ['127.0.0.1', '::1']) {
    await ipInput.fill(ip);
    await ipInput.press('Enter');
  }
  await page.getByTestId('access-key-submit').click();

  // The secret, this once.
  const accessKey = (await page.getByTestId('access-key-created-key').innerText()).trim();
  const secret = (await page.getByTestId('access-key-created-secret').innerText()).trim();
  expect(accessKey).toMatch(/^AK[A-Z2-7]{20}$/);
  expect(secret.length).toBeGreaterThanOrEqual(20);
  await expect(page.getByText('Secret 只显示这一次', { exact: false })).toBeVisible();
  await screenshot(page, 'access-key-secret-once');
  const next = page.getByRole('button', { name: '下一步：验证密钥' });
  await expect(next).toBeDisabled();
  await page.getByTestId('access-key-saved').click();
  await next.click();

  // Unverified, the key signs nothing.
  const early = await signedGet('/api/devices?current=1&per_page=10', { accessKey, secret });
  expect(early.status).toBe(403);
  expect(early.body.code).toBe(10226);

  // The code goes to the account's phone.
  await expect(page.getByText(`短信（${user.phone}）`)).toBeVisible();
  await page.getByRole('button', { name: '获取验证码' }).click();
  await expect(page.getByRole('button', { name: /秒后重发/ })).toBeDisabled();
  const code = await nextSmsCode(user.phone);
  await page.getByPlaceholder('6 位验证码').fill(code);
  await page.getByTestId('access-key-verify-submit').click();
  await expect(page.getByText('密钥已验证', { exact: true })).toBeVisible();

  // Reloaded, the create page starts again: the secret is gone for good, nowhere in the console.
  await page.reload();
  await expect(page.getByTestId('access-key-name')).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  await page.goto('/accesskey/list');
  const row = page.locator('tr').filter({ hasText: accessKey });
  await expect(row.getByText('已验证')).toBeVisible();
  await expect(row.getByText('从未使用')).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  const listed = await api<{ secret?: string }[]>(
    'GET',
    '/api/access-keys',
    undefined,
    await tokenFor(user.username, PASSWORD),
  );
  expect(JSON.stringify(listed.body)).not.toContain(secret);

  // Signed from Node: a good signature lists the (empty) devices; a wrong one is refused and recorded.
  const ok = await signedGet('/api/devices?per_page=10&current=1', { accessKey, secret });
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  expect(ok.body.status).toBe(true);
  expect(ok.body.total).toBe(0);
  const bad = await signedGet('/api/devices?current=1&per_page=10', { accessKey, secret }, true);
  expect(bad.status).toBe(403);
  expect(bad.body.code).toBe(10221);

  // The key's page: last used from this machine, both requests in the table and the day's counts.
  await row.getByRole('button', { name: '查看' }).click();
  await page.waitForURL(new RegExp(`/accesskey/detail/${accessKey}$`));
  await expect(page.getByTestId('access-key-last-used')).toContainText(/127\.0\.0\.1|::1/);
  const uses = page.getByTestId('access-key-uses');
  await expect(uses.getByText('签名不匹配')).toBeVisible();
  await expect(uses.getByText('成功', { exact: true })).toBeVisible();
  await expect(page.getByTestId('access-key-usage-total')).toHaveText(/成功 [1-9]\d* 次，被拒绝 [1-9]\d* 次/);
  expect(await page.content()).not.toContain(secret);
  await screenshot(page, 'access-key-detail', { fullPage: true });
});
