import { expect, test, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { admin, api, screenshot, sideMenu, signIn, toast, tokenFor, uniqueName } from '../support';

/** Screenshots at 1280 px (review), only when asked for. */
async function shot(page: Page, name: string) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, name, {
    settle: async () => {
      await page.mouse.move(0, 0);
      await page.evaluate(() =>
        Promise.all(
          document
            .getAnimations()
            .filter((a) => a.effect?.getTiming().iterations !== Infinity)
            .map((a) => a.finished.catch(() => undefined)),
        ),
      );
    },
  });
}

interface TaskItem {
  id: number;
  state: string;
  progress: { created: number };
}

/** Picks `label` in the Arco select of the form item labelled `item` inside `scope`. */
async function choose(page: Page, scope: ReturnType<Page['locator']>, item: string, label: string) {
  await scope.locator('.arco-form-item').filter({ hasText: item }).locator('.arco-select').click();
  await page
    .locator('.arco-select-popup:visible .arco-select-option')
    .filter({ hasText: label })
    .first()
    .click();
}

test('admin builds hardware values, a group and a task of 20, starts it, prints labels, batches it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const token = await tokenFor(admin.username, admin.password);
  const productName = uniqueName('DTU产线');
  const made = await api<{ product_key: string }>('POST', '/api/products', { name: productName }, token);
  expect(made.status).toBe(200);
  const model = uniqueName('EC200U-');
  const board = uniqueName('V1.');
  const groupName = uniqueName('DTU-400 B版');
  const prefix = `E2E${Date.now().toString(36).toUpperCase()}`;

  await signIn(page, admin.username, admin.password);

  // Hardware values: two added in the dialog; the same module again (other case) is refused with 70002.
  await page.goto('/hw/value');
  const addValue = async (type: string, value: string) => {
    await page.getByRole('button', { name: '新建参数' }).click();
    const dialog = page.locator('.arco-modal').filter({ hasText: '新建参数' });
    await choose(page, dialog, '类型', type);
    await dialog.getByPlaceholder('例如 EC200U-CN').fill(value);
    await dialog.getByRole('button', { name: '保存' }).click();
  };
  await addValue('模组型号', model);
  await expect(toast(page, '已保存')).toBeVisible();
  await addValue('主板版本', board);
  await expect(page.locator('.arco-table-tr').filter({ hasText: board })).toBeVisible();
  await addValue('模组型号', model.toLowerCase());
  await expect(toast(page, '已存在相同类型的值')).toBeVisible();
  await page.locator('.arco-modal').getByRole('button', { name: '取消' }).click();
  await shot(page, 'production-hw-values');

  // A hardware group of both values.
  await page.goto('/hw/group');
  await page.getByRole('button', { name: '新建分组' }).click();
  const groupDialog = page.locator('.arco-modal').filter({ hasText: '新建分组' });
  await groupDialog.getByPlaceholder('例如 DTU-400 B 版').fill(groupName);
  await choose(page, groupDialog, '模组型号', model);
  await choose(page, groupDialog, '主板版本', board);
  await groupDialog.getByRole('button', { name: '保存' }).click();
  await page.waitForURL(/\/hw\/group\/\d+$/);
  await expect(page.locator('.arco-descriptions').getByText(model)).toBeVisible();
  await shot(page, 'production-hw-group');

  // A task of 20 devices: prefix + date + sequence.
  await page.goto('/product/productive/task');
  await page.getByRole('button', { name: '新建生产任务' }).click();
  const taskDialog = page.locator('.arco-modal').filter({ hasText: '新建生产任务' });
  await taskDialog
    .locator('.arco-form-item')
    .filter({ hasText: '任务名称' })
    .locator('input')
    .fill('E2E 批次');
  await choose(page, taskDialog, '产品', productName);
  await choose(page, taskDialog, '硬件分组', groupName);
  await taskDialog.getByRole('textbox', { name: 'SN 前缀' }).fill(prefix);
  await expect(taskDialog.getByText(/SN 预览：/)).toBeVisible();
  await taskDialog.getByRole('button', { name: '保存' }).click();
  await page.waitForURL(/\/product\/productive\/task\/\d+$/);
  const taskId = Number(page.url().split('/').pop());
  await expect(page.getByText('草稿')).toBeVisible();

  // Start it: 20 devices in stock.
  await page.getByRole('button', { name: '开始生产' }).click();
  await page
    .locator('.arco-popconfirm')
    .getByRole('button', { name: /确\s*定|OK/ })
    .click();
  await expect(toast(page, '已开始生产，20 台设备已入库')).toBeVisible();
  await expect(page.getByText('生产中')).toBeVisible();
  const task = await api<TaskItem>('GET', `/api/production/tasks/${taskId}`, undefined, token);
  expect(task.body.data).toMatchObject({ state: 'producing', progress: { created: 20 } });
  const stock = await api<{ sn: string; uid: number | null }[]>(
    'GET',
    `/api/production/tasks/${taskId}/devices?per_page=100`,
    undefined,
    token,
  );
  expect(stock.body.data).toHaveLength(20);
  expect(stock.body.data.every((d) => d.uid === null && d.sn.startsWith(prefix))).toBe(true);
  const first = stock.body.data[0]!.sn;
  const device = await api<{ uid: number | null; secret: string }>(
    'GET',
    `/api/devices/${first}`,
    undefined,
    token,
  );
  expect(device.body.data.uid).toBeNull();
  expect(device.body.data.secret).toHaveLength(32);
  await expect(page.locator('.arco-table-tr').filter({ hasText: first })).toBeVisible();

  // Factory test: two devices connect and report on up/info; the second has another module than the group.
  const report = async (sn: string, module: string, ok: boolean) => {
    const d = await api<{ secret: string; product_key: string }>(
      'GET',
      `/api/devices/${sn}`,
      undefined,
      token,
    );
    const dev = new VirtualDevice(
      { sn, product_key: d.body.data.product_key, secret: d.body.data.secret },
      {
        url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
        keepalive: 30,
        info: { imei: `86123456789${sn.slice(-4)}` },
      },
    );
    await dev.connect();
    await dev.publish('info', {
      hw: { module_model: module, module_fw: 'EC200UCNAAR03A04M08', mcu_id: '0x0414', board_revision: board },
      test: {
        ok,
        items: [
          { name: 'rs485', ok },
          { name: 'sim', ok: true, detail: 'CSQ 23' },
        ],
      },
    });
    await dev.close();
  };
  const second = stock.body.data[1]!.sn;
  await report(first, model, true);
  await report(second, 'ML307R', false);
  await page.reload();
  await expect(page.locator('[data-progress="tested_ok"]')).toContainText('1');
  await expect(page.locator('[data-progress="failed"]')).toContainText('1');
  await expect(page.locator('[data-progress="mismatch"]')).toContainText('1');
  await expect(page.locator('.arco-table-tr').filter({ hasText: second })).toContainText('与分组不符');
  await shot(page, 'production-task-detail');
  await page.goto('/hw/info');
  await expect(page.locator('.arco-table-tr').filter({ hasText: second })).toContainText('ML307R');
  await expect(page.locator('.arco-table-tr').filter({ hasText: second })).toContainText('与分组不符');
  await shot(page, 'production-hw-info');
  await page.goto(`/product/productive/task/${taskId}`);

  // The label sheet: 20 labels with the QR of the public device page.
  await page.getByRole('button', { name: '标签' }).click();
  const sheet = page.getByTestId('label-sheet');
  await expect(sheet.locator('[data-sn]')).toHaveCount(20);
  await expect(sheet.locator(`[data-sn="${first}"]`)).toContainText(productName);
  await expect(sheet.locator(`[data-sn="${first}"]`)).toContainText(model);
  await expect(sheet.locator('[data-sn] svg[aria-label="QR code"]')).toHaveCount(20);
  await shot(page, 'production-labels');
  // Printed, the sheet is alone on the page: the console around it is hidden.
  await page.emulateMedia({ media: 'print' });
  await expect(sideMenu(page)).toBeHidden();
  await expect(sheet.locator(`[data-sn="${first}"]`)).toBeVisible();
  await shot(page, 'production-labels-print');
  await page.emulateMedia({ media: 'screen' });
  await page.keyboard.press('Escape');

  // A productive group of the task's devices.
  await page.goto('/productive/group');
  await page.getByRole('button', { name: '新建分组' }).click();
  const newGroup = page.locator('.arco-modal').filter({ hasText: '新建分组' });
  await newGroup.locator('.arco-form-item').filter({ hasText: '名称' }).locator('input').fill('E2E 出库批次');
  await newGroup.getByRole('button', { name: '保存' }).click();
  await page.waitForURL(/\/productive\/group\/\d+$/);
  await page.getByRole('button', { name: '加入设备' }).click();
  const addDialog = page.locator('.arco-modal').filter({ hasText: '生产任务的设备' });
  await choose(page, addDialog, '生产任务的设备', 'E2E 批次');
  await addDialog.getByRole('button', { name: '保存' }).click();
  await expect(page.getByText('加入 20 台；已在分组 0；不存在 0；不在库存 0')).toBeVisible();
  await expect(page.getByText('共 20 条')).toBeVisible();
  await shot(page, 'production-group');

  // The same page in English and dark.
  await page.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
  await page.goto(`/product/productive/task/${taskId}`);
  await expect(page.getByText('Producing')).toBeVisible();
  await page.getByTestId('navbar-theme').getByRole('button').click();
  await expect(page.locator('body')).toHaveAttribute('arco-theme', 'dark');
  await shot(page, 'production-task-detail-en-dark');
  await page.goto('/productive/info');
  await expect(page.locator('.arco-table-tr').filter({ hasText: first })).toBeVisible();
  await shot(page, 'production-info-en-dark');
});
