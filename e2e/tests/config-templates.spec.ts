import { expect, test, type Page } from '@playwright/test';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { api, devicesFor, newUser, screenshot, signIn, tokenFor } from '../support';

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

interface ConfigState {
  config: Record<string, unknown>;
  config_version: number;
  expect_config_version: number;
}

test('a template setting the APN and socket 2 is applied to two devsim devices and both sync', async ({
  page,
}) => {
  const user = await newUser('ct');
  const token = await tokenFor(user.username, user.password);
  const ids = await devicesFor(token, 2, 'CT');
  const devices = ids.map(
    (id) => new VirtualDevice(id, { url: `mqtt://127.0.0.1:${E2E.mqttPort}`, keepalive: 30 }),
  );
  await Promise.all(devices.map((d) => d.connect()));
  try {
    for (const id of ids)
      await expect
        .poll(
          async () =>
            (await api<{ online: number }>('GET', `/api/devices/${id.sn}`, undefined, token)).body.data
              .online,
        )
        .toBe(1);

    await signIn(page, user.username, user.password);
    await page.goto('/device/config-template');
    await page.getByRole('button', { name: '新建模板' }).click();
    await page.waitForURL(/\/device\/config-template\/new$/);
    await page.getByTestId('ct-name').fill('移动物联网 APN');
    await page.getByTestId('pick-global.apn.name').click();
    await page.getByTestId('field-global.apn.name').fill('cmiot');
    await page.getByRole('button', { name: /Socket 1-4/ }).click();
    await page.getByTestId('pick-socket.1.server').click();
    await page.getByTestId('field-socket.1.server').fill('tcp.example.com');
    await expect(page.getByText('已选 2 项')).toBeVisible();
    await page.getByRole('button', { name: '保存' }).click();
    await page.waitForURL(/\/device\/config-template\/\d+$/);

    await pickDevices(
      page,
      ids.map((d) => d.sn),
    );
    await page.getByRole('button', { name: '应用模板' }).click();
    await expect(page.getByTestId('apply-summary')).toHaveText('已同步 2 / 2');
    for (const id of ids)
      await expect(page.locator('.arco-table-tr').filter({ hasText: id.sn })).toContainText('已同步');
    await screenshot(page, 'config-template-detail-zh');

    // Each device runs the merged configuration: the template's fields, a {} slot left for socket 1.
    for (const id of ids) {
      const state = (await api<ConfigState>('GET', `/api/devices/${id.sn}/config`, undefined, token)).body
        .data;
      expect(state.config_version).toBe(state.expect_config_version);
      expect(state.config).toEqual({
        global: { apn: { name: 'cmiot' } },
        socket: [{}, { server: 'tcp.example.com' }],
      });
    }
    expect(devices.map((d) => d.config.version)).toEqual([1, 1]);

    await page.goto('/device/config-template');
    await expect(page.locator('.arco-table-tr').filter({ hasText: '移动物联网 APN' })).toBeVisible();
    await screenshot(page, 'config-template-list-zh');
    await page.evaluate(() => localStorage.setItem('arco-locale', 'en-US'));
    await page.reload();
    await expect(page.getByRole('button', { name: 'New template' })).toBeVisible();
    await screenshot(page, 'config-template-list-en');
    await page
      .locator('.arco-table-tr')
      .filter({ hasText: '移动物联网 APN' })
      .getByRole('button')
      .first()
      .click();
    await expect(page.getByTestId('apply-summary')).toHaveText('2 / 2 in sync');
    await screenshot(page, 'config-template-detail-en');
  } finally {
    await Promise.all(devices.map((d) => d.close()));
  }
});
