import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type Server as NetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import { eq } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { deviceCreateBody } from '@cellhub/contract/devices';
import { forwardRuleBody } from '@cellhub/contract/forwarding';
import { productCreateBody } from '@cellhub/contract/products';
import { upTopic } from '@cellhub/contract/protocol';
import type { Actor } from '../lib/deps';
import { createDevices, getDevice } from '../modules/devices/devices.service';
import { createRule } from '../modules/forwarding/forwarding.service';
import { createProduct } from '../modules/products/products.service';
import { users } from '../modules/users/users.table';
import { buildTestApp, type TestApp } from '../test/app';
import { eventually } from '../test/gateway-test-kit';
import { allowTestTarget } from '../test/outbound';
import { holdConnects, releaseConnects } from './embedded-adapter';

// A server that restarts while its devices reconnect (every DTU comes back within seconds of a crash): the broker
// listens before the engines that act on device messages have started. Found by the jobs-kill suite: CONNECTs in
// that window were refused "not authorized" (mqtt.js, like many DTUs, then stops retrying: OTA rows waited as
// `offline` for good) or accepted and acknowledged before the forwarding engine had read its rules (a stored report
// never forwarded).

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const clients: MqttClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
});

describe('a device that connects while the server starts', () => {
  let t: TestApp | undefined;
  let receiver: Server | undefined;
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
  });

  it('gets its CONNACK once the server is ready, and its report is forwarded', async () => {
    const forwarded: { sn: string; data: { params: Record<string, unknown> } }[] = [];
    receiver = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        forwarded.push(JSON.parse(Buffer.concat(chunks).toString()) as (typeof forwarded)[number]);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    allowTestTarget(url);

    const seen = { connack: false, refused: '' as string, authenticating: false };
    t = await buildTestApp({
      // The broker listens and the gateway is attached; no onReady hook has run (the forwarding engine has not
      // read its rules). The device and its rule exist already, as after a restart.
      beforeReady: async (app) => {
        const [admin] = await app.deps.db.select().from(users).where(eq(users.username, 'admin'));
        const actor: Actor = {
          uid: admin!.id,
          username: 'admin',
          role: 'admin',
          sessionId: 0,
          ip: '127.0.0.1',
          userAgent: 'test',
        };
        // What the routes would do with the same bodies (the HTTP API answers only once the app is ready).
        const product = await createProduct(app.deps, actor, productCreateBody.parse({ name: 'Gate' }));
        const pk = product.product_key;
        await createDevices(app.deps, actor, deviceCreateBody.parse({ product_key: pk, sn: ['GATE-1'] }));
        const { secret } = await getDevice(app.deps, actor, 'GATE-1');
        await createRule(
          app.deps,
          actor,
          forwardRuleBody.parse({
            name: 'gate',
            product_key: pk,
            kinds: ['property'],
            target: { kind: 'http', method: 'POST', url },
          }),
        );

        const aedes = app.broker.aedes!;
        const authenticate = aedes.authenticate;
        let called: () => void = () => undefined;
        const authCalled = new Promise<void>((r) => (called = r));
        aedes.authenticate = (...args) => {
          seen.authenticating = true;
          called();
          authenticate(...args);
        };
        const c = mqtt.connect(`mqtt://127.0.0.1:${app.broker.port}`, {
          clientId: 'GATE-1',
          username: 'GATE-1',
          password: secret,
          reconnectPeriod: 0,
        });
        clients.push(c);
        c.on('error', (err) => (seen.refused = err.message));
        c.on('connect', () => {
          seen.connack = true;
          c.publish(
            upTopic(product.product_key, 'GATE-1', 'property'),
            JSON.stringify({ ts: 1_767_225_600_000, params: { temperature: 21.5 } }),
            { qos: 1 },
          );
        });
        // The broker has the CONNECT; the old gateway answered it within milliseconds and took the report. A
        // second is its chance to do so; the gateway must keep the device waiting for as long as it is not ready.
        await authCalled;
        await sleep(1000);
        expect(seen.refused, 'refused while starting').toBe('');
        expect(seen.connack, 'answered before the server was ready').toBe(false);
      },
    });
    expect(seen.authenticating).toBe(true);
    // Ready: the device is let in, its report stored and forwarded by the rule read at start.
    await eventually(async () => (forwarded.length > 0 ? true : undefined), 15_000);
    expect(seen.refused).toBe('');
    expect(forwarded[0]).toMatchObject({ sn: 'GATE-1', data: { params: { temperature: 21.5 } } });
  });
});

describe('the broker before the gateway is attached', () => {
  let server: NetServer | undefined;
  let aedes: Aedes | undefined;
  afterAll(async () => {
    await new Promise((r) => (aedes ? aedes.close(() => r(undefined)) : r(undefined)));
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
  });

  it('keeps a CONNECT waiting, then answers it with the authenticate installed later', async () => {
    aedes = await Aedes.createBroker();
    holdConnects(aedes);
    let held: () => void = () => undefined;
    const arrived = new Promise<void>((r) => (held = r));
    const hold = aedes.authenticate;
    aedes.authenticate = (...args) => {
      hold(...args);
      held();
    };
    server = createServer((socket) => aedes!.handle(socket));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const events: string[] = [];
    const c = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
      clientId: 'HELD-1',
      username: 'HELD-1',
      password: 'x',
      reconnectPeriod: 0,
    });
    clients.push(c);
    c.on('connect', () => events.push('connack'));
    c.on('error', (err) => events.push(`error ${err.message}`));
    await arrived;
    await sleep(300);
    // Neither refused nor let in while nobody can check the device.
    expect(events).toEqual([]);
    const asked: string[] = [];
    releaseConnects(aedes, (client, username, _password, done) => {
      asked.push(`${client.id}:${username}`);
      done(null, true);
    });
    await eventually(async () => (events.length > 0 ? true : undefined), 5000);
    expect(events).toEqual(['connack']);
    expect(asked).toEqual(['HELD-1:HELD-1']);
  });
});
