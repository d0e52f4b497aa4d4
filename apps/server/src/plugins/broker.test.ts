import net, { type AddressInfo } from 'node:net';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from '../test/app';

async function listenOn(port = 0): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

const closeServer = (s: net.Server) => new Promise<void>((resolve) => s.close(() => resolve()));

describe('embedded broker', () => {
  let t: TestApp;
  let httpPort: number;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    httpPort = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('listens on an ephemeral port with MQTT_PORT=0 and reports healthy', async () => {
    expect(t.app.broker.kind).toBe('embedded');
    expect(t.app.broker.port).toBeGreaterThan(0);
    expect(t.app.broker.healthy()).toBe(true);
  });

  it('refuses an MQTT connection over TCP from an unknown device', async () => {
    const err = await mqtt
      .connectAsync(`mqtt://127.0.0.1:${t.app.broker.port}`, { reconnectPeriod: 0, connectTimeout: 5000 })
      .then(
        (c) => c.endAsync().then(() => undefined),
        (e: Error) => e,
      );
    expect(err?.message).toMatch(/bad username or password|identifier rejected/i);
  });

  it('speaks MQTT over WebSocket at /mqtt (and refuses an unknown device the same way)', async () => {
    const err = await mqtt
      .connectAsync(`ws://127.0.0.1:${httpPort}/mqtt`, { reconnectPeriod: 0, connectTimeout: 5000 })
      .then(
        (c) => c.endAsync().then(() => undefined),
        (e: Error) => e,
      );
    expect(err?.message).toMatch(/bad username or password|identifier rejected/i);
  });
});

describe('broker start-up and shutdown', () => {
  it('fails start-up naming MQTT_PORT and MQTT_URL when the port is taken', async () => {
    const blocker = await listenOn();
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(buildTestApp({ config: { mqttPort: port } })).rejects.toThrow(
        new RegExp(`MQTT_PORT ${port} is already in use.*MQTT_URL`),
      );
    } finally {
      await closeServer(blocker);
    }
  });

  it('closes clients and frees the port on app.close()', async () => {
    const t = await buildTestApp();
    const port = t.app.broker.port!;
    // A client that connected but never sent CONNECT: shutdown must not wait for it.
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await t.close();
    await socketClosed;
    expect(t.app.broker.healthy()).toBe(false);
    const again = await listenOn(port);
    await closeServer(again);
  });
});

describe('external broker (MQTT_URL)', () => {
  it('reports mqtt down in health while the broker is unreachable', async () => {
    const t = await buildTestApp({ config: { mqttUrl: 'mqtt://127.0.0.1:1' } });
    try {
      expect(t.app.broker.kind).toBe('external');
      const res = await t.inject({ method: 'GET', url: '/api/health' });
      expect(res.statusCode).toBe(503);
      expect(errorOf(res)).toMatchObject({ code: 10105, details: { db: 'ok', mqtt: 'down' } });
    } finally {
      await t.close();
    }
  });

  it.runIf(process.env.TEST_MQTT_URL)('connects with mqtt.js and reports healthy', async () => {
    const t = await buildTestApp({ config: { mqttUrl: process.env.TEST_MQTT_URL } });
    try {
      const deadline = Date.now() + 10_000;
      while (!t.app.broker.healthy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const res = await t.inject({ method: 'GET', url: '/api/health' });
      expect(res.json()).toEqual({ status: true, data: { db: 'ok', mqtt: 'ok' } });
    } finally {
      await t.close();
    }
  });
});
