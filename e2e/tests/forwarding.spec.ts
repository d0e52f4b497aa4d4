import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { expect, test, type Locator, type Page } from '@playwright/test';
import type { ForwardStats } from '@cellhub/contract/forwarding';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { api, devicesFor, newUser, screenshot, signIn, toast, tokenFor, uniqueName } from '../support';

interface Delivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The exact bytes received, as the signature covers them. */
  raw: Buffer;
  /** What the receiver answered. */
  answered: number;
}

/**
 * The customer's HTTP endpoint on 127.0.0.1, on the first free port of those the e2e server's OUTBOUND_ALLOW names
 * (env.ts): records every request and answers `status` (200 unless the test says otherwise) with a body naming the
 * message it got, so the page can be checked for the receiver's own answer.
 */
async function receiver() {
  const deliveries: Delivery[] = [];
  const state = { status: 200 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = state.status;
      deliveries.push({
        path: req.url ?? '',
        headers: req.headers,
        raw: Buffer.concat(chunks),
        answered: status,
      });
      res.writeHead(status, { 'content-type': 'application/json', 'x-receiver': 'plant-7' });
      res.end(
        JSON.stringify({ receiver: 'plant-7', got: req.headers['x-cellhub-message-id'] ?? null, status }),
      );
    });
  });
  for (const port of E2E.receiverPorts) {
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) return { server, port, state, deliveries };
  }
  throw new Error(`no free receiver port of ${E2E.receiverPorts.join(', ')} (OUTBOUND_ALLOW)`);
}

/** The receiver's check of a delivery (docs/forwarding.md): sha256= HMAC-SHA256 of the exact body with the secret. */
function signatureValid(d: Delivery, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(d.raw).digest('hex')}`);
  const got = Buffer.from(String(d.headers['x-cellhub-signature'] ?? ''));
  return got.length === expected.length && timingSafeEqual(expected, got);
}

/** The number under one of the detail page's counters (已送达, 失败次数, 死信, 待发送). */
const counter = (page: Page, title: string): Locator =>
  page.locator('.arco-statistic').filter({ hasText: title }).locator('.arco-statistic-value');

const card = (page: Page, title: string): Locator =>
  page.locator('.arco-card').filter({ has: page.locator('.arco-card-header-title', { hasText: title }) });

test('forwarding: a rule made in the browser signs devsim data to a local receiver, retries, dead letter, replay', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const user = await newUser('fwd');
  const token = await tokenFor(user.username, user.password);
  const [id] = await devicesFor(token, 1, 'FWD');
  const device = new VirtualDevice(id!, {
    url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
    keepalive: 30,
    configGet: false,
  });
  const rx = await receiver();
  const deliveriesOf = (sn: string) =>
    rx.deliveries.filter((d) => (JSON.parse(d.raw.toString('utf8')) as { device?: string }).device === sn);
  try {
    await device.connect();
    await signIn(page, user.username, user.password);

    // The rule, in the create form: the local receiver, a header of its own and a body template (previewed).
    await page.goto('/data-transmit/forward/list');
    await expect(page.getByText('还没有推送规则')).toBeVisible();
    await page.getByRole('button', { name: '创建规则' }).first().click();
    await page.waitForURL(/\/data-transmit\/forward\/create$/);
    const name = uniqueName('plant');
    await page.getByTestId('forward-name').fill(name);
    await page.getByTestId('forward-url').fill(`http://127.0.0.1:${rx.port}/cellhub/ingest`);
    await page.getByRole('button', { name: '添加请求头' }).click();
    await page.getByPlaceholder('名称', { exact: true }).fill('X-Plant');
    await page.getByPlaceholder('值', { exact: true }).fill('7');
    await page
      .getByTestId('forward-body')
      .fill(
        '{"device": "{{sn}}", "kind": "{{kind}}", "values": {{data.params}}, "ts": {{ts}}, "msg": "{{id}}"}',
      );
    await expect(page.getByTestId('forward-preview')).toContainText('"values": {');
    await expect(page.getByTestId('forward-preview')).toContainText('"device": "SN0001"');
    await page.getByRole('button', { name: '保存' }).click();

    // The signing secret is shown once: the user reveals and copies it (here: reads it) before going on.
    const secretModal = page.locator('.arco-modal').filter({ hasText: '签名密钥' });
    await expect(secretModal).toBeVisible();
    await secretModal.getByRole('button', { name: '显示密钥' }).click();
    const secret = (await secretModal.getByTestId('forward-secret').textContent())!.trim();
    expect(secret).not.toMatch(/•/);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    await secretModal.getByRole('button', { name: '我已复制' }).click();
    await page.waitForURL(/\/data-transmit\/forward\/detail\/\d+$/);
    const ruleId = Number(new URL(page.url()).pathname.split('/').pop());
    await expect(page.getByText(name)).toBeVisible();

    // Test send: the receiver's real answer (status, its header, its body naming the message) on the page.
    const testPanel = page.getByTestId('forward-test');
    await testPanel.getByRole('button', { name: '发送示例消息' }).click();
    await expect(testPanel.locator('.arco-alert')).toContainText('目标已接收 · 状态码 200', {
      timeout: 15_000,
    });
    expect(rx.deliveries).toHaveLength(1);
    const probe = rx.deliveries[0]!;
    expect(probe.path).toBe('/cellhub/ingest');
    expect(probe.headers['x-plant']).toBe('7');
    expect(signatureValid(probe, secret)).toBe(true);
    const probeId = String(probe.headers['x-cellhub-message-id']);
    await expect(testPanel).toContainText('x-receiver: plant-7');
    await expect(testPanel).toContainText(`"got":"${probeId}"`);
    await expect(testPanel).toContainText('"device": "SN0001"');
    await screenshot(page, 'forwarding-test-send');

    // The device reports; the receiver gets the templated body, signed with the rule's secret.
    await device.report({ temperature: 21.5 });
    await expect.poll(() => deliveriesOf(id!.sn).length, { timeout: 15_000 }).toBe(1);
    const first = deliveriesOf(id!.sn)[0]!;
    expect(signatureValid(first, secret)).toBe(true);
    expect(first.headers['x-cellhub-rule']).toBe(String(ruleId));
    expect(first.headers['content-type']).toBe('application/json');
    expect(JSON.parse(first.raw.toString('utf8'))).toMatchObject({
      device: id!.sn,
      kind: 'property',
      values: { temperature: 21.5 },
      msg: first.headers['x-cellhub-message-id'],
    });
    // A body changed on the way no longer matches its signature.
    expect(
      signatureValid({ ...first, raw: Buffer.from(first.raw.toString().replace('21.5', '99')) }, secret),
    ).toBe(false);
    // The counters read themselves again on the page (every 10 s).
    await expect(counter(page, '已送达')).toHaveText('1', { timeout: 25_000 });
    await expect(counter(page, '待发送')).toHaveText('0');

    // The receiver goes down (503): the message is retried under the same id, and the page shows the failing state.
    rx.state.status = 503;
    await device.report({ temperature: 22.5 });
    await expect.poll(() => deliveriesOf(id!.sn).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    const failing = deliveriesOf(id!.sn).slice(1);
    expect(failing.every((d) => d.answered === 503)).toBe(true);
    const retriedId = failing[0]!.headers['x-cellhub-message-id'];
    expect(retriedId).not.toBe(first.headers['x-cellhub-message-id']);
    expect(new Set(failing.map((d) => d.headers['x-cellhub-message-id']))).toEqual(new Set([retriedId]));
    await expect(counter(page, '待发送')).toHaveText('1', { timeout: 25_000 });
    await expect(counter(page, '失败次数')).not.toHaveText('0');
    await expect(page.locator('.arco-descriptions')).toContainText('HTTP 503');
    await screenshot(page, 'forwarding-retrying');

    // It comes back: the next retry delivers the same message, nothing is lost or doubled.
    rx.state.status = 200;
    await expect
      .poll(() => deliveriesOf(id!.sn).filter((d) => d.answered === 200).length, { timeout: 45_000 })
      .toBe(2);
    const recovered = deliveriesOf(id!.sn).filter((d) => d.answered === 200)[1]!;
    expect(recovered.headers['x-cellhub-message-id']).toBe(retriedId);
    const refusals = deliveriesOf(id!.sn).filter((d) => d.answered === 503);
    expect(new Set(refusals.map((d) => d.headers['x-cellhub-message-id']))).toEqual(new Set([retriedId]));
    expect(signatureValid(recovered, secret)).toBe(true);
    expect(JSON.parse(recovered.raw.toString('utf8'))).toMatchObject({ values: { temperature: 22.5 } });
    await expect(counter(page, '已送达')).toHaveText('2', { timeout: 25_000 });
    await expect(counter(page, '待发送')).toHaveText('0');

    // The receiver refuses a message (422): a dead letter at once, listed with its error on the page.
    rx.state.status = 422;
    const sent = deliveriesOf(id!.sn).length;
    await device.report({ temperature: 23.5 });
    await expect.poll(() => deliveriesOf(id!.sn).length, { timeout: 15_000 }).toBe(sent + 1);
    const refused = deliveriesOf(id!.sn).at(-1)!;
    expect(refused.answered).toBe(422);
    const deadCard = card(page, '死信');
    const deadRow = deadCard.locator('.arco-table-tr').filter({ hasText: id!.sn });
    await expect(deadRow).toContainText('HTTP 422', { timeout: 25_000 });
    await expect(deadRow).toContainText('属性');
    await expect(counter(page, '死信')).toHaveText('1', { timeout: 25_000 });
    await screenshot(page, 'forwarding-dead-letter');

    // Back up, the dead letter is replayed from the list: delivered under its own message id.
    rx.state.status = 200;
    await deadRow.getByRole('button', { name: '重发' }).click();
    await expect(toast(page, '已重新排队 1 条消息')).toBeVisible();
    await expect.poll(() => deliveriesOf(id!.sn).length, { timeout: 15_000 }).toBe(sent + 2);
    const replayed = deliveriesOf(id!.sn).at(-1)!;
    expect(replayed.answered).toBe(200);
    expect(replayed.headers['x-cellhub-message-id']).toBe(refused.headers['x-cellhub-message-id']);
    expect(signatureValid(replayed, secret)).toBe(true);
    expect(JSON.parse(replayed.raw.toString('utf8'))).toMatchObject({ values: { temperature: 23.5 } });
    await expect(deadCard).toContainText('没有死信');
    await expect(counter(page, '已送达')).toHaveText('3', { timeout: 25_000 });
    await expect(counter(page, '死信')).toHaveText('0');

    // The chart's series (the API behind it): three deliveries, the failed attempts and the one dead letter.
    const stats = await api<ForwardStats>(
      'GET',
      `/api/forwarding/${ruleId}/stats?range=1h`,
      undefined,
      token,
    );
    const sum = (k: 'delivered' | 'failed' | 'dead') => stats.body.data.points.reduce((n, p) => n + p[k], 0);
    expect(sum('delivered')).toBe(3);
    expect(sum('failed')).toBeGreaterThanOrEqual(refusals.length);
    expect(sum('dead')).toBe(1);
    await expect(card(page, '推送情况').locator('canvas')).toBeVisible();
    await screenshot(page, 'forwarding-detail', { fullPage: true });

    // The list shows the rule with the same counters.
    await page.goto('/data-transmit/forward/list');
    const row = page.locator('.arco-table-tr').filter({ hasText: name });
    await expect(row).toContainText('运行中');
    await expect(row).toContainText(`POST http://127.0.0.1:${rx.port}/cellhub/ingest`);
    await expect(row.getByRole('switch')).toBeChecked();
    const tags = row.locator('td').nth(4).locator('.arco-tag');
    await expect(tags).toHaveText(['3', String(sum('failed')), '0', '0']);
  } finally {
    await device.close().catch(() => undefined);
    await new Promise((resolve) => rx.server.close(resolve));
  }
});
