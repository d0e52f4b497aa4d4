import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualDevice } from './device';
import { hmacPassword, isValidHex } from './protocol';

// A real MQTT broker in the test process, checking what the simulator sends the way the platform will.
const identity = { sn: 'SIM0001', product_key: 'pk_test', secret: 's'.repeat(32) };
let broker: Aedes;
let server: Server;
let url: string;
const seen: { topic: string; body: unknown }[] = [];
const connects: { clientId: string; username?: string; password?: string }[] = [];

beforeAll(async () => {
  broker = await Aedes.createBroker();
  broker.authenticate = (client, username, password, done) => {
    connects.push({ clientId: client.id, username, password: password?.toString() });
    done(null, client.id === username);
  };
  broker.on('publish', (packet, client) => {
    if (client) seen.push({ topic: packet.topic, body: JSON.parse(packet.payload.toString()) });
  });
  server = createServer(broker.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  url = `mqtt://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

afterAll(async () => {
  await new Promise<void>((r) => broker.close(() => r()));
  await new Promise<void>((r) => server.close(() => r()));
});

const waitFor = async <T>(fn: () => T | undefined, ms = 3000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const downlink = (topic: string, body: unknown) =>
  new Promise<void>((resolve, reject) =>
    broker.publish(
      {
        cmd: 'publish',
        topic,
        payload: Buffer.from(JSON.stringify(body)),
        qos: 1,
        retain: false,
        dup: false,
      },
      (err) => (err ? reject(err) : resolve()),
    ),
  );

describe('protocol helpers', () => {
  it('builds the HMAC password of PROTOCOL.md', () => {
    const pw = hmacPassword('SN1', 'secret', 1700000000000);
    const expected = createHmac('sha256', 'secret').update('SN1:1700000000000').digest('hex');
    expect(pw).toBe(`hmac:1700000000000:${expected}`);
  });

  it('validates hex command data as seed section 5 says', () => {
    expect(isValidHex('01030000000AC5CD')).toBe(true);
    expect(isValidHex('0x0103')).toBe(false);
    expect(isValidHex('010')).toBe(false);
    expect(isValidHex('01G3')).toBe(false);
  });
});

describe('virtual device', () => {
  it('connects as its sn, announces itself online and reports info and properties', async () => {
    const d = new VirtualDevice(identity, {
      url,
      hmac: true,
      info: { fw_version: '1.0.0' },
      properties: () => ({ temperature: 21.5 }),
    });
    await d.connect();
    await d.report();
    const c = connects.at(-1);
    expect(c?.clientId).toBe('SIM0001');
    expect(c?.username).toBe('SIM0001');
    expect(c?.password).toMatch(/^hmac:\d+:[0-9a-f]{64}$/);
    await waitFor(() => seen.find((m) => m.topic === 'dev/pk_test/SIM0001/up/property'));
    expect(seen.find((m) => m.topic.endsWith('/up/status'))?.body).toEqual({ online: 1 });
    expect(seen.find((m) => m.topic.endsWith('/up/info'))?.body).toEqual({ fw_version: '1.0.0' });
    const prop = seen.find((m) => m.topic.endsWith('/up/property'))?.body as { params: unknown; ts: number };
    expect(prop.params).toEqual({ temperature: 21.5 });
    expect(typeof prop.ts).toBe('number');
    await d.close();
  });

  it('answers commands, refusing bad hex, and applies configuration', async () => {
    seen.length = 0;
    const d = new VirtualDevice({ ...identity, sn: 'SIM0002' }, { url });
    await d.connect();
    await downlink('dev/pk_test/SIM0002/down/cmd', { id: 'c1', type: 'hex', data: '0103' });
    await downlink('dev/pk_test/SIM0002/down/cmd', { id: 'c2', type: 'hex', data: '0x01' });
    await downlink('dev/pk_test/SIM0002/down/config', { version: 3, config: { global: { apn: 'cmnet' } } });
    const replies = await waitFor(() => {
      const r = seen.filter((m) => m.topic.endsWith('/up/cmd_reply'));
      return r.length === 2 ? r : undefined;
    });
    expect(replies.map((r) => r.body)).toEqual([
      { id: 'c1', code: 0, data: '0103' },
      { id: 'c2', code: 70003 },
    ]);
    const cfg = await waitFor(() => seen.find((m) => m.topic.endsWith('/up/config')));
    expect(cfg.body).toEqual({ version: 3, config: { global: { apn: 'cmnet' } } });
    await d.close();
  });
});
