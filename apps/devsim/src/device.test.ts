import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newStats, VirtualDevice } from './device';
import { hmacPassword } from './protocol';
import { startTestBroker, waitFor, type TestBroker } from './test-broker';

const identity = { sn: 'SIM0001', product_key: 'pk_test', secret: 's'.repeat(32) };
let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker();
});

afterAll(async () => {
  await broker.close();
});

describe('protocol helpers', () => {
  it('builds the HMAC password of PROTOCOL.md', () => {
    const pw = hmacPassword('SN1', 'secret', 1700000000000);
    const expected = createHmac('sha256', 'secret').update('SN1:1700000000000').digest('hex');
    expect(pw).toBe(`hmac:1700000000000:${expected}`);
  });
});

describe('virtual device', () => {
  it('connects as its sn, announces itself online, reports info, asks for config and reports properties', async () => {
    const d = new VirtualDevice(identity, {
      url: broker.url,
      hmac: true,
      info: { fw_version: '1.0.0' },
      properties: () => ({ temperature: 21.5 }),
    });
    await d.connect();
    await d.report();
    const c = broker.connects.at(-1);
    expect(c?.clientId).toBe('SIM0001');
    expect(c?.username).toBe('SIM0001');
    expect(c?.password).toMatch(/^hmac:\d+:[0-9a-f]{64}$/);
    // The order of PROTOCOL.md: online first, then info, then the request for the expected configuration.
    const kinds = broker.seen.filter((m) => m.clientId === 'SIM0001').map((m) => m.topic.split('/').at(-1));
    expect(kinds).toEqual(['status', 'info', 'config_get', 'property']);
    expect(broker.seen.every((m) => m.qos === 1)).toBe(true);
    expect(broker.bodies('/up/status', 'SIM0001')).toEqual([{ online: 1 }]);
    expect(broker.bodies('/up/info', 'SIM0001')).toEqual([{ fw_version: '1.0.0' }]);
    expect(broker.bodies('/up/config_get', 'SIM0001')).toEqual([{}]);
    const prop = broker.bodies('/up/property', 'SIM0001')[0] as { id: string; params: unknown; ts: number };
    expect(prop.params).toEqual({ temperature: 21.5 });
    expect(prop.id).toMatch(/^m\d+$/);
    expect(Math.abs(prop.ts - Date.now())).toBeLessThan(5000);
    expect(d.stats.acked).toBe(d.stats.sent);
    await d.close();
  });

  it('signs in with the plain secret and is refused with a wrong one', async () => {
    broker.secrets.set('SIM0009', 'right-secret-right-secret-right-secret');
    const good = new VirtualDevice(
      { ...identity, sn: 'SIM0009', secret: 'right-secret-right-secret-right-secret' },
      { url: broker.url },
    );
    await good.connect();
    expect(broker.connects.at(-1)?.password).toBe('right-secret-right-secret-right-secret');
    await good.close();
    const stats = newStats();
    const bad = new VirtualDevice(
      { ...identity, sn: 'SIM0009', secret: 'wrong' },
      { url: broker.url, stats },
    );
    await expect(bad.connect()).rejects.toThrow();
    expect(bad.connected).toBe(false);
    expect(stats.errors).toBe(1);
  });

  it('answers commands, refusing bad hex, and applies configuration', async () => {
    const d = new VirtualDevice({ ...identity, sn: 'SIM0002' }, { url: broker.url });
    await d.connect();
    await broker.downlink('dev/pk_test/SIM0002/down/cmd', { id: 'c1', type: 'hex', data: '0103' });
    await broker.downlink('dev/pk_test/SIM0002/down/cmd', { id: 'c2', type: 'hex', data: '0x01' });
    await broker.downlink('dev/pk_test/SIM0002/down/cmd', { id: 'c3', type: 'string', data: 'AT+CSQ' });
    await broker.downlink('dev/pk_test/SIM0002/down/config', {
      version: 3,
      config: { global: { apn: 'cmnet' } },
    });
    const replies = await waitFor(() => {
      const r = broker.bodies('/up/cmd_reply', 'SIM0002');
      return r.length === 3 && r;
    });
    expect(replies).toEqual([
      { id: 'c1', code: 0, data: '0103' },
      { id: 'c2', code: 70003 },
      { id: 'c3', code: 0, data: 'AT+CSQ' },
    ]);
    const cfg = await waitFor(() => broker.bodies('/up/config', 'SIM0002')[0]);
    expect(cfg).toEqual({ version: 3, config: { global: { apn: 'cmnet' } } });
    expect(d.config.version).toBe(3);
    expect(d.stats.commands).toBe(3);
    await d.close();
  });

  it('hands downlink kinds it does not know to a plugged-in handler (the OTA extension point)', async () => {
    const got: unknown[] = [];
    const d = new VirtualDevice(
      { ...identity, sn: 'SIM0003' },
      { url: broker.url, handlers: { ota: (_dev, body) => void got.push(body) } },
    );
    await d.connect();
    await broker.downlink('dev/pk_test/SIM0003/down/ota', { id: 'u1', version: '1.2.0' });
    await waitFor(() => got.length === 1);
    expect(got[0]).toEqual({ id: 'u1', version: '1.2.0' });
    await d.close();
  });

  it('an abrupt outage fires the will; a clean one says offline and leaves no will', async () => {
    const closes: boolean[] = [];
    const d = new VirtualDevice(
      { ...identity, sn: 'SIM0004' },
      { url: broker.url, onClose: (_d, p) => closes.push(p) },
    );
    await d.connect();
    await d.goOffline('abrupt');
    await waitFor(() => broker.bodies('/SIM0004/up/status').length === 2);
    expect(broker.bodies('/SIM0004/up/status')).toEqual([{ online: 1 }, { online: 0 }]);
    expect(d.connected).toBe(false);

    await d.connect();
    await d.goOffline('clean');
    // The sentinel: the next connection's "online" comes after any will the clean outage could have fired.
    await d.connect();
    await waitFor(() => broker.bodies('/SIM0004/up/status').length >= 5);
    // online, will, online, goodbye, online: exactly one offline message per outage
    expect(broker.bodies('/SIM0004/up/status')).toEqual([
      { online: 1 },
      { online: 0 },
      { online: 1 },
      { online: 0 },
      { online: 1 },
    ]);
    expect(closes).toEqual([true, true]);
    await d.close();
  });

  it('keeps readings taken offline and sends them as one batch with device timestamps', async () => {
    let t = 0;
    const d = new VirtualDevice(
      { ...identity, sn: 'SIM0005' },
      { url: broker.url, bufferOffline: 2, properties: () => ({ temperature: ++t }) },
    );
    await d.report();
    await d.report();
    await d.report(); // the buffer holds 2: the oldest reading goes
    expect(d.bufferedCount).toBe(2);
    await d.connect();
    const batch = (await waitFor(() => broker.bodies('/up/property', 'SIM0005')[0])) as {
      items: { ts: number; params: unknown }[];
    };
    expect(batch.items.map((i) => i.params)).toEqual([{ temperature: 2 }, { temperature: 3 }]);
    expect(batch.items.every((i) => typeof i.ts === 'number')).toBe(true);
    expect(d.bufferedCount).toBe(0);
    await d.close();
  });

  it('sends broken messages on demand: invalid JSON, schema violations, wrong topics', async () => {
    const d = new VirtualDevice({ ...identity, sn: 'SIM0006' }, { url: broker.url });
    await d.connect();
    await d.sendBad('json');
    await d.sendBad('schema');
    await d.sendBad('topic');
    await d.sendBad('topic');
    // status and config_get come first (this device has no info)
    const mine = await waitFor(() => {
      const m = broker.seen.filter((x) => x.clientId === 'SIM0006').slice(2, 6);
      return m.length === 4 && m;
    });
    expect(mine[0]!.topic).toBe('dev/pk_test/SIM0006/up/property');
    expect(() => JSON.parse(mine[0]!.payload)).toThrow();
    expect(mine[1]!.topic).toBe('dev/pk_test/SIM0006/up/property');
    const schemaBroken = JSON.parse(mine[1]!.payload) as { params?: unknown };
    expect(typeof schemaBroken.params === 'object' && schemaBroken.params !== null).toBe(false);
    // Topics a device may not publish to: an unknown kind, a down topic, another device's topic.
    const allowed = /^dev\/pk_test\/SIM0006\/up\/(property|info|status|config|config_get|cmd_reply|ota|raw)$/;
    expect(mine[2]!.topic).not.toMatch(allowed);
    expect(mine[3]!.topic).not.toMatch(allowed);
    expect(mine[2]!.topic).not.toBe(mine[3]!.topic);
    expect(d.stats.bad).toBe(4);
    await d.close();
  });

  // The bare Aedes 1.2 of test-broker.ts speaks 3.1.1 only; Cellhub's embedded broker takes --mqtt-version 5
  // through its MQTT 5 front (apps/server/src/gateway/mqtt5, tested there).
  it('works over MQTT on WebSocket', async () => {
    const d = new VirtualDevice(
      { ...identity, sn: 'SIM0007' },
      { url: broker.wsUrl, properties: () => ({ humidity: 50 }) },
    );
    await d.connect();
    await d.report();
    expect(broker.bodies('/up/property', 'SIM0007')).toHaveLength(1);
    await d.close();
  });
});
