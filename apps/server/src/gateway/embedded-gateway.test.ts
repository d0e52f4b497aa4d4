import type { MqttClient } from 'mqtt';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic } from '@cellhub/contract/protocol';
import { buildTestApp, type TestApp } from '../test/app';
import {
  connectDevice,
  createDevices,
  eventually,
  hmacPassword,
  type TestDevice,
  up,
} from './gateway-test-kit';

let t: TestApp;
let url: string;
let owner: { token: string; uid: number };
let devs: TestDevice[];
const clients: MqttClient[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  url = `mqtt://127.0.0.1:${t.app.broker.port}`;
  owner = await t.createUser();
  devs = await createDevices(t, owner.token, ['G-1', 'G-2', 'G-3', 'G-4', 'G-5', 'G-6']);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
  await t.close();
});

const dev = (i: number) => devs[i]!;
const track = (c: MqttClient) => (clients.push(c), c);
const get = async (path: string) => (await t.inject({ method: 'GET', url: path, token: owner.token })).json();
const logs = async (sn: string, event: string) =>
  ((await get(`/api/devices/${sn}/logs?event=${event}`)) as { data: { detail: Record<string, unknown> }[] })
    .data;
const refused = (p: Promise<MqttClient>) =>
  p.then(
    async (c) => {
      await c.endAsync(true);
      return undefined;
    },
    (e: Error & { code?: number }) => e,
  );

describe('CONNECT', () => {
  it('accepts the plain secret and an hmac password, and marks the device online with activatedat', async () => {
    const c = track(await connectDevice(url, dev(0)));
    const d = await eventually(async () => {
      const r = (await get(`/api/devices/${dev(0).sn}`)) as {
        data: { online: number; activatedat: string | null };
      };
      return r.data.online === 1 ? r.data : undefined;
    });
    expect(d.activatedat).not.toBeNull();
    await c.endAsync();
    const h = track(
      await connectDevice(url, dev(1), { password: hmacPassword(dev(1), t.clock.now().getTime()) }),
    );
    expect(h.connected).toBe(true);
    await h.endAsync();
    const connects = await logs(dev(0).sn, 'connect');
    expect(connects[0]!.detail).toMatchObject({ ip: '127.0.0.1', protocol: 'mqtt/4' });
    const gone = await eventually(async () => {
      const l = await logs(dev(0).sn, 'disconnect');
      return l.length ? l : undefined;
    });
    expect(gone[0]!.detail.reason).toBe('client close');
  });

  it('refuses unknown sn, wrong password, stale hmac, clientId != username, and a disabled device', async () => {
    const d = dev(2);
    const cases: [string, Parameters<typeof connectDevice>[2], number][] = [
      ['unknown sn', { clientId: 'NOPE-1', username: 'NOPE-1' }, 4],
      ['wrong password', { password: 'x'.repeat(32) }, 4],
      ['stale hmac', { password: hmacPassword(d, t.clock.now().getTime() - 16 * 60_000) }, 4],
      ['clientId is not the username', { clientId: 'other-id' }, 2],
      ['no password', { password: undefined }, 4],
    ];
    for (const [name, options, code] of cases) {
      const err = await refused(connectDevice(url, d, options));
      expect(err, name).toBeInstanceOf(Error);
      expect(err?.code, name).toBe(code);
    }
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}`,
      token: owner.token,
      payload: { disabled: true },
    });
    expect((await refused(connectDevice(url, d)))?.code).toBe(5);
    await t.inject({
      method: 'PUT',
      url: `/api/devices/${d.sn}`,
      token: owner.token,
      payload: { disabled: false },
    });
    const ok = track(await connectDevice(url, d));
    expect(ok.connected).toBe(true);
    await ok.endAsync();
  });

  it('drops a connected device when it is disabled or deleted', async () => {
    const [d] = await createDevices(t, owner.token, ['G-DEL']);
    const c = track(await connectDevice(url, d!));
    const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
    await t.inject({ method: 'DELETE', url: `/api/devices/${d!.sn}`, token: owner.token });
    await closed;
    expect((await refused(connectDevice(url, d!)))?.code).toBe(4);
  });

  it('lets a second connection with the same clientId take over and logs the takeover', async () => {
    const d = dev(3);
    const first = track(await connectDevice(url, d));
    const firstClosed = new Promise<void>((resolve) => first.once('close', () => resolve()));
    first.on('error', () => undefined);
    first.options.reconnectPeriod = 0;
    const second = track(await connectDevice(url, d));
    await firstClosed;
    expect(second.connected).toBe(true);
    const l = await eventually(async () => {
      const rows = await logs(d.sn, 'disconnect');
      return rows.length ? rows : undefined;
    });
    expect(l[0]!.detail.reason).toBe('takeover');
    const r = (await get(`/api/devices/${d.sn}`)) as { data: { online: number } };
    expect(r.data.online).toBe(1);
    await second.endAsync();
  });
});

describe('ACL', () => {
  it('refuses subscriptions outside P/down/# with 128 and drops publishes outside P/up/<kind>', async () => {
    const a = dev(4);
    const b = dev(5);
    const ca = track(await connectDevice(url, a));
    const cb = track(await connectDevice(url, b));
    const topics = [
      `dev/${a.productKey}/${a.sn}/down/#`,
      '#',
      '$SYS/#',
      `dev/${b.productKey}/${b.sn}/down/#`,
      `dev/${b.productKey}/${b.sn}/up/#`,
      `dev/${a.productKey}/+/down/#`,
    ];
    const granted: number[] = [];
    for (const topic of topics) {
      // mqtt.js turns a 128 return code into an error carrying the SUBACK.
      granted.push(
        await ca.subscribeAsync(topic, { qos: 1 }).then(
          (g) => g[0]!.qos,
          (e: { packet?: { granted?: number[] } }) => e.packet?.granted?.[0] ?? -1,
        ),
      );
    }
    expect(granted).toEqual([1, 128, 128, 128, 128, 128]);

    // A publishes into B's down and up topics: B never sees it, nothing is stored for B, A is counted.
    await cb.subscribeAsync(`dev/${b.productKey}/${b.sn}/down/#`, { qos: 1 });
    const seen: string[] = [];
    cb.on('message', (topic) => seen.push(topic));
    await ca.publishAsync(downTopic(b.productKey, b.sn, 'cmd'), '{"id":"x","type":"string","data":"hi"}', {
      qos: 1,
    });
    await ca.publishAsync(up(b, 'property'), '{"params":{"t":1}}', { qos: 1 });
    await ca.publishAsync(`dev/${a.productKey}/${a.sn}/elsewhere`, '{}', { qos: 1 });
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toEqual([]);
    expect(((await get(`/api/devices/${b.sn}/properties`)) as { total: number }).total).toBe(0);
    const rejected = await eventually(async () => {
      const r = (await get(`/api/devices/${a.sn}`)) as { data: { rejected_count: number } };
      return r.data.rejected_count >= 3 + 5 ? r.data.rejected_count : undefined;
    });
    expect(rejected).toBe(8);
    expect(ca.connected).toBe(true);
    await Promise.all([ca.endAsync(), cb.endAsync()]);
  });
});

describe('over WebSocket', () => {
  it('authenticates devices at /mqtt', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as { port: number }).port;
    const c = track(await connectDevice(`ws://127.0.0.1:${port}/mqtt`, dev(0)));
    expect(c.connected).toBe(true);
    const l = await eventually(async () => {
      const rows = await logs(dev(0).sn, 'connect');
      return rows[0]?.detail.protocol === 'mqtt/4+ws' ? rows : undefined;
    });
    expect(l[0]!.detail.protocol).toBe('mqtt/4+ws');
    await c.endAsync();
    const bad = await mqtt
      .connectAsync(`ws://127.0.0.1:${port}/mqtt`, {
        clientId: 'x1',
        username: 'x1',
        password: 'y',
        reconnectPeriod: 0,
      })
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(bad).toBeInstanceOf(Error);
  });
});
