import { expect, test, type Page } from '@playwright/test';
import type { ModelDocumentInput, SceneDetail } from '@cellhub/contract/scenes';
import { VirtualDevice } from '../../apps/devsim/src/device';
import { E2E } from '../env';
import { api, devicesFor, newUser, screenshot, signIn, tokenFor, type Identity } from '../support';

/**
 * A pump station DTU: reports a rising temperature every second, and applies a `{"pump": <bool>}` string command
 * (a scene switch's property write) by answering it and reporting the new state, as a real DTU's script would.
 */
function pumpStation(id: Identity) {
  let temperature = 20;
  const state = { pump: false };
  const device = new VirtualDevice(id, {
    url: `mqtt://127.0.0.1:${E2E.mqttPort}`,
    keepalive: 30,
    handlers: {
      cmd: async (d, body) => {
        const data = String(body.data ?? '');
        await d.answerCommand(String(body.id ?? ''), String(body.type ?? ''), data);
        const parsed = JSON.parse(data) as { pump?: unknown };
        if (typeof parsed.pump === 'boolean') {
          state.pump = parsed.pump;
          await d.report({ pump: state.pump });
        }
      },
    },
  });
  const timer = setInterval(() => {
    temperature = Math.round((temperature + 0.7) * 10) / 10;
    void device.report({ temperature, pump: state.pump }).catch(() => undefined);
  }, 1000);
  return {
    device,
    async close() {
      clearInterval(timer);
      await device.close();
    },
  };
}

const box = { w: 180, h: 60 };
/** Two pump stations of one product: a temperature each, and the first one's pump switch. */
const modelDoc: ModelDocumentInput = {
  format: 'cellhub.scene',
  version: 1,
  canvas: { width: 800, height: 450, grid: 10, background_color: '#0b1a2e' },
  widgets: [
    {
      id: 'title',
      kind: 'text',
      x: 40,
      y: 20,
      w: 400,
      h: 40,
      text: 'Pump stations',
      style: { color: '#ffffff' },
    },
    {
      id: 't1',
      kind: 'value',
      x: 40,
      y: 100,
      ...box,
      name: 'Station 1',
      binding: { slot: 'p1', key: 'temperature' },
      unit: '°C',
      style: { color: '#ffffff' },
    },
    {
      id: 't2',
      kind: 'value',
      x: 300,
      y: 100,
      ...box,
      name: 'Station 2',
      binding: { slot: 'p2', key: 'temperature' },
      unit: '°C',
      style: { color: '#ffffff' },
    },
    {
      id: 'pump',
      kind: 'switch',
      x: 40,
      y: 220,
      w: 80,
      h: 36,
      name: 'Pump 1',
      binding: { slot: 'p1', key: 'pump' },
      write: { mode: 'property' },
      confirm: true,
    },
  ],
};

async function pickDevice(page: Page, slot: string, sn: string): Promise<void> {
  const select = page.locator(`[data-slot="${slot}"] .arco-select`);
  await select.click();
  await select.locator('input').fill(sn);
  await page.locator('.arco-select-option').filter({ hasText: sn }).first().click();
  await expect(select).toContainText(sn);
}

const valueOf = (page: Page, id: string) =>
  page.locator(`[data-testid="scene-view"] [data-widget="${id}"] [data-role="value"]`);

test('a scene made from a model for two devsim devices: live values, a switch write, the layout kept', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const user = await newUser('scn');
  const token = await tokenFor(user.username, user.password);
  const [one, two] = await devicesFor(token, 2, 'SCN');
  const stations = [pumpStation(one!), pumpStation(two!)];
  try {
    for (const s of stations) await s.device.connect();
    const model = await api<{ id: number }>(
      'POST',
      '/api/scene-models',
      {
        name: 'Pump stations',
        slots: [
          { name: 'p1', label: 'Station 1', product_key: one!.product_key },
          { name: 'p2', label: 'Station 2', product_key: two!.product_key },
        ],
        document: modelDoc,
      },
      token,
    );
    expect(model.status, JSON.stringify(model.body)).toBe(200);

    // The scene from the model, each slot bound to a device in the create form.
    await signIn(page, user.username, user.password);
    await page.goto('/scene/create');
    await page.getByTestId('scene-name').fill('泵站一期');
    await page.getByTestId('scene-source-model').click();
    await page.getByTestId('scene-model').click();
    await page.locator('.arco-select-option').filter({ hasText: 'Pump stations' }).click();
    await expect(page.getByTestId('scene-slot-bindings')).toBeVisible();
    await pickDevice(page, 'p1', one!.sn);
    await pickDevice(page, 'p2', two!.sn);
    await page.getByTestId('scene-create-submit').click();
    await page.waitForURL(/\/scene\/detail\/\d+$/);
    const sceneId = Number(new URL(page.url()).pathname.split('/').pop());
    const detail = await api<SceneDetail>('GET', `/api/scenes/${sceneId}`, undefined, token);
    expect(detail.body.data.document.widgets.map((w) => ('binding' in w ? w.binding : null))).toEqual([
      null,
      { sn: one!.sn, key: 'temperature' },
      { sn: two!.sn, key: 'temperature' },
      { sn: one!.sn, key: 'pump' },
    ]);

    // Values move on both stations.
    for (const id of ['t1', 't2']) {
      await expect(valueOf(page, id)).toHaveText(/^\d+\.\d °C$/);
      const first = await valueOf(page, id).textContent();
      await expect.poll(() => valueOf(page, id).textContent(), { timeout: 15_000 }).not.toBe(first);
    }
    await screenshot(page, 'scenes-live');

    // The pump switch: confirmed, written to the device as a property command, and the device's new state shown.
    const pump = page.locator('[data-testid="scene-view"] [data-widget="pump"] [data-role="switch"]');
    await expect(pump).toHaveAttribute('aria-checked', 'false');
    await expect(pump).toHaveAttribute('aria-disabled', 'false');
    await pump.click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('Pump 1');
    await dialog
      .getByRole('button', { name: '确 定' })
      .or(dialog.getByRole('button', { name: '确定' }))
      .click();
    await expect.poll(() => stations[0]!.device.commands.map((c) => c.data)).toEqual(['{"pump":true}']);
    expect(stations[1]!.device.commands).toEqual([]);
    await expect(page.getByText(/设备应答/)).toBeVisible();
    await expect(pump).toHaveAttribute('aria-checked', 'true');

    // The editor: move the second station's value 20 px right with the keyboard and save.
    await page.getByTestId('scene-mode').getByText('编辑').click();
    const stage = page.getByTestId('scene-stage');
    // The widget's transparent hit area lies over it (thin widgets are easy to grab): click through to it.
    await stage.locator('[data-widget="t2"]').click({ force: true });
    await expect(stage.locator('[data-selected="t2"]')).toBeVisible();
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await expect(page.getByTestId('scene-dirty')).toBeVisible();
    await page.getByTestId('scene-save').click();
    await expect(page.getByTestId('scene-dirty')).toBeHidden();

    // Reload: the layout is kept, in the page and in the API, and values keep coming.
    await page.reload();
    const frame = page.locator('[data-testid="scene-view"] [data-widget="t2"] rect').first();
    await expect(frame).toHaveAttribute('x', '320');
    await expect(valueOf(page, 't2')).toHaveText(/^\d+\.\d °C$/);
    await expect(pump).toHaveAttribute('aria-checked', 'true');
    const after = await api<SceneDetail>('GET', `/api/scenes/${sceneId}`, undefined, token);
    expect(after.body.data.document.widgets.find((w) => w.id === 't2')).toMatchObject({ x: 320, y: 100 });
    expect(after.body.data.document.widgets.find((w) => w.id === 't1')).toMatchObject({ x: 40, y: 100 });
  } finally {
    for (const s of stations) await s.close();
  }
});
