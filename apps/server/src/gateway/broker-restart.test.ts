import { existsSync } from 'node:fs';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOSQUITTO, Mosquitto } from '../reliability/outage-kit';
import { buildTestApp, type TestApp } from '../test/app';
import { connectDevice, createDevices, eventually, type TestDevice, up } from '../test/gateway-test-kit';

/**
 * A lone instance on Mosquitto with MQTT_SUBSCRIPTION=plain: the broker restarts (SIGTERM, which writes its
 * persistence) and a device publishes before the server's client is back. The plain subscription comes back with
 * the server's persistent session, so the broker queues the message for it and the server stores it once it
 * reconnects. (A shared subscription is not restored by Mosquitto 2.0: the same message is acknowledged to the
 * device and dropped; src/reliability/broker-restart.test.ts measures that mode.)
 */
describe.skipIf(!existsSync(MOSQUITTO))('plain subscription across a Mosquitto restart', () => {
  let broker: Mosquitto;
  let t: TestApp;
  let owner: { token: string; uid: number };
  let d: TestDevice;
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    broker = await Mosquitto.start({ persistence: true });
    t = await buildTestApp({ config: { mqttUrl: broker.url, mqttSubscription: 'plain' } });
    await eventually(async () => (t.app.broker.healthy() ? true : undefined), 10_000);
    owner = await t.createUser();
    d = (await createDevices(t, owner.token, ['PLAIN-RESTART-1']))[0]!;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
    await t?.close();
    await broker?.destroy();
  });

  const get = async (path: string) =>
    (await t.inject({ method: 'GET', url: path, token: owner.token })).json() as {
      data: { key?: string; value?: unknown; online?: number }[] & { online?: number };
    };
  const temp = async () =>
    (await get(`/api/devices/${d.sn}/properties`)).data.find((p) => p.key === 'temp')?.value;

  it('stores what a device published while the server was not connected yet, and sees it online', async () => {
    const before = await connectDevice(broker.url, d);
    clients.push(before);
    await before.publishAsync(up(d, 'status'), '{"online":1}', { qos: 1 });
    await before.publishAsync(up(d, 'property'), JSON.stringify({ params: { temp: 1 } }), { qos: 1 });
    await eventually(async () => ((await temp()) === 1 ? true : undefined), 10_000);
    await before.endAsync();

    // The server's client waits 10 s before trying again, so the device below is certainly first.
    const client = t.app.broker.client!;
    client.options.reconnectPeriod = 10_000;
    await broker.restart();
    const after = await connectDevice(broker.url, d);
    clients.push(after);
    await after.publishAsync(up(d, 'status'), '{"online":1}', { qos: 1 });
    await after.publishAsync(up(d, 'property'), JSON.stringify({ params: { temp: 2 } }), { qos: 1 });
    // Acknowledged by the broker while the server was away: only the broker holds it now.
    expect(client.connected).toBe(false);
    client.options.reconnectPeriod = 500;

    await eventually(async () => ((await temp()) === 2 ? true : undefined), 30_000);
    const device = (await get(`/api/devices/${d.sn}`)).data as unknown as { online: number };
    expect(device.online).toBe(1);
  }, 60_000);
});
