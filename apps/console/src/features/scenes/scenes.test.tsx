import type { WsServerMessage } from '@cellhub/contract/realtime';
import type { SceneDetail, SceneDevice, SceneModelDetail, SceneValues } from '@cellhub/contract/scenes';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setToken } from '../../lib/auth';
import { mockApi, renderPage } from '../../lib/mock-api.test-kit';
import { RealtimeClient, type SocketLike } from '../../lib/realtime';
import { SceneLiveView } from './components/scene-live-view';
import { DRAG_TYPE } from './components/scene-canvas';
import enUS from './locale/en-US';
import ModelDetailPage from './pages/model-detail-page';
import SceneCreatePage from './pages/scene-create-page';
import SceneDetailPage from './pages/scene-detail-page';
import SceneListPage from './pages/scene-list-page';
import { emptyDoc, type SceneDoc, type Widget } from './scene-editor-model';
import { SceneLiveStore } from './scene-live-store';

const stamp = '2026-01-01T00:00:00.000Z';
const t = (k: string, vars?: Record<string, string | number>) =>
  (enUS as Record<string, string>)[k]?.replace(/\{(\w+)\}/g, (_, n: string) => String(vars?.[n] ?? '')) ?? k;

function value(id: string, sn: string, key: string, x: number): Widget {
  return {
    id,
    kind: 'value',
    x,
    y: 10,
    w: 100,
    h: 40,
    z: 0,
    style: {},
    binding: { sn, key },
    unit: '°C',
    decimals: 1,
    thresholds: [],
  } as Widget;
}
function sw(id: string, sn: string): Widget {
  return {
    id,
    kind: 'switch',
    x: 300,
    y: 10,
    w: 80,
    h: 40,
    z: 0,
    style: {},
    binding: { sn, key: 'relay' },
    write: { mode: 'property' },
    on_value: true,
    off_value: false,
    confirm: true,
  } as Widget;
}

const device = (sn: string, control: boolean): SceneDevice => ({
  sn,
  name: sn,
  product_key: 'pk1',
  online: 1,
  visible: true,
  control,
});

function sceneDetail(doc: SceneDoc, access: 'owner' | 'view' = 'owner', control = true): SceneDetail {
  return {
    id: 5,
    uid: 7,
    owner: 'alice',
    name: 'Pump room',
    remark: '',
    model_id: null,
    model_name: null,
    widget_count: doc.widgets.length,
    device_count: 1,
    access,
    createdat: stamp,
    updatedat: stamp,
    document: doc as SceneDetail['document'],
    devices: [device('SN1', control)],
  };
}

const noValues: SceneValues = { items: [], at: stamp };

beforeEach(() => {
  localStorage.setItem('arco-locale', 'en-US');
  // jsdom has no PointerEvent; a MouseEvent carries what the editor reads (coordinates, button, shift).
  if (!('PointerEvent' in window)) vi.stubGlobal('PointerEvent', class extends MouseEvent {});
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function dataTransfer(kind: string) {
  const store: Record<string, string> = { [DRAG_TYPE]: kind };
  return {
    types: [DRAG_TYPE],
    getData: (k: string) => store[k] ?? '',
    setData: vi.fn(),
    effectAllowed: 'copy',
  };
}

describe('scene editor', () => {
  it('drops a palette item onto the canvas, undoes and redoes it by keyboard, and saves the document', async () => {
    const doc = emptyDoc(800, 600);
    const calls = mockApi({
      'GET /api/scenes/5': { data: sceneDetail(doc) },
      'GET /api/scenes/5/values': { data: noValues },
      'PUT /api/scenes/5': (body) => ({ data: { ...sceneDetail(doc), ...(body as object) } }),
      'GET /api/devices': { data: [], total: 0 },
    });
    renderPage(SceneDetailPage, '/scene/detail/:id', '/scene/detail/5');
    fireEvent.click(await screen.findByText(enUS['scene.mode.edit']));
    const canvas = await screen.findByTestId('scene-canvas');
    const palette = screen.getByTestId('scene-palette');
    const item = palette.querySelector('[data-kind="gauge"]')!;
    fireEvent.dragStart(item, { dataTransfer: dataTransfer('gauge') });
    fireEvent.dragOver(canvas, { dataTransfer: dataTransfer('gauge') });
    fireEvent.drop(canvas, { dataTransfer: dataTransfer('gauge'), clientX: 300, clientY: 200 });
    const dropped = canvas.querySelector('[data-kind="gauge"]');
    expect(dropped).toBeTruthy();
    expect(screen.getByTestId('scene-dirty')).toBeTruthy();
    // Selected after the drop: the property panel shows it.
    expect(within(screen.getByTestId('scene-panel')).getByText(enUS['scene.kind.gauge'])).toBeTruthy();

    const stage = screen.getByTestId('scene-stage');
    fireEvent.keyDown(stage, { key: 'z', ctrlKey: true });
    expect(canvas.querySelector('[data-kind="gauge"]')).toBeNull();
    expect(screen.queryByTestId('scene-dirty')).toBeNull();
    fireEvent.keyDown(stage, { key: 'y', ctrlKey: true });
    expect(canvas.querySelector('[data-kind="gauge"]')).toBeTruthy();
    // Duplicate, then delete the copy.
    fireEvent.keyDown(stage, { key: 'd', ctrlKey: true });
    expect(canvas.querySelectorAll('[data-kind="gauge"]')).toHaveLength(2);
    fireEvent.keyDown(stage, { key: 'Delete' });
    expect(canvas.querySelectorAll('[data-kind="gauge"]')).toHaveLength(1);

    fireEvent.click(screen.getByTestId('scene-save'));
    await waitFor(() =>
      expect(calls.some((c) => c.method === 'PUT' && c.path === '/api/scenes/5')).toBe(true),
    );
    const put = calls.find((c) => c.method === 'PUT')!.body as { document: SceneDoc };
    expect(put.document.widgets).toHaveLength(1);
    expect(put.document.widgets[0]).toMatchObject({ kind: 'gauge', min: 0, max: 100 });
    await waitFor(() => expect(screen.queryByTestId('scene-dirty')).toBeNull());
  });

  it('moves the selection with the pointer, snapped to the grid, and nudges with arrows', async () => {
    const doc: SceneDoc = { ...emptyDoc(800, 600), widgets: [value('a', 'SN1', 't', 10)] };
    mockApi({
      'GET /api/scenes/5': { data: sceneDetail(doc) },
      'GET /api/scenes/5/values': { data: noValues },
      'GET /api/devices': { data: [], total: 0 },
      'GET /api/devices/SN1/data-template': { refuse: 10106, http: 404 },
      'GET /api/products/pk1': { data: { properties: [] } },
    });
    renderPage(SceneDetailPage, '/scene/detail/:id', '/scene/detail/5');
    fireEvent.click(await screen.findByText(enUS['scene.mode.edit']));
    const canvas = await screen.findByTestId('scene-canvas');
    const hit = canvas.querySelector('[data-widget="a"]')!.parentElement!;
    fireEvent.pointerDown(hit, { clientX: 20, clientY: 20, button: 0 });
    // jsdom gives the svg a zero box, and the editor fitted the canvas into a zero stage: read the zoom it chose.
    const zoom = Number(screen.getByTestId('scene-zoom').textContent!.replace('%', '')) / 100;
    act(() => {
      window.dispatchEvent(
        new MouseEvent('pointermove', { clientX: 20 + 27 * zoom, clientY: 20 + 14 * zoom }),
      );
      window.dispatchEvent(new MouseEvent('pointerup', { clientX: 20 + 27 * zoom, clientY: 20 + 14 * zoom }));
    });
    const rect = () => canvas.querySelector('[data-selected="a"]')!;
    // 10 + 27 = 37 -> 40 on the 10 px grid; 10 + 14 = 24 -> 20.
    expect(Number(rect().getAttribute('x'))).toBe(39);
    expect(Number(rect().getAttribute('y'))).toBe(19);
    fireEvent.keyDown(screen.getByTestId('scene-stage'), { key: 'ArrowRight' });
    expect(Number(rect().getAttribute('x'))).toBe(40);
    fireEvent.keyDown(screen.getByTestId('scene-stage'), { key: 'ArrowDown', shiftKey: true });
    expect(Number(rect().getAttribute('y'))).toBe(29);
  });
});

describe('model binding', () => {
  it('binds each slot of a model to a device in one step', async () => {
    const model: SceneModelDetail = {
      id: 3,
      uid: 7,
      owner: 'alice',
      name: 'Pump template',
      remark: '',
      slots: [
        { name: 'pump', label: 'Pump', product_key: 'pk1' },
        { name: 'tank', label: 'Tank', product_key: 'pk2' },
      ],
      widget_count: 0,
      scene_count: 0,
      createdat: stamp,
      updatedat: stamp,
      document: emptyDoc() as unknown as SceneModelDetail['document'],
    };
    const calls = mockApi({
      'GET /api/scene-models': { data: [model], total: 1 },
      'GET /api/scene-models/3': { data: model },
      'GET /api/devices': (_b, url) => ({
        data:
          url.searchParams.get('product_key') === 'pk2'
            ? [{ sn: 'TANK-1', name: 'Tank one', product_key: 'pk2' }]
            : [{ sn: 'PUMP-1', name: 'Pump one', product_key: 'pk1' }],
        total: 1,
      }),
      'POST /api/scenes/from-model': { data: { ...sceneDetail(emptyDoc()), id: 9 } },
      'GET /api/scenes/9': { data: sceneDetail(emptyDoc()) },
      'GET /api/scenes/9/values': { data: noValues },
    });
    renderPage(SceneCreatePage, '/scene/create', '/scene/create');
    fireEvent.change(await screen.findByTestId('scene-name'), { target: { value: 'Site A' } });
    fireEvent.click(screen.getByText(enUS['scene.create.model']));
    const pickModel = await screen.findByTestId('scene-model');
    fireEvent.click(pickModel);
    fireEvent.click(await screen.findByText('Pump template'));
    const bindings = await screen.findByTestId('scene-slot-bindings');
    // Submitting with a slot unbound shows the error beside it.
    fireEvent.click(screen.getByTestId('scene-create-submit'));
    expect((await screen.findAllByText(enUS['scene.create.slotRequired'])).length).toBe(2);
    for (const [slot, label] of [
      ['pump', 'Pump one (PUMP-1)'],
      ['tank', 'Tank one (TANK-1)'],
    ] as const) {
      const box = bindings.querySelector(`[data-slot="${slot}"] .arco-select`)!;
      fireEvent.click(box);
      fireEvent.click(await screen.findByText(label));
    }
    fireEvent.click(screen.getByTestId('scene-create-submit'));
    await waitFor(() => expect(calls.some((c) => c.path === '/api/scenes/from-model')).toBe(true));
    expect(calls.find((c) => c.path === '/api/scenes/from-model')!.body).toEqual({
      model_id: 3,
      name: 'Site A',
      remark: '',
      bindings: { pump: 'PUMP-1', tank: 'TANK-1' },
    });
    // Product filter: each slot's select searched its own product.
    expect(calls.some((c) => c.path === '/api/devices' && c.query.get('product_key') === 'pk2')).toBe(true);
  });

  it('edits a model with its slots panel', async () => {
    const model = {
      id: 3,
      uid: 7,
      owner: 'alice',
      name: 'M',
      remark: '',
      slots: [{ name: 'pump', label: 'Pump', product_key: 'pk1' }],
      widget_count: 0,
      scene_count: 0,
      createdat: stamp,
      updatedat: stamp,
      document: emptyDoc(),
    };
    const calls = mockApi({
      'GET /api/scene-models/3': { data: model },
      'PUT /api/scene-models/3': (body) => ({ data: { ...model, ...(body as object) } }),
    });
    renderPage(ModelDetailPage, '/scene/model/detail/:id', '/scene/model/detail/3');
    const slots = await screen.findByTestId('scene-slots');
    fireEvent.click(within(slots).getByText(enUS['scene.slot.add']));
    fireEvent.click(screen.getByTestId('scene-save'));
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    const body = calls.find((c) => c.method === 'PUT')!.body as { slots: { name: string }[] };
    expect(body.slots.map((s) => s.name)).toEqual(['pump', 'slot2']);
  });

  it('binds a model slot by data template, picked from the templates', async () => {
    const model = {
      id: 3,
      uid: 7,
      owner: 'alice',
      name: 'M',
      remark: '',
      slots: [{ name: 'pump', label: 'Pump', product_key: 'pk1' }],
      widget_count: 0,
      scene_count: 0,
      createdat: stamp,
      updatedat: stamp,
      document: emptyDoc(),
    };
    const calls = mockApi({
      'GET /api/scene-models/3': { data: model },
      'GET /api/data-templates': { data: [{ id: 9, name: 'Boiler meter' }], total: 1 },
      'PUT /api/scene-models/3': (body) => ({ data: { ...model, ...(body as object) } }),
    });
    renderPage(ModelDetailPage, '/scene/model/detail/:id', '/scene/model/detail/3');
    const slots = await screen.findByTestId('scene-slots');
    await waitFor(() => expect(calls.some((c) => c.path === '/api/data-templates')).toBe(true));
    fireEvent.click(within(slots).getByTestId('slot-by-0').querySelector('.arco-select-view')!);
    fireEvent.click(
      await screen.findByText(enUS['scene.slot.byTemplate'], {
        selector: '.arco-select-option *, .arco-select-option',
      }),
    );
    await waitFor(() =>
      expect(within(slots).getByTestId('slot-template-0').textContent).toContain('Boiler meter'),
    );
    fireEvent.click(screen.getByTestId('scene-save'));
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    const body = calls.find((c) => c.method === 'PUT')!.body as { slots: Record<string, unknown>[] };
    expect(body.slots).toEqual([{ name: 'pump', label: 'Pump', template_id: 9 }]);
  });
});

/** A WebSocket the test drives from the server's side. */
class MockSocket implements SocketLike {
  readyState = 0;
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  send() {}
  close() {
    this.readyState = 3;
  }
  accept() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
    this.receive({ type: 'ready', uid: 7 });
  }
  receive(msg: WsServerMessage) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(msg) }));
  }
}

describe('live view', () => {
  function live(doc: SceneDoc, devices: SceneDevice[], canControl: boolean, values: SceneValues = noValues) {
    const calls = mockApi({
      'GET /api/scenes/5/values': { data: values },
      'POST /api/scenes/5/widgets/s/write': { data: { mode: 'property', sn: 'SN1', reply: 'ok' } },
    });
    setToken('tok', 7);
    let socket: MockSocket | undefined;
    const realtime = new RealtimeClient({
      url: () => 'ws://test/api/ws',
      createSocket: () => (socket = new MockSocket()),
    });
    const store = new SceneLiveStore();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SceneLiveView
          sceneId={5}
          doc={doc}
          devices={devices}
          canControl={canControl}
          t={t}
          store={store}
          realtime={realtime}
          tickMs={3_600_000}
        />
      </QueryClientProvider>,
    );
    return { calls, store, socket: () => socket!, realtime };
  }

  it('updates only the widget bound to the changed variable', async () => {
    const doc: SceneDoc = {
      ...emptyDoc(800, 600),
      widgets: [value('a', 'SN1', 't', 10), value('b', 'SN1', 'h', 150)],
    };
    const { socket, realtime } = live(doc, [device('SN1', true)], true);
    const canvas = await screen.findByTestId('scene-canvas');
    await waitFor(() => expect(socket()).toBeTruthy());
    act(() => socket().accept());
    const other = canvas.querySelector('[data-widget="b"]')!;
    const mutated: Node[] = [];
    const mo = new MutationObserver((records) => mutated.push(...records.map((r) => r.target)));
    mo.observe(canvas, { subtree: true, childList: true, characterData: true, attributes: true });
    act(() =>
      socket().receive({
        type: 'event',
        event: {
          type: 'device.properties',
          sn: 'SN1',
          product_key: 'pk1',
          ts: new Date().toISOString(),
          values: { t: 21.46 },
        },
      }),
    );
    await waitFor(() =>
      expect(canvas.querySelector('[data-widget="a"] [data-role="value"]')!.textContent).toBe('21.5 °C'),
    );
    await Promise.resolve();
    mo.disconnect();
    expect(mutated.length).toBeGreaterThan(0);
    const a = canvas.querySelector('[data-widget="a"]')!;
    expect(mutated.every((n) => a.contains(n))).toBe(true);
    expect(other.querySelector('[data-role="value"]')!.textContent).toBe('-- °C');
    realtime.shutdown();
  });

  it('greys a value once its cycle has passed and marks an offline device', async () => {
    const doc: SceneDoc = { ...emptyDoc(800, 600), widgets: [value('a', 'SN1', 't', 10)] };
    const now = Date.now();
    const values: SceneValues = {
      items: [{ sn: 'SN1', key: 't', value: 20, ts: new Date(now).toISOString(), cycle_s: 5, online: 1 }],
      at: stamp,
    };
    const { store, realtime } = live(doc, [device('SN1', true)], true, values);
    const canvas = await screen.findByTestId('scene-canvas');
    const g = () => canvas.querySelector('[data-widget="a"]')!;
    await waitFor(() => expect(g().querySelector('[data-role="value"]')!.textContent).toBe('20.0 °C'));
    act(() => store.tick(now + 9_000));
    expect(g().getAttribute('data-stale')).toBeNull();
    act(() => store.tick(now + 11_000));
    expect(g().getAttribute('data-stale')).toBe('true');
    expect(g().querySelector('[data-role="value"]')!.getAttribute('fill')).toBe('#a9aeb8');
    act(() => store.setOnline('SN1', false));
    expect(g().getAttribute('data-offline')).toBe('true');
    expect(within(g() as unknown as HTMLElement).getByText(enUS['scene.offline'])).toBeTruthy();
    realtime.shutdown();
  });

  it('writes a switch after confirmation and shows the answer; a view share sees it disabled', async () => {
    const doc: SceneDoc = { ...emptyDoc(800, 600), widgets: [sw('s', 'SN1')] };
    const { calls, realtime } = live(doc, [device('SN1', true)], true);
    const canvas = await screen.findByTestId('scene-canvas');
    const control = () => canvas.querySelector('[data-role="switch"]')!;
    expect(control().getAttribute('aria-disabled')).toBe('false');
    fireEvent.click(control());
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/Switch "Switch" to true\?/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: /ok|确定/i }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ value: true }));
    expect(await screen.findByText('Device answered: ok')).toBeTruthy();
    realtime.shutdown();
    cleanup();

    const viewer = live(doc, [device('SN1', false)], false);
    const c2 = await screen.findByTestId('scene-canvas');
    const s2 = c2.querySelector('[data-role="switch"]')!;
    expect(s2.getAttribute('aria-disabled')).toBe('true');
    const dialogs = document.querySelectorAll('[role="dialog"]').length;
    fireEvent.click(s2);
    expect(document.querySelectorAll('[role="dialog"]').length).toBe(dialogs);
    expect(viewer.calls.some((c) => c.method === 'POST')).toBe(false);
    viewer.realtime.shutdown();
  });
});

describe('scene images', () => {
  it('fetches each image with the token as a blob, shows it, and revokes its URL on unmount', async () => {
    const fetched: { url: string; auth: string | null }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
        fetched.push({
          url: String(input),
          auth: new Headers(init?.headers).get('Authorization'),
        });
        return Promise.resolve(new Response(new Blob([new Uint8Array([137, 80, 78, 71])]), { status: 200 }));
      }),
    );
    const created: string[] = [];
    const revoked: string[] = [];
    vi.stubGlobal('URL', {
      ...URL,
      createObjectURL: () => {
        created.push(`blob:img${created.length}`);
        return created.at(-1)!;
      },
      revokeObjectURL: (u: string) => revoked.push(u),
    });
    setToken('tok', 7);
    const doc: SceneDoc = {
      ...emptyDoc(800, 600),
      canvas: { ...emptyDoc(800, 600).canvas, background: 'bg1' },
      widgets: [value('a', 'SN1', 't', 10)],
    };
    const view = render(
      <QueryClientProvider client={new QueryClient()}>
        <SceneLiveView
          sceneId={5}
          doc={doc}
          devices={[]}
          canControl={false}
          t={t}
          store={new SceneLiveStore()}
          realtime={
            new RealtimeClient({ url: () => 'ws://test/api/ws', createSocket: () => new MockSocket() })
          }
        />
      </QueryClientProvider>,
    );
    const canvas = await screen.findByTestId('scene-canvas');
    await waitFor(() => expect(canvas.querySelector('image')?.getAttribute('href')).toBe('blob:img0'));
    const image = fetched.find((f) => f.url.includes('/images/'));
    expect(image).toMatchObject({ auth: 'Bearer tok' });
    expect(image!.url).toContain('/api/scenes/5/images/bg1');
    expect(revoked).toEqual([]);
    view.unmount();
    expect(revoked).toEqual(['blob:img0']);
  });
});

describe('scene list', () => {
  it('copies a scene under the name typed in the dialog', async () => {
    const row = {
      id: 1,
      uid: 7,
      owner: 'alice',
      name: 'Plant',
      remark: '',
      model_id: null,
      model_name: null,
      widget_count: 3,
      device_count: 2,
      access: 'owner',
      createdat: stamp,
      updatedat: stamp,
    };
    const calls = mockApi({
      'GET /api/scenes': { data: [row], total: 1 },
      'GET /api/scene-models': { data: [], total: 0 },
      'POST /api/scenes/1/copy': (body) => ({
        data: { ...row, id: 2, name: (body as { name: string }).name },
      }),
    });
    renderPage(SceneListPage, '/scene/list', '/scene/list');
    fireEvent.click(await screen.findByRole('button', { name: enUS['scene.copy'] }));
    const input = await screen.findByTestId('scene-copy-name');
    expect((input as HTMLInputElement).value).toBe('Plant copy');
    fireEvent.change(input, { target: { value: 'Plant B' } });
    // Another test's confirmation may linger in the body: the copy dialog is the one holding the input.
    const dialog = input.closest<HTMLElement>('[role="dialog"]')!;
    fireEvent.click(within(dialog).getByRole('button', { name: /ok|确 ?定|confirm/i }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Plant B' }));
    expect(await screen.findByText('Copied as "Plant B"')).toBeTruthy();
  });
});
