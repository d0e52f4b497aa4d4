import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { otaHandler } from '../../apps/devsim/src/ota';
import { E2E } from '../env';
import { admin, api, newUser, signIn, tokenFor, uniqueName } from '../support';

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;

interface Identity {
  sn: string;
  product_key: string;
  secret: string;
}

interface VersionRow {
  id: number;
  version: string;
  size: number;
  md5: string;
}

/** A 64 KB binary that is clearly not text (the firmware store refuses text files). */
function firmwareBytes(seed: number): Buffer {
  const b = Buffer.alloc(64 * 1024);
  for (let i = 0; i < b.length; i++) b[i] = (i * 131 + seed * 17 + (i >> 7)) & 0xff;
  return b;
}

/** Admin creates a firmware for the product and uploads one version (multipart, as the firmware pages do). */
async function firmwareVersion(
  adminToken: string,
  productKey: string,
  version: string,
  bytes: Buffer,
): Promise<VersionRow> {
  const fw = await api<{ id: number }>(
    'POST',
    '/api/firmware',
    { name: 'DTU main', product_key: productKey, type: 1, public: false },
    adminToken,
  );
  expect(fw.status, JSON.stringify(fw.body)).toBe(200);
  const form = new FormData();
  form.append('version', version);
  form.append('latest', 'true');
  form.append('file', new Blob([new Uint8Array(bytes)]), `dtu-${version}.bin`);
  const res = await fetch(`${E2E.baseURL}/api/firmware/${fw.body.data.id}/versions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}` },
    body: form,
  });
  const body = (await res.json()) as { data: VersionRow };
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.data.size).toBe(bytes.length);
  expect(body.data.md5).toBe(createHash('md5').update(bytes).digest('hex'));
  return body.data;
}

async function devicesFor(
  token: string,
  productKey: string,
  count: number,
  tag: string,
  name?: string,
): Promise<Identity[]> {
  const sns = Array.from({ length: count }, (_, i) => `${tag}-${String(i + 1).padStart(3, '0')}`);
  const created = await api('POST', '/api/devices', { product_key: productKey, sn: sns, name }, token);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return Promise.all(
    sns.map(async (sn) => {
      const d = await api<Identity>('GET', `/api/devices/${sn}`, undefined, token);
      return { sn, product_key: productKey, secret: d.body.data.secret };
    }),
  );
}

async function newProduct(token: string, name: string): Promise<string> {
  const r = await api<{ product_key: string }>('POST', '/api/products', { name }, token);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.product_key;
}

type Behaviour = 'upgrade' | 'refuse';

/**
 * A devsim DTU that takes upgrades as PROTOCOL.md says (devsim's own OTA handler): accepts (5), downloads the
 * firmware from the task's URL reporting progress, checks size and checksum (1), installs (4) and reports the new
 * fw_version; or refuses (6).
 */
function otaDevice(id: Identity, behaviour: Behaviour, fwVersion = '2.0.3'): VirtualDevice {
  return new VirtualDevice(id, {
    url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
    keepalive: 30,
    configGet: false,
    info: { fw_version: fwVersion, hw_version: 'B1' },
    handlers: {
      ota: otaHandler({ refuse: behaviour === 'refuse' ? 1 : 0, progressStep: 25, updateMs: 300 }),
    },
  });
}

/** The Arco select inside the form item with this label. */
async function choose(page: Page, label: string, option: string | RegExp): Promise<void> {
  await page.locator('.arco-form-item').filter({ hasText: label }).locator('.arco-select').first().click();
  await page
    .locator('.arco-select-popup:visible .arco-select-option')
    .filter({ hasText: option })
    .first()
    .click();
}

function counter(page: Page, key: string) {
  return page.getByTestId(`ota.count.${key}`);
}

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  await page.mouse.move(0, 0);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

test.describe.configure({ mode: 'serial' });

test('admin uploads firmware, creates a task for devsim devices in the browser, starts it, counts reach done', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const adminToken = await tokenFor(admin.username, admin.password);
  const productName = `OTA DTU ${uniqueName('p')}`;
  const productKey = await newProduct(adminToken, productName);
  const tag = uniqueName('OTA').toUpperCase();
  const ids = await devicesFor(adminToken, productKey, 3, tag);
  const bytes = firmwareBytes(1);
  const version = await firmwareVersion(adminToken, productKey, '2.1.0', bytes);
  const devices = ids.map((id) => otaDevice(id, 'upgrade'));
  await Promise.all(devices.map((d) => d.connect()));

  try {
    await signIn(page, admin.username, admin.password);
    await page.goto('/ota/task/create');

    // Step 1: basics; the version list is the product's usable firmware.
    const taskName = `Canary ${tag}`;
    await page.getByPlaceholder('例如：DTU-4G 固件 2.1.0 灰度升级').fill(taskName);
    await choose(page, '产品型号', productName);
    await choose(page, '固件版本', '2.1.0');
    await expect(page.getByTestId('ota-version-select')).toContainText('DTU main 2.1.0');
    await page.getByRole('button', { name: '下一步' }).click();

    // Step 2: targets from an uploaded list; a bad line is left out and said so.
    await page.getByText('上传序列号列表', { exact: true }).click();
    await page.getByRole('button', { name: '下一步' }).click();
    await expect(page.getByText('请上传序列号列表')).toBeVisible();
    await page.locator('input[type=file]').setInputFiles({
      name: 'targets.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(`sn\n${ids.map((d) => d.sn).join('\n')}\nbad/sn\n`),
    });
    await expect(page.getByText(`从 targets.txt 读到 3 个序列号`)).toBeVisible();
    await expect(page.getByText('1 项不是有效的序列号，已忽略：bad/sn')).toBeVisible();
    await page.getByRole('button', { name: '下一步' }).click();

    // Step 3: two devices per wave, no failure threshold.
    await expect(page.getByText('分批方式')).toBeVisible();
    await page.getByText('按数量', { exact: true }).click();
    await page.getByRole('spinbutton', { name: '每批设备' }).fill('2');
    await page.locator('.arco-form-item').filter({ hasText: '失败暂停' }).locator('.arco-switch').click();
    await page.getByRole('button', { name: '下一步' }).click();

    // Step 4: the server's preview: 3 devices, 3 x 64 KB of cellular data.
    const summary = page.getByTestId('ota-summary');
    await expect(summary.getByTestId('ota-preview-devices')).toHaveText('3');
    await expect(summary.getByTestId('ota-volume')).toHaveText('0.19 MB');
    await expect(summary.getByText('每批 2 台')).toBeVisible();
    await expect(summary.getByText('失败不暂停任务')).toBeVisible();
    await page.getByRole('button', { name: '创建任务' }).click();

    // Detail: inactive until started; start asks first and says what it costs.
    await page.waitForURL(/\/ota\/task\/\d+$/);
    const taskId = Number(page.url().split('/').pop());
    await expect(page.getByTestId('ota-task-name')).toHaveText(taskName);
    await expect(page.getByTestId('ota-task-status')).toHaveText('未开始');
    await expect(counter(page, 'device')).toHaveText('3');
    await expect(page.getByTestId('ota-task-volume')).toHaveText('0.19 MB');
    await page.getByRole('button', { name: '启动' }).click();
    const confirm = page.locator('.arco-popconfirm');
    await expect(confirm).toContainText('将向 3 台设备分批下发固件 2.1.0，下载流量约 0.19 MB');
    await confirm.getByRole('button', { name: '确定' }).click();

    // The devices upgrade; the page follows live (no reload) until the task is done.
    await expect(page.getByTestId('ota-task-status')).toHaveText('已完成', { timeout: 45_000 });
    await expect(counter(page, 'success')).toHaveText('3');
    await expect(counter(page, 'fail')).toHaveText('0');
    await expect(page.getByTestId('ota-progress-summary')).toHaveText('已结束 3 / 3 台');
    await expect(page.getByTestId('ota-status-counts').getByRole('button', { name: /更新成功/ })).toHaveText(
      /^3\s*更新成功$/,
    );
    const log = page.locator('.arco-card').filter({ hasText: '升级记录' });
    for (const id of ids) {
      const row = log.locator('.arco-table-tr').filter({ hasText: id.sn });
      // The status tag and the result worded from its code (result_code, not the server's English text).
      await expect(row.locator('.arco-tag').getByText('更新成功')).toBeVisible();
      await expect(row.getByText('更新成功')).toHaveCount(2);
      await expect(row.getByText('update succeeded')).toHaveCount(0);
      await expect(row.getByText('成功', { exact: true })).toBeVisible();
    }
    await expect(page.getByRole('button', { name: '删除' })).toBeEnabled();
    await expect(page.getByRole('button', { name: '暂停' })).toBeDisabled();

    // The server agrees, and the devices run the new version.
    const detail = await api<{ status: string; success_count: number; fail_count: number }>(
      'GET',
      `/api/ota/tasks/${taskId}`,
      undefined,
      adminToken,
    );
    expect(detail.body.data).toMatchObject({ status: 'done', success_count: 3, fail_count: 0 });
    for (const id of ids) {
      const d = await api<{ fw_version: string }>('GET', `/api/devices/${id.sn}`, undefined, adminToken);
      expect(d.body.data.fw_version).toBe(version.version);
    }

    // The list shows it done with its counts; the product filter finds it.
    await page.goto('/ota/task');
    await choose(page, '产品', productName);
    await page.getByRole('button', { name: '查询' }).click();
    const row = page.locator('.arco-table-tr').filter({ hasText: taskName });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('ota-task-status')).toHaveText('已完成');
    await expect(row).toContainText('2.1.0DTU main');
    await expect(row.getByTestId('ota-row-counts')).toHaveText('3/3/0');
  } finally {
    await Promise.all(devices.map((d) => d.close().catch(() => undefined)));
  }
});

test('a user starts a task from the list; counts move live; a refusal counts as failed; others see nothing', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const adminToken = await tokenFor(admin.username, admin.password);
  const user = await newUser('ota');
  const token = await tokenFor(user.username, user.password);
  const productKey = await newProduct(token, `Meter ${user.username}`);
  const tag = uniqueName('M').toUpperCase();
  const ids = await devicesFor(token, productKey, 2, tag);
  const version = await firmwareVersion(adminToken, productKey, '3.0.0', firmwareBytes(2));
  const created = await api<{ id: number; status: string }>(
    'POST',
    '/api/ota/tasks',
    {
      name: `Meters ${tag}`,
      product_key: productKey,
      version_id: version.id,
      targets: { type: 'all' },
      policy: { failure_threshold: null, retries: 0 },
    },
    token,
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const taskId = created.body.data.id;
  const devices = [otaDevice(ids[0]!, 'upgrade'), otaDevice(ids[1]!, 'refuse')];
  await Promise.all(devices.map((d) => d.connect()));

  try {
    await signIn(page, user.username, user.password);
    await page.goto('/ota/task');
    const row = page.locator('.arco-table-tr').filter({ hasText: `Meters ${tag}` });
    await expect(row.getByTestId('ota-task-status')).toHaveText('未开始');
    await expect(row.getByRole('button', { name: '暂停' })).toBeDisabled();
    await expect(page.getByText('实时更新')).toBeVisible();
    await row.getByRole('button', { name: '启动' }).click();
    await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
    await expect(row.getByTestId('ota-task-status')).toHaveText('已完成', { timeout: 45_000 });
    await expect(row.getByTestId('ota-row-counts')).toHaveText('2/1/1');
    await expect(row.getByRole('button', { name: '删除' })).toBeEnabled();

    // The refusal is in the log with the seed's text and the device's reason; the status filter finds it.
    await row.getByRole('link', { name: `Meters ${tag}` }).click();
    await expect(counter(page, 'fail')).toHaveText('1');
    await page
      .getByTestId('ota-status-counts')
      .getByRole('button', { name: /设备拒绝升级/ })
      .click();
    const log = page.locator('.arco-card').filter({ hasText: '升级记录' });
    await expect(log.locator('.arco-table-tr').filter({ hasText: ids[1]!.sn })).toContainText(
      'refused by device',
    );
    await expect(log.locator('.arco-table-tr').filter({ hasText: ids[0]!.sn })).toHaveCount(0);

    // Another user neither sees the task in the console nor reaches it through the API.
    const other = await newUser('ota2');
    const otherToken = await tokenFor(other.username, other.password);
    const refused = await api('GET', `/api/ota/tasks/${taskId}`, undefined, otherToken);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe(10107);
    const ctx = await browser.newContext({ baseURL: E2E.baseURL, viewport: { width: 1280, height: 900 } });
    const otherPage = await ctx.newPage();
    await signIn(otherPage, other.username, other.password);
    await otherPage.goto(`/ota/task/${taskId}`);
    await expect(otherPage.getByText('任务不存在或无权查看')).toBeVisible();
    await otherPage.goto('/ota/task');
    await expect(otherPage.getByText('还没有升级任务')).toBeVisible();
    await ctx.close();

    // Deleting from the list asks first, then the row is gone.
    await page.goto('/ota/task');
    await row.getByRole('button', { name: '删除' }).click();
    await page.locator('.arco-popconfirm').getByRole('button', { name: '确定' }).click();
    await expect(row).toHaveCount(0);
  } finally {
    await Promise.all(devices.map((d) => d.close().catch(() => undefined)));
  }
});

// A manual run with E2E_SCREENSHOTS_DIR set writes docs/screenshots/ota-*.png in both languages (and the list and
// detail in dark); it is not a test, so it is not registered otherwise.
const screenshotRun = SHOTS ? test : undefined;
screenshotRun?.('screenshots of the OTA pages', async ({ browser }) => {
  test.setTimeout(240_000);
  const adminToken = await tokenFor(admin.username, admin.password);
  const user = await newUser('shot');
  const token = await tokenFor(user.username, user.password);
  const productKey = await newProduct(token, 'DTU-4G 温湿度');
  const ids = await devicesFor(token, productKey, 12, 'DTU-2024', '泵房 DTU');
  await firmwareVersion(adminToken, productKey, '2.0.3', firmwareBytes(3));
  const version = await firmwareVersion(adminToken, productKey, '2.1.0', firmwareBytes(4));
  // A finished task, one paused by the failure threshold, one running with devices still to come online.
  const task = async (
    name: string,
    sns: string[],
    policy: Record<string, unknown>,
    times: { plan_time?: string; window_end?: string } = {},
  ) => {
    const r = await api<{ id: number }>(
      'POST',
      '/api/ota/tasks',
      {
        name,
        product_key: productKey,
        version_id: version.id,
        targets: { type: 'pick', sns },
        policy,
        ...times,
      },
      token,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.id;
  };
  const sns = ids.map((d) => d.sn);
  const done = await task('泵房 DTU 灰度 2.1.0', sns.slice(0, 3), { retries: 0 });
  const paused = await task('东区水表 2.1.0', sns.slice(3, 6), {
    failure_threshold_type: 'count',
    failure_threshold: 1,
    retries: 0,
  });
  const running = await task('全网升级 2.1.0', sns, { wave_type: 'count', wave_size: 4, retries: 1 });
  const night = new Date();
  night.setDate(night.getDate() + 1);
  night.setHours(2, 0, 0, 0);
  await task(
    '夜间窗口升级',
    sns.slice(6),
    {},
    { plan_time: night.toISOString(), window_end: new Date(night.getTime() + 3 * 3600_000).toISOString() },
  );
  const devices = [
    ...ids.slice(0, 3).map((id) => otaDevice(id, 'upgrade')),
    ...ids.slice(3, 5).map((id) => otaDevice(id, 'refuse')),
    ...ids.slice(5, 8).map((id) => otaDevice(id, 'upgrade')),
  ];
  await Promise.all(devices.map((d) => d.connect()));
  try {
    for (const id of [done, paused]) {
      expect((await api('POST', `/api/ota/tasks/${id}/start`, undefined, token)).status).toBe(200);
    }
    await expect
      .poll(
        async () =>
          (await api<{ status: string }>('GET', `/api/ota/tasks/${done}`, undefined, token)).body.data.status,
      )
      .toBe('done');
    await expect
      .poll(
        async () =>
          (await api<{ status: string }>('GET', `/api/ota/tasks/${paused}`, undefined, token)).body.data
            .status,
      )
      .toBe('paused');
    expect((await api('POST', `/api/ota/tasks/${running}/start`, undefined, token)).status).toBe(200);

    for (const [lang, tagName, dark] of [
      ['zh-CN', 'zh', false],
      ['en-US', 'en', false],
      ['zh-CN', 'dark', true],
    ] as const) {
      const page = await pageFor(browser, lang, dark);
      await signIn(page, user.username, user.password);
      await page.goto('/ota/task');
      await expect(page.locator('.arco-table-tr').filter({ hasText: '泵房 DTU 灰度 2.1.0' })).toBeVisible();
      await shot(page, `ota-list-${tagName}`);
      await page.goto(`/ota/task/${running}`);
      await expect(counter(page, 'success')).not.toHaveText('0', { timeout: 30_000 });
      await page.waitForTimeout(1500);
      await shot(page, `ota-detail-${tagName}`);
      if (!dark) {
        await page
          .locator('.arco-card')
          .filter({ hasText: lang === 'zh-CN' ? '升级记录' : 'Upgrade log' })
          .scrollIntoViewIfNeeded();
        await shot(page, `ota-detail-log-${tagName}`);
      }
      if (dark) {
        await page.context().close();
        continue;
      }
      const zh = lang === 'zh-CN';
      await page.goto('/ota/task/create');
      await page
        .locator('.arco-form-item')
        .first()
        .locator('input')
        .fill(zh ? '泵房 DTU 2.1.0 全量' : 'Pump rooms 2.1.0');
      await choose(page, zh ? '产品型号' : 'Product', 'DTU-4G 温湿度');
      await choose(page, zh ? '固件版本' : 'Firmware version', '2.1.0');
      await page.locator('.arco-select-view').nth(1).click();
      await page.keyboard.press('Escape');
      await shot(page, `ota-create-basic-${tagName}`);
      await page.getByRole('button', { name: zh ? '下一步' : 'Next' }).click();
      await page.getByText(zh ? '上传序列号列表' : 'Upload a list', { exact: true }).click();
      await page.locator('input[type=file]').setInputFiles({
        name: 'pump-rooms.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(
          `name,sn\nPump 1,${sns[0]}\nPump 9,${sns[8]}\nPump 10,${sns[9]}\nPump 11,${sns[10]}\nbroken,n/a\n`,
        ),
      });
      await shot(page, `ota-create-targets-${tagName}`);
      await page.getByRole('button', { name: zh ? '下一步' : 'Next' }).click();
      await page.getByText(zh ? '按数量' : 'Count', { exact: true }).click();
      await page.getByRole('spinbutton', { name: zh ? '每批设备' : 'Devices per wave' }).fill('2');
      await page
        .locator('.arco-form-item')
        .filter({ hasText: zh ? '批次间隔' : 'Wave pause' })
        .getByRole('spinbutton')
        .fill('300');
      await shot(page, `ota-create-policy-${tagName}`);
      await page.getByRole('button', { name: zh ? '下一步' : 'Next' }).click();
      await expect(page.getByTestId('ota-preview-devices')).toHaveText('4');
      await shot(page, `ota-create-summary-${tagName}`);
      await page.context().close();
    }
  } finally {
    await Promise.all(devices.map((d) => d.close().catch(() => undefined)));
  }
});

async function pageFor(browser: Browser, lang: 'zh-CN' | 'en-US', dark: boolean): Promise<Page> {
  const context = await browser.newContext({ baseURL: E2E.baseURL, viewport: { width: 1280, height: 900 } });
  await context.addInitScript(
    ([l, d]) => {
      localStorage.setItem('arco-locale', l as string);
      if (d) sessionStorage.setItem('cellhub-app-settings', JSON.stringify({ theme: 'dark' }));
    },
    [lang, dark] as const,
  );
  return context.newPage();
}
