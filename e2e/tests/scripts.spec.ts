import { expect, test, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { encodeRawFrame } from '../../apps/devsim/src/raw-frame';
import { E2E } from '../env';
import { api, newUser, screenshot, signIn, toast, tokenFor, uniqueName } from '../support';

// The editor and its test run side by side, as the screenshots show them.
test.use({ viewport: { width: 1280, height: 900 } });

/** The reading devsim sends with `--raw-frames`: 01 00 EB 37 C4 (23.5 °C, 55 %, -60 dBm). */
const READING = { temperature: 23.5, humidity: 55, rssi: -60 };
const SAMPLE_HEX = Buffer.from(encodeRawFrame(READING)).toString('hex').toUpperCase();

// Typed line by line as a user types it: CodeMirror closes brackets and quotes itself, steps over the closing ones
// typed after, indents new lines and puts the function's closing brace on its own line after Enter.
const TYPED = [
  '// e2e frames: 01 <temperature x10 int16> <humidity uint8>',
  'function decode(bytes, ctx) {',
  "log('frame', ctx.hex);",
  'var t = (bytes[1] << 8) | bytes[2];',
  'var p = { temperature: t / 10, humidity: bytes[3] };',
  'return { properties: p };',
];
const SOURCE = [TYPED[0], TYPED[1], ...TYPED.slice(2).map((line) => `  ${line}`), '}'].join('\n');
/** The line a syntax error typed after the function is on. */
const BROKEN_LINE = SOURCE.split('\n').length + 1;

/** Replaces the editor's text by typing, as a user does (select all, then type). */
async function typeSource(page: Page, lines: string[]): Promise<void> {
  const content = page.getByTestId('script-editor').locator('.cm-content');
  await content.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  for (const [i, line] of lines.entries()) {
    if (i > 0) {
      // Escape closes a completion list first, so Enter starts a new line instead of taking a suggestion.
      await page.keyboard.press('Escape');
      await page.keyboard.press('Enter');
    }
    await page.keyboard.type(line);
  }
}

/** Adds a line at the end of the editor's text. */
async function appendLine(page: Page, line: string): Promise<void> {
  await page.getByTestId('script-editor').locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  await page.keyboard.type(line);
}

async function testRun(page: Page): Promise<void> {
  const panel = page.getByTestId('script-test-panel');
  await panel.getByTestId('script-test-input').fill(SAMPLE_HEX);
  await panel.getByTestId('script-test-run').click();
}

test('scripts: a user writes and test-runs a decoding script, versions it, and devsim frames become properties', async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  const user = await newUser('script');
  const token = await tokenFor(user.username, user.password);
  const productName = `${uniqueName('RAW')}-sensor`;
  const product = await api<{ product_key: string }>('POST', '/api/products', { name: productName }, token);
  expect(product.status, JSON.stringify(product.body)).toBe(200);
  const { product_key } = product.body.data;

  // The product's owner creates its script (docs/scripts.md: a product script belongs to its owner).
  await signIn(page, user.username, user.password);
  await page.goto('/script/create');
  await page.getByTestId('script-name').fill('温湿度帧');
  await page.getByTestId('script-product').click();
  await page.locator('.arco-select-option').filter({ hasText: productName }).first().click();

  // Written in the lazily loaded CodeMirror editor, then test-run on the sample frame.
  await expect(page.getByTestId('script-editor').locator('.cm-content')).toBeVisible();
  await typeSource(page, TYPED);
  await testRun(page);
  const result = page.getByTestId('script-test-result');
  await expect(result.getByText('成功', { exact: true })).toBeVisible();
  const output = page.getByTestId('script-test-output');
  await expect(output).toBeVisible();
  expect(JSON.parse((await output.textContent()) ?? '')).toMatchObject({
    properties: { temperature: 23.5, humidity: 55 },
  });
  await expect(page.getByTestId('script-test-logs')).toHaveText(new RegExp(`^frame ${SAMPLE_HEX}$`, 'i'));
  await screenshot(page, 'scripts-test-run-output', { fullPage: true });

  // A syntax error on the line after the function: shown with its line, and the line marked in the editor.
  await appendLine(page, 'var = ;');
  await testRun(page);
  await expect(result.getByText('失败', { exact: true })).toBeVisible();
  await expect(page.getByTestId('script-test-error')).toContainText(`第 ${BROKEN_LINE} 行`);
  await expect(page.getByTestId('script-editor')).toHaveAttribute('data-error-line', String(BROKEN_LINE));
  await expect(page.locator('.cm-line.cm-script-error-line')).toHaveText('var = ;');
  await screenshot(page, 'scripts-test-run-error', { fullPage: true });

  // Fixed (the line removed again), the run succeeds and the mark goes; saved as version 1.
  await page.getByTestId('script-editor').locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+End');
  for (let i = 0; i < 'var = ;'.length + 1; i++) await page.keyboard.press('Backspace');
  await expect(page.locator('.cm-script-error-line')).toHaveCount(0);
  await testRun(page);
  await expect(result.getByText('成功', { exact: true })).toBeVisible();
  // Decoded frames are kept in the raw message list too (off by default: docs/scripts.md).
  await page.getByTestId('script-keep-raw').click();
  await page.getByTestId('script-save').click();
  await expect(toast(page, '已保存')).toBeVisible();
  await page.waitForURL(/\/script\/detail\/\d+$/);
  const id = Number(/\/script\/detail\/(\d+)$/.exec(page.url())![1]);
  const versions = page.getByTestId('script-versions');
  await expect(versions.locator('tbody tr')).toHaveCount(1);
  const v1 = await api<{ source: string; version: number }>('GET', `/api/scripts/${id}`, undefined, token);
  expect(v1.body.data).toMatchObject({ version: 1, source: SOURCE, keep_raw: true });

  // Edited and saved: version 2.
  await page.getByRole('button', { name: '编辑', exact: true }).click();
  await page.waitForURL(`/script/edit/${id}`);
  await expect(page.getByTestId('script-editor').locator('.cm-content')).toContainText('function decode');
  await appendLine(page, '// v2: same frames, a comment more');
  await page.getByLabel('版本说明').fill('注释');
  await page.getByTestId('script-save').click();
  await page.waitForURL(`/script/detail/${id}`);
  await expect(versions.locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('script-info')).toContainText('v2');

  // One click (and its confirmation) rolls back to version 1, saved as version 3.
  const row1 = versions.locator('tbody tr').filter({ has: page.getByText('v1', { exact: true }) });
  await row1.getByRole('button', { name: '回滚' }).click();
  const confirm = page.locator('.arco-popconfirm').filter({ hasText: '把 v1 的源码保存为新版本？' });
  await confirm.getByRole('button', { name: '确定' }).click();
  await expect(toast(page, '已回滚，当前为 v3')).toBeVisible();
  await expect(versions.locator('tbody tr')).toHaveCount(3);
  await expect(page.getByTestId('script-info')).toContainText('v3');
  const v3 = await api<{ source: string; version: number }>('GET', `/api/scripts/${id}`, undefined, token);
  expect(v3.body.data).toMatchObject({ version: 3, source: v1.body.data.source });

  // A devsim device of the product sends the reading as a raw frame on up/raw; its page shows the decoded values.
  const sn = uniqueName('RS').toUpperCase();
  const created = await api('POST', '/api/devices', { product_key, sn: [sn] }, token);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const detail = await api<{ secret: string }>('GET', `/api/devices/${sn}`, undefined, token);
  const device = new VirtualDevice(
    { sn, product_key, secret: detail.body.data.secret },
    { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30, configGet: false },
  );
  try {
    await device.connect();
    await page.goto(`/device/detail/${product_key}/${sn}?tab=properties`);
    await expect(page.getByTestId('device-latest')).toBeVisible();
    await device.publishBytes('raw', encodeRawFrame(READING));
    await expect(page.getByTestId('latest-temperature')).toHaveText('23.5', { timeout: 15_000 });
    await expect(page.getByTestId('latest-humidity')).toHaveText('55');
  } finally {
    await device.close();
  }
  // With keep_raw the frame itself is in the device's raw message list too, and the script counted the call.
  const raw = await api<{ direction: string; data: string }[]>(
    'GET',
    `/api/devices/${sn}/raw`,
    undefined,
    token,
  );
  expect(raw.status).toBe(200);
  expect(
    raw.body.data.map((m) => `${m.direction} ${Buffer.from(m.data, 'base64').toString('hex').toUpperCase()}`),
  ).toContain(`up ${SAMPLE_HEX}`);
  await expect
    .poll(
      async () =>
        (await api<{ calls: number }>('GET', `/api/scripts/${id}`, undefined, token)).body.data.calls,
    )
    .toBeGreaterThanOrEqual(1);

  // Another user cannot open the script: the result page, no toast; the API answers as if it did not exist.
  const stranger = await newUser('stranger');
  const context = await browser.newContext({ locale: 'zh-CN' });
  const other = await context.newPage();
  try {
    await signIn(other, stranger.username, stranger.password);
    await other.goto(`/script/detail/${id}`);
    await expect(other.getByText('脚本不存在')).toBeVisible();
    await expect(other.locator('.arco-message')).toHaveCount(0);
    const refused = await api(
      'GET',
      `/api/scripts/${id}`,
      undefined,
      await tokenFor(stranger.username, stranger.password),
    );
    expect(refused.body.code).toBe(10107);
  } finally {
    await context.close();
  }
});
