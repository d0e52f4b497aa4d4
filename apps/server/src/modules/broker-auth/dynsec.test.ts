import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/app';
import { DynsecMosquitto, haveDynsecMosquitto } from '../../test/dynsec-mosquitto';
import { connectDevice, createDevices, type TestDevice, up } from '../../test/gateway-test-kit';
import { DynsecClient } from './dynsec-client';
import { MARK, roleOf } from './dynsec-sync';

/**
 * Mosquitto dynamic security provisioned by Cellhub (docs/external-brokers.md), against a private Mosquitto with
 * the plugin: what the devices table says is what the broker lets in.
 */
describe.skipIf(!haveDynsecMosquitto())('Mosquitto dynamic security', () => {
  let broker: DynsecMosquitto;
  let admin: DynsecClient;
  let t: TestApp;
  let token: string;
  let a: TestDevice;
  let b: TestDevice;
  const clients: MqttClient[] = [];
  const log = { warn: () => undefined, error: () => undefined } as never;

  const settle = () => t.app.dynsec!.settle();
  const connect = async (d: TestDevice, password = d.secret) => {
    const c = await connectDevice(broker.plainUrl, d, { password });
    clients.push(c);
    return c;
  };
  const refused = async (d: TestDevice, password = d.secret) => {
    await expect(connectDevice(broker.plainUrl, d, { password })).rejects.toThrow();
  };
  const secretOf = async (sn: string) =>
    (
      (await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token })).json() as {
        data: { secret: string };
      }
    ).data.secret;

  beforeAll(async () => {
    broker = await DynsecMosquitto.start();
    admin = DynsecClient.open(broker.url('admin', broker.adminPassword), { log });
    // The server's own account, as docs/external-brokers.md has the operator create it.
    await admin.check([
      {
        command: 'createRole',
        rolename: 'cellhub-server',
        acls: [
          { acltype: 'subscribePattern', topic: 'dev/+/+/up/#', allow: true },
          { acltype: 'publishClientSend', topic: 'dev/+/+/down/#', allow: true },
        ],
      },
      {
        command: 'createClient',
        username: 'cellhub-server',
        password: 'server-pw-0123',
        roles: [{ rolename: 'cellhub-server' }],
      },
    ]);
    t = await buildTestApp({
      config: {
        mqttUrl: broker.url('cellhub-server', 'server-pw-0123'),
        brokerAuth: {
          hookSecret: undefined,
          dynsec: {
            enabled: true,
            username: 'admin',
            password: broker.adminPassword,
            reconcileMs: 3_600_000,
          },
        },
      },
    });
    const user = await t.createUser();
    token = user.token;
    [a, b] = (await createDevices(t, token, ['DYN-A', 'DYN-B'])) as [TestDevice, TestDevice];
    await settle();
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.endAsync(true).catch(() => undefined);
    await t?.close();
    await admin?.close();
    await broker?.destroy();
  });

  it('lets a created device in with its secret, and refuses a wrong one or another clientid', async () => {
    const c = await connect(a);
    expect(c.connected).toBe(true);
    await refused(a, 'not-the-secret');
    await expect(connectDevice(broker.plainUrl, a, { clientId: 'someone-else' })).rejects.toThrow();
    const [got] = await admin.check([{ command: 'getClient', username: a.sn }]);
    const client = got!.data!.client as { textdescription: string; roles: { rolename: string }[] };
    expect(client.textdescription.startsWith(MARK)).toBe(true);
    expect(client.roles.map((r) => r.rolename)).toEqual([roleOf(a.sn)]);
  });

  it("keeps a device to its own topics: another device's topics are neither published to nor subscribed", async () => {
    const watcher = await mqtt.connectAsync(broker.plainUrl, {
      clientId: 'watcher',
      username: 'admin',
      password: broker.adminPassword,
      reconnectPeriod: 0,
    });
    clients.push(watcher);
    await watcher.subscribeAsync('dev/#', { qos: 1 });
    const seen: string[] = [];
    watcher.on('message', (topic) => seen.push(topic));
    const dev = await connect(a);
    // mqtt.js turns a SUBACK with return code 128 (refused) into this error.
    await expect(dev.subscribeAsync(`dev/${b.productKey}/${b.sn}/down/#`, { qos: 1 })).rejects.toThrow(
      /Subscribe error/,
    );
    const own = await dev.subscribeAsync(`dev/${a.productKey}/${a.sn}/down/#`, { qos: 1 });
    expect(own[0]!.qos).toBe(1);
    await dev.publishAsync(up(b, 'property'), '{"params":{"t":1}}', { qos: 1 });
    await dev.publishAsync(`dev/${a.productKey}/${a.sn}/down/cmd`, '{}', { qos: 1 });
    await dev.publishAsync(up(a, 'raw'), 'sentinel', { qos: 1 });
    // Published after the forbidden ones on the same connection: when it arrived, they would have too.
    const end = Date.now() + 5000;
    while (!seen.includes(up(a, 'raw')) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([up(a, 'raw')]);
  });

  it('follows disable and enable', async () => {
    let r = await t.inject({
      method: 'PUT',
      url: `/api/devices/${a.sn}`,
      token,
      payload: { disabled: true },
    });
    expect(r.statusCode).toBe(200);
    await settle();
    await refused(a);
    r = await t.inject({ method: 'PUT', url: `/api/devices/${a.sn}`, token, payload: { disabled: false } });
    expect(r.statusCode).toBe(200);
    await settle();
    await connect(a);
  });

  it('rotates the password with the secret: the old one is refused, the new one accepted', async () => {
    const old = a.secret;
    const r = await t.inject({ method: 'POST', url: `/api/devices/${a.sn}/unbind`, token });
    expect(r.statusCode).toBe(200);
    await settle();
    const admin2 = await t.adminToken();
    const fresh = (
      (await t.inject({ method: 'GET', url: `/api/devices/${a.sn}`, token: admin2 })).json() as {
        data: { secret: string };
      }
    ).data.secret;
    expect(fresh).not.toBe(old);
    await refused(a, old);
    await connect({ ...a, secret: fresh });
  });

  it('removes a deleted device: refused, client and role gone', async () => {
    expect(await secretOf(b.sn)).toBe(b.secret);
    await connect(b);
    const r = await t.inject({ method: 'DELETE', url: `/api/devices/${b.sn}`, token });
    expect(r.statusCode).toBe(200);
    await settle();
    await refused(b);
    const [client, role] = await admin.run([
      { command: 'getClient', username: b.sn },
      { command: 'getRole', rolename: roleOf(b.sn) },
    ]);
    expect(client!.error).toMatch(/not found/i);
    expect(role!.error).toMatch(/not found/i);
  });

  it("reconciles: recreates what was lost, removes its own strays, leaves the operator's clients alone", async () => {
    const [c] = (await createDevices(t, token, ['DYN-C'])) as [TestDevice];
    await settle();
    await admin.check([
      // Lost behind Cellhub's back.
      { command: 'deleteClient', username: c.sn },
      // A stray of ours (a device deleted while no job ran) and an operator's account.
      { command: 'createClient', username: 'DYN-GONE', password: 'x', textdescription: `${MARK} 00` },
      { command: 'createClient', username: 'operator-tool', password: 'y' },
    ]);
    await refused(c);
    await t.app.dynsec!.reconcileNow();
    await connect(c);
    const [gone, operator, server] = await admin.run([
      { command: 'getClient', username: 'DYN-GONE' },
      { command: 'getClient', username: 'operator-tool' },
      { command: 'getClient', username: 'cellhub-server' },
    ]);
    expect(gone!.error).toMatch(/not found/i);
    expect(operator!.error).toBeUndefined();
    expect(server!.error).toBeUndefined();
  });
});
