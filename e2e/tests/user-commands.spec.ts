import { expect, test, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { api, devicesFor, newUser, screenshot, signIn, tokenFor, type Identity } from '../support';

// The device answers after 1.5 s, so the page shows the command waiting first and the reply arriving after.
const simulate = (id: Identity) =>
  new VirtualDevice(id, { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30, commandDelayMs: 1500 });

/** Picks devices in the searchable multi-select by serial number. */
async function pickDevices(page: Page, sns: string[]): Promise<void> {
  const picker = page.getByTestId('device-picker');
  for (const sn of sns) {
    await picker.click();
    await picker.locator('input').fill(sn);
    await page.locator('.arco-select-option').filter({ hasText: sn }).first().click();
  }
  await page.keyboard.press('Escape');
  for (const sn of sns) await expect(picker).toContainText(sn);
}

test('a saved hex command is checked as the seed says, sent to a devsim device, and its reply shows live', async ({
  page,
}) => {
  const user = await newUser('uc');
  const token = await tokenFor(user.username, user.password);
  const [one, two] = await devicesFor(token, 2, 'UC');
  const device = simulate(one!);
  await device.connect();
  try {
    await expect
      .poll(
        async () =>
          (await api<{ online: number }>('GET', `/api/devices/${one!.sn}`, undefined, token)).body.data
            .online,
      )
      .toBe(1);

    await signIn(page, user.username, user.password);
    await page.goto('/device/user-command/create');
    await page.getByTestId('uc-name').fill('读取保持寄存器');
    await page.getByTestId('uc-data').fill('0x0103');
    await page.getByRole('button', { name: '保存' }).click();
    await expect(page.getByText('十六进制指令不要带 0x 前缀')).toBeVisible();
    await page.getByTestId('uc-data').fill('010');
    await page.getByRole('button', { name: '保存' }).click();
    await expect(page.getByText('十六进制指令长度必须为偶数')).toBeVisible();
    // Spaces between bytes are accepted and stripped.
    await page.getByTestId('uc-data').fill('01 03 00 00 00 0A C5 CD');
    await page.getByRole('button', { name: '保存' }).click();
    await page.waitForURL(/\/device\/user-command\/detail\/\d+$/);
    await expect(page.getByText('01030000000AC5CD').first()).toBeVisible();

    // One online device and one that never connected.
    await pickDevices(page, [one!.sn, two!.sn]);
    await page.getByRole('button', { name: '下发指令' }).click();
    const rows = page.locator('.arco-table-tr');
    const onlineRow = rows.filter({ hasText: one!.sn });
    await expect(onlineRow).toContainText('已发送，等待回复');
    // devsim echoes the data back as its reply; the row changes without a reload.
    await expect(onlineRow).toContainText('已回复');
    await expect(onlineRow).toContainText('01030000000AC5CD');
    await expect(rows.filter({ hasText: two!.sn })).toContainText('设备离线');
    await expect(page.getByTestId('run-summary')).toContainText('共 2 台：1 台回复成功，1 台离线未发送');
    await screenshot(page, 'user-command-detail-zh');

    // The API tells the same story, and the device really got the command.
    const id = Number(page.url().split('/').at(-1));
    const runs = await api<{ id: number }[]>('GET', `/api/user-commands/${id}/runs`, undefined, token);
    const run = await api<{ results: { sn: string; status: string; reply: string | null; code: number }[] }>(
      'GET',
      `/api/user-commands/${id}/runs/${runs.body.data[0]!.id}`,
      undefined,
      token,
    );
    expect(run.body.data.results).toMatchObject([
      { sn: one!.sn, status: 'replied', code: 0, reply: '01030000000AC5CD' },
      { sn: two!.sn, status: 'offline', code: 20401 },
    ]);
    expect(device.commands).toMatchObject([{ type: 'hex', data: '01030000000AC5CD' }]);

    await page.goto('/device/user-command/list');
    await expect(page.locator('.arco-table-tr').filter({ hasText: '读取保持寄存器' })).toBeVisible();
    await screenshot(page, 'user-command-list-zh');
    await page.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
    await page.reload();
    await expect(page.getByRole('button', { name: 'New command' })).toBeVisible();
    await screenshot(page, 'user-command-list-en');
    await page.goto(`/device/user-command/detail/${id}`);
    await expect(page.getByText('Replied', { exact: true })).toBeVisible();
    await screenshot(page, 'user-command-detail-en');
  } finally {
    await device.close();
  }
});

test("another user's saved command answers like a missing one", async () => {
  const a = await newUser('uca');
  const b = await newUser('ucb');
  const ta = await tokenFor(a.username, a.password);
  const tb = await tokenFor(b.username, b.password);
  const saved = await api<{ id: number }>(
    'POST',
    '/api/user-commands',
    { name: 'A', type: 'string', data: 'AT' },
    ta,
  );
  expect(saved.status).toBe(200);
  const peek = await api('GET', `/api/user-commands/${saved.body.data.id}`, undefined, tb);
  expect(peek.status).toBe(400);
  expect(peek.body.code).toBe(10107);
});
