import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ThingModel, ThingModelBody, ThingModelDiff } from '@cellhub/contract/thing-model';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';

let t: TestApp;
let admin: string;
let user: { uid: number; token: string };
let productKey: string;

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  user = await t.createUser();
  const p = await t.inject({
    method: 'POST',
    url: '/api/products',
    token: user.token,
    payload: { name: 'Model DTU', properties: [{ key: 'temp', name: '温度', unit: '°C' }] },
  });
  productKey = data<{ product_key: string }>(p).product_key;
});
afterAll(() => t.close());

const MODEL: ThingModelBody = {
  product_key: 'ignored-here',
  properties: [
    { key: 'temp', name: '温度', unit: '°C', datatype: 'number', cycles: 60 },
    { key: 'rssi', name: '信号', datatype: 'number' },
  ],
  events: [
    {
      key: 'overheat',
      name: '过热',
      level: 'warn',
      output: [{ key: 'temp', name: '温度', datatype: 'float', unit: '°C' }],
    },
  ],
  services: [
    {
      key: 'reboot',
      name: '重启',
      input: [{ key: 'delay', name: '延时', datatype: 'int', unit: 's' }],
      output: [{ key: 'ok', name: '成功', datatype: 'bool' }],
    },
  ],
};

describe('thing model', () => {
  it("exports the product's properties with no events or services yet", async () => {
    const res = await t.inject({ method: 'GET', url: `/api/thing-models/${productKey}`, token: admin });
    expect(res.statusCode, res.body).toBe(200);
    expect(data<ThingModel>(res)).toMatchObject({
      product_key: productKey,
      product_name: 'Model DTU',
      properties: [{ key: 'temp', name: '温度', unit: '°C' }],
      events: [],
      services: [],
    });
  });

  it('previews an import as a diff by key, then replaces the model; exporting gives it back', async () => {
    const preview = await t.inject({
      method: 'POST',
      url: `/api/thing-models/${productKey}/preview`,
      token: admin,
      payload: MODEL,
    });
    expect(data<ThingModelDiff>(preview)).toEqual({
      properties: { added: ['rssi'], removed: [], changed: ['temp'] },
      events: { added: ['overheat'], removed: [], changed: [] },
      services: { added: ['reboot'], removed: [], changed: [] },
    });
    // Nothing written by the preview.
    const before = await t.inject({ method: 'GET', url: `/api/thing-models/${productKey}`, token: admin });
    expect(data<ThingModel>(before).events).toEqual([]);

    const put = await t.inject({
      method: 'PUT',
      url: `/api/thing-models/${productKey}`,
      token: admin,
      payload: MODEL,
    });
    expect(put.statusCode, put.body).toBe(200);
    const model = data<ThingModel>(put);
    expect(model.properties.map((p) => p.key)).toEqual(['temp', 'rssi']);
    expect(model.events[0]).toEqual({
      key: 'overheat',
      name: '过热',
      name_us: '',
      level: 'warn',
      output: [{ key: 'temp', name: '温度', datatype: 'float', unit: '°C' }],
    });
    // The exported model imports back with no change.
    const again = await t.inject({
      method: 'POST',
      url: `/api/thing-models/${productKey}/preview`,
      token: admin,
      payload: model,
    });
    expect(data<ThingModelDiff>(again)).toEqual({
      properties: { added: [], removed: [], changed: [] },
      events: { added: [], removed: [], changed: [] },
      services: { added: [], removed: [], changed: [] },
    });
    // The product's own page sees the imported properties.
    const product = await t.inject({ method: 'GET', url: `/api/products/${productKey}`, token: user.token });
    expect(data<{ properties: { key: string }[] }>(product).properties.map((p) => p.key)).toEqual([
      'temp',
      'rssi',
    ]);
    // An empty import removes everything.
    const cleared = await t.inject({
      method: 'POST',
      url: `/api/thing-models/${productKey}/preview`,
      token: admin,
      payload: {},
    });
    expect(data<ThingModelDiff>(cleared).services.removed).toEqual(['reboot']);
  });

  it("refuses a property key that is an event's or a service's key of the model (70002)", async () => {
    const put = await t.inject({
      method: 'PUT',
      url: `/api/thing-models/${productKey}`,
      token: admin,
      payload: MODEL,
    });
    expect(put.statusCode, put.body).toBe(200);
    const url = `/api/products/${productKey}/properties`;
    for (const [key, message] of [
      ['overheat', 'event_key'],
      ['reboot', 'service_key'],
    ] as const) {
      const res = await t.inject({ method: 'POST', url, token: user.token, payload: { key, name: 'x' } });
      const err = errorOf(res);
      expect(err.code, key).toBe(70002);
      expect(err.details).toEqual([{ field: 'key', message }]);
      // Renaming a property to it is refused the same way.
      const rename = await t.inject({
        method: 'PUT',
        url: `${url}/rssi`,
        token: user.token,
        payload: { key, name: '信号' },
      });
      expect(errorOf(rename).details).toEqual([{ field: 'key', message }]);
    }
    // A parameter's key is not an identifier of the model: it can become a property.
    const param = await t.inject({
      method: 'POST',
      url,
      token: user.token,
      payload: { key: 'delay', name: '延时' },
    });
    expect(param.statusCode, param.body).toBe(200);
  });

  it('refuses invalid models (10113), unknown products (10107) and users (10108)', async () => {
    const bad: Record<string, unknown>[] = [
      { events: [{ key: '1bad', name: 'x' }] },
      { events: [{ key: 'a', name: 'x', level: 'fatal' }] },
      {
        events: [
          { key: 'a', name: 'x' },
          { key: 'a', name: 'y' },
        ],
      },
      { services: [{ key: 's', name: 's', input: [{ key: 'p', name: 'p', datatype: 'blob' }] }] },
      {
        services: [
          {
            key: 's',
            name: 's',
            input: [
              { key: 'p', name: 'p' },
              { key: 'p', name: 'q' },
            ],
          },
        ],
      },
      { properties: [{ key: 'temp', name: '' }] },
      { events: [{ key: 'a', name: 'x\u0000' }] },
      { events: Array.from({ length: 101 }, (_, i) => ({ key: `e${i}`, name: 'e' })) },
    ];
    for (const payload of bad) {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/thing-models/${productKey}`,
        token: admin,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(errorOf(res).code).toBe(10113);
    }
    const missing = await t.inject({ method: 'GET', url: '/api/thing-models/nope-product', token: admin });
    expect(errorOf(missing).code).toBe(10107);
    const asUser = await t.inject({
      method: 'GET',
      url: `/api/thing-models/${productKey}`,
      token: user.token,
    });
    expect(errorOf(asUser).code).toBe(10108);
  });
});
