import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboxItem } from '@cellhub/contract/inbox';
import { downTopic } from '@cellhub/contract/protocol';
import type {
  ScriptDetail,
  ScriptItem,
  ScriptTestResult,
  ScriptVersionItem,
} from '@cellhub/contract/scripts';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import {
  connectDevice,
  createDevices,
  eventually,
  nextMessage,
  type TestDevice,
  up,
} from '../../test/gateway-test-kit';
import { scripts } from './scripts.table';

const FAILURES = 4;
let t: TestApp;
let admin: string;
let owner: { uid: number; token: string; username: string };
let stranger: { uid: number; token: string; username: string };
let dev: TestDevice;
let bad: TestDevice;
let url: string;
const clients: MqttClient[] = [];

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

// 01 <int16 temp*10> <uint8 humidity>
const DECODER = `function decode(bytes, ctx) {
  log('frame', ctx.hex);
  if (bytes[0] !== 1) throw new Error('unknown frame ' + bytes[0]);
  var t = (bytes[1] << 8) | bytes[2];
  if (t & 0x8000) t -= 0x10000;
  return { properties: { temp: t / 10, hum: bytes[3] } };
}
function encode(command, ctx) {
  return [0xA5, command.data.length].concat(command.data.split('').map(function (c) { return c.charCodeAt(0); }));
}`;

beforeAll(async () => {
  t = await buildTestApp({
    config: { scripts: { failuresToDisable: FAILURES, timeLimitMs: 50, cacheMs: 0 } },
  });
  url = `mqtt://127.0.0.1:${t.app.broker.port}`;
  admin = await t.adminToken();
  owner = await t.createUser();
  stranger = await t.createUser();
  dev = (
    await createDevices(t, owner.token, ['SCR-1'], {
      name: 'Raw sensor',
      properties: [
        { key: 'temp', name: 'Temperature', datatype: 'number' },
        { key: 'hum', name: 'Humidity', datatype: 'number' },
      ],
    })
  )[0]!;
  bad = (await createDevices(t, owner.token, ['SCR-BAD'], { name: 'Failing sensor' }))[0]!;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
  await t.close();
});

async function online(d: TestDevice): Promise<MqttClient> {
  const c = await connectDevice(url, d);
  clients.push(c);
  await c.subscribeAsync(`dev/${d.productKey}/${d.sn}/down/#`, { qos: 1 });
  await c.publishAsync(up(d, 'status'), '{"online":1}', { qos: 1 });
  await eventually(async () => {
    const r = await t.inject({ method: 'GET', url: `/api/devices/${d.sn}`, token: owner.token });
    return data<{ online: number }>(r).online === 1 ? true : undefined;
  });
  return c;
}

async function create(token: string, payload: Record<string, unknown>) {
  return t.inject({ method: 'POST', url: '/api/scripts', token, payload });
}

const script = async (id: number, token = owner.token) =>
  data<ScriptDetail>(await t.inject({ method: 'GET', url: `/api/scripts/${id}`, token }));

const raws = async (sn: string) =>
  data<{ direction: string; data: string }[]>(
    await t.inject({ method: 'GET', url: `/api/devices/${sn}/raw`, token: owner.token }),
  );

describe('scripts: definitions, versions and rights', () => {
  it('creates a product script (bound to the product), saves versions and rolls back with one call', async () => {
    const res = await create(owner.token, {
      name: 'Sensor decoder',
      product_key: dev.productKey,
      source: DECODER,
    });
    expect(res.statusCode, res.body).toBe(200);
    const s = data<ScriptDetail>(res);
    expect(s).toMatchObject({
      product_key: dev.productKey,
      shared: false,
      enabled: true,
      version: 1,
      has_decode: true,
      has_encode: true,
      bound_products: [dev.productKey],
      owner: owner.username,
      calls: 0,
    });
    const v2 = await t.inject({
      method: 'PUT',
      url: `/api/scripts/${s.id}`,
      token: owner.token,
      payload: { source: DECODER.replace('t / 10', 't / 100'), note: 'scale' },
    });
    expect(data<ScriptDetail>(v2).version).toBe(2);
    // Renaming alone is no new version.
    const renamed = await t.inject({
      method: 'PUT',
      url: `/api/scripts/${s.id}`,
      token: owner.token,
      payload: { name: 'Decoder' },
    });
    expect(data<ScriptDetail>(renamed)).toMatchObject({ name: 'Decoder', version: 2 });
    const back = await t.inject({
      method: 'POST',
      url: `/api/scripts/${s.id}/versions/1/restore`,
      token: owner.token,
    });
    expect(back.statusCode, back.body).toBe(200);
    expect(data<ScriptDetail>(back)).toMatchObject({ version: 3, source: DECODER });
    const versions = data<ScriptVersionItem[]>(
      await t.inject({ method: 'GET', url: `/api/scripts/${s.id}/versions`, token: owner.token }),
    );
    expect(versions.map((v) => [v.version, v.note])).toEqual([
      [3, 'rollback to v1'],
      [2, 'scale'],
      [1, ''],
    ]);
    expect(versions[0]!.source).toBe(versions[2]!.source);
    const missing = await t.inject({
      method: 'POST',
      url: `/api/scripts/${s.id}/versions/99/restore`,
      token: owner.token,
    });
    expect(errorOf(missing).code).toBe(10107);
  });

  it('refuses a source that does not compile with 82005 and the line', async () => {
    const res = await create(owner.token, {
      name: 'Broken',
      product_key: dev.productKey,
      source: 'function decode(b) {\n  return {;\n}',
    });
    expect(res.statusCode).toBe(400);
    const err = errorOf(res) as { code: number; details?: { field: string; message: string }[] };
    expect(err.code).toBe(82005);
    expect(err.details?.[0]).toMatchObject({ field: 'source' });
    expect(err.details?.[0]?.message).toMatch(/^line 2:/);
  });

  it("keeps a product's script from other users; shared scripts are read by all and changed by admins", async () => {
    const [mine] = data<ScriptItem[]>(
      await t.inject({ method: 'GET', url: '/api/scripts', token: owner.token }),
    );
    expect(mine).toBeDefined();
    for (const [method, path, payload] of [
      ['GET', `/api/scripts/${mine!.id}`, undefined],
      ['PUT', `/api/scripts/${mine!.id}`, { name: 'mine now' }],
      ['GET', `/api/scripts/${mine!.id}/versions`, undefined],
      ['POST', `/api/scripts/${mine!.id}/versions/1/restore`, undefined],
      ['PUT', `/api/scripts/${mine!.id}/state`, { enabled: false }],
      ['DELETE', `/api/scripts/${mine!.id}`, undefined],
    ] as const) {
      const res = await t.inject({ method, url: path, token: stranger.token, payload });
      expect(errorOf(res).code, `${method} ${path}`).toBe(10107);
    }
    // Their list does not show it; a script for someone else's product is refused like a missing product.
    const theirs = await t.inject({ method: 'GET', url: '/api/scripts', token: stranger.token });
    expect(data<ScriptItem[]>(theirs).map((s) => s.id)).not.toContain(mine!.id);
    expect(
      errorOf(await create(stranger.token, { name: 'x', product_key: dev.productKey, source: DECODER })).code,
    ).toBe(10107);
    // Only admins create shared scripts.
    expect(errorOf(await create(owner.token, { name: 'shared', source: DECODER })).code).toBe(10108);
    const shared = data<ScriptDetail>(await create(admin, { name: 'Common decoder', source: DECODER }));
    expect(shared).toMatchObject({ shared: true, product_key: null, bound_products: [] });
    expect((await script(shared.id, stranger.token)).source).toBe(DECODER);
    const edit = await t.inject({
      method: 'PUT',
      url: `/api/scripts/${shared.id}`,
      token: stranger.token,
      payload: { name: 'taken' },
    });
    expect(errorOf(edit).code).toBe(10108);
    // Anyone may bind a shared script to a product of their own, not to someone else's.
    const other = (await createDevices(t, stranger.token, ['SCR-STR'], { name: 'Stranger product' }))[0]!;
    const bind = await t.inject({
      method: 'PUT',
      url: `/api/scripts/${shared.id}/binding`,
      token: stranger.token,
      payload: { product_key: other.productKey },
    });
    expect(bind.statusCode, bind.body).toBe(200);
    expect(data<ScriptDetail>(bind).bound_products).toEqual([other.productKey]);
    const foreign = await t.inject({
      method: 'PUT',
      url: `/api/scripts/${shared.id}/binding`,
      token: stranger.token,
      payload: { product_key: dev.productKey },
    });
    expect(errorOf(foreign).code).toBe(10107);
    // Admins see every script.
    const all = data<ScriptItem[]>(
      await t.inject({ method: 'GET', url: '/api/scripts?per_page=100', token: admin }),
    );
    expect(all.map((s) => s.id)).toEqual(expect.arrayContaining([mine!.id, shared.id]));
    const sharedOnly = data<ScriptItem[]>(
      await t.inject({ method: 'GET', url: '/api/scripts?scope=shared', token: owner.token }),
    );
    expect(sharedOnly.map((s) => s.id)).toEqual([shared.id]);
  });
});

describe('scripts: test run', () => {
  it('shows output, log lines and errors with line numbers, and stores nothing', async () => {
    const before = await t.app.deps.db.$count(scripts);
    const run = async (payload: Record<string, unknown>) =>
      t.inject({ method: 'POST', url: '/api/scripts/test-run', token: stranger.token, payload });
    const okRes = await run({ source: DECODER, input: '01 00 FA 37' });
    expect(okRes.statusCode, okRes.body).toBe(200);
    expect(data<ScriptTestResult>(okRes)).toMatchObject({
      ok: true,
      output: { properties: { temp: 25, hum: 55 }, events: [] },
      logs: ['frame 0100fa37'],
      error: null,
    });
    const failed = data<ScriptTestResult>(await run({ source: DECODER, input: '09' }));
    expect(failed).toMatchObject({ ok: false, logs: ['frame 09'], error: { code: 82001, line: 3 } });
    expect(failed.error?.message).toContain('unknown frame 9');
    const text = data<ScriptTestResult>(
      await run({
        source: 'function decode(b, ctx) { return { properties: { s: ctx.text } }; }',
        input_type: 'text',
        input: 'héllo',
      }),
    );
    expect(text.output).toEqual({ properties: { s: 'héllo' }, events: [] });
    const encoded = data<ScriptTestResult>(
      await run({ source: DECODER, function: 'encode', input_type: 'text', input: 'on' }),
    );
    expect(encoded.output).toEqual({ hex: 'a5026f6e', bytes: [0xa5, 2, 0x6f, 0x6e] });
    const loop = data<ScriptTestResult>(
      await run({ source: 'function decode() { while (true) {} }', input: '00' }),
    );
    expect(loop).toMatchObject({ ok: false, error: { code: 82002 } });
    const syntax = data<ScriptTestResult>(await run({ source: 'function decode( {', input: '' }));
    expect(syntax).toMatchObject({ ok: false, error: { code: 82005, line: 1 } });
    expect(errorOf(await run({ source: DECODER, input: 'xyz' })).code).toBe(70003);
    expect(errorOf(await run({ source: DECODER, input: 'a\u0000' })).code).toBe(10113);
    expect(await t.app.deps.db.$count(scripts)).toBe(before);
  });
});

describe('scripts: raw uplinks and commands through the broker', () => {
  it("decodes a device's raw uplinks into stored properties, keeping the frames only with keep_raw", async () => {
    const c = await online(dev);
    await c.publishAsync(up(dev, 'raw'), Buffer.from('0100fa37', 'hex'), { qos: 1 });
    await c.publishAsync(up(dev, 'raw'), Buffer.from('01ff9c10', 'hex'), { qos: 1 });
    const temps = await eventually(async () => {
      const r = data<{ value: unknown }[]>(
        await t.inject({
          method: 'GET',
          url: `/api/devices/${dev.sn}/properties?key=temp`,
          token: owner.token,
        }),
      );
      return r.length === 2 ? r.map((p) => p.value).sort() : undefined;
    });
    expect(temps).toEqual([-10, 25]);
    // Decoded frames are stored as their values only, unless the script keeps them.
    expect((await raws(dev.sn)).filter((r) => r.direction === 'up')).toHaveLength(0);
    const [mine] = data<ScriptItem[]>(
      await t.inject({
        method: 'GET',
        url: `/api/scripts?product_key=${dev.productKey}`,
        token: owner.token,
      }),
    );
    const counted = await eventually(async () => {
      const s = await script(mine!.id);
      return s.calls >= 2 ? s : undefined;
    });
    expect(counted).toMatchObject({ calls: 2, errors: 0, consecutive_errors: 0, keep_raw: false });
    expect(counted.avg_ms).toBeGreaterThan(0);

    const kept = await t.inject({
      method: 'PUT',
      url: `/api/scripts/${mine!.id}`,
      token: owner.token,
      payload: { keep_raw: true },
    });
    expect(kept.statusCode).toBe(200);
    expect(data<ScriptDetail>(kept)).toMatchObject({ keep_raw: true, version: counted.version });
    await c.publishAsync(up(dev, 'raw'), Buffer.from('0100c832', 'hex'), { qos: 1 });
    const up1 = await eventually(async () => {
      const r = (await raws(dev.sn)).filter((x) => x.direction === 'up');
      return r.length === 1 ? r : undefined;
    });
    expect(up1[0]!.data).toBe(Buffer.from('0100c832', 'hex').toString('base64'));
    const values = data<{ value: unknown }[]>(
      await t.inject({
        method: 'GET',
        url: `/api/devices/${dev.sn}/properties?key=temp`,
        token: owner.token,
      }),
    );
    expect(values.map((v) => v.value).sort()).toEqual([-10, 20, 25]);
  });

  it("stores the events a script returns as the device's events; one the model lacks counts as an error", async () => {
    const [evt] = await createDevices(t, owner.token, ['SCR-EVT'], { name: 'Event sensor' });
    const model = await t.inject({
      method: 'PUT',
      url: `/api/thing-models/${evt!.productKey}`,
      token: admin,
      payload: {
        properties: [{ key: 'level', name: 'Level', datatype: 'number' }],
        events: [
          {
            key: 'leak',
            name: 'Leak',
            level: 'warn',
            output: [{ key: 'zone', name: 'Zone', datatype: 'int' }],
          },
        ],
        services: [],
      },
    });
    expect(model.statusCode).toBe(200);
    const made = await create(owner.token, {
      name: 'Leak decoder',
      product_key: evt!.productKey,
      source: `function decode(b) {
  var events = b[0] === 2 ? [{ identifier: 'leak', params: { zone: b[1] } }] : [];
  if (b[0] === 3) events = [{ identifier: 'unknown_event', params: {} }];
  return { properties: { level: b[1] }, events: events };
}`,
    });
    expect(made.statusCode).toBe(200);
    const id = data<ScriptDetail>(made).id;
    const c = await online(evt!);
    await c.publishAsync(up(evt!, 'raw'), Buffer.from('0207', 'hex'), { qos: 1 });
    await c.publishAsync(up(evt!, 'raw'), Buffer.from('0309', 'hex'), { qos: 1 });
    const stored = await eventually(async () => {
      const r = data<{ event: string; params: Record<string, unknown> }[]>(
        await t.inject({ method: 'GET', url: `/api/devices/${evt!.sn}/events`, token: owner.token }),
      );
      return r.length >= 1 ? r : undefined;
    });
    expect(stored.map((e) => [e.event, e.params])).toEqual([['leak', { zone: 7 }]]);
    const counted = await eventually(async () => {
      const s = await script(id);
      return s.errors >= 1 ? s : undefined;
    });
    expect(counted.errors).toBe(1);
    expect(counted.recent_errors[0]!.message).toContain('unknown_event');
  });

  it('sends a command as the bytes the script encodes, on down/raw', async () => {
    const c = clients[0]!;
    const rawDown = nextMessage(c, downTopic(dev.productKey, dev.sn, 'raw'));
    const res = await t.inject({
      method: 'POST',
      url: `/api/devices/${dev.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'on' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await rawDown).toString('hex')).toBe('a5026f6e');
  });

  it('keeps raw uplinks when the script fails, counts the errors, and disables it with a message to the owner', async () => {
    const failing = data<ScriptDetail>(
      await create(owner.token, {
        name: 'Fails on 0xEE',
        product_key: bad.productKey,
        source: `function decode(bytes) {
  if (bytes[0] === 0xEE) throw new RangeError('bad frame');
  if (bytes[0] === 0xFF) { while (true) {} }
  return { properties: { v: bytes[0] } };
}`,
      }),
    );
    const c = await online(bad);
    // A slow frame and failing frames: none stops ingest; each frame not decoded is kept raw (the good one is not).
    await c.publishAsync(up(bad, 'raw'), Buffer.from([0xff]), { qos: 1 });
    for (let i = 0; i < FAILURES - 2; i++)
      await c.publishAsync(up(bad, 'raw'), Buffer.from([0xee, i]), { qos: 1 });
    await c.publishAsync(up(bad, 'raw'), Buffer.from([7]), { qos: 1 });
    const counted = await eventually(async () => {
      const s = await script(failing.id);
      return s.calls === FAILURES ? s : undefined;
    });
    expect(counted).toMatchObject({ errors: FAILURES - 1, consecutive_errors: 0, enabled: true });
    expect(counted.recent_errors[0]).toMatchObject({ line: 2, sn: bad.sn });
    expect(counted.recent_errors.map((e) => e.message)).toContain('the script ran out of time');
    expect(counted.last_error?.message).toContain('RangeError: bad frame');
    const v = data<{ value: unknown }[]>(
      await t.inject({ method: 'GET', url: `/api/devices/${bad.sn}/properties?key=v`, token: owner.token }),
    );
    expect(v.map((p) => p.value)).toEqual([7]);

    // FAILURES in a row: disabled, its owner told; raw messages are still kept afterwards.
    for (let i = 0; i < FAILURES; i++)
      await c.publishAsync(up(bad, 'raw'), Buffer.from([0xee, i]), { qos: 1 });
    const disabled = await eventually(async () => {
      const s = await script(failing.id);
      return s.enabled ? undefined : s;
    });
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'failures' });
    const inbox = await eventually(async () => {
      const items = data<InboxItem[]>(
        await t.inject({ method: 'GET', url: '/api/inbox', token: owner.token }),
      );
      return items.find((m) => m.kind === 'script_disabled');
    });
    expect(inbox).toMatchObject({
      target_type: 'script',
      target_key: String(failing.id),
      params: { script_id: failing.id, failures: FAILURES, line: 2 },
    });
    await c.publishAsync(up(bad, 'raw'), Buffer.from([8]), { qos: 1 });
    const kept = await eventually(async () => {
      const r = await raws(bad.sn);
      return r.length === FAILURES * 2 ? r : undefined;
    });
    expect(kept[0]!.data).toBe(Buffer.from([8]).toString('base64'));
    // Disabled: the frame was not decoded.
    const after = data<{ value: unknown }[]>(
      await t.inject({ method: 'GET', url: `/api/devices/${bad.sn}/properties?key=v`, token: owner.token }),
    );
    expect(after.map((p) => p.value)).toEqual([7]);

    // Enabling again starts the run of failures over.
    const enabled = await t.inject({
      method: 'PUT',
      url: `/api/scripts/${failing.id}/state`,
      token: owner.token,
      payload: { enabled: true },
    });
    expect(data<ScriptDetail>(enabled)).toMatchObject({
      enabled: true,
      disabled_reason: '',
      consecutive_errors: 0,
    });
    await c.publishAsync(up(bad, 'raw'), Buffer.from([9]), { qos: 1 });
    await eventually(async () => {
      const r = data<{ value: unknown }[]>(
        await t.inject({ method: 'GET', url: `/api/devices/${bad.sn}/properties?key=v`, token: owner.token }),
      );
      return r.length === 2 ? r : undefined;
    });
  });
});
