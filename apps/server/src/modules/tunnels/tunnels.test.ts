// Remote tunnels (issue 19) against the real server: devsim's tunnel code behind an MQTT device, a local HTTP server
// as the device's LAN, real sockets on 127.0.0.1 (tunnel ports from the 19600-19699 block).
import http from 'node:http';
import net from 'node:net';
import { eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TunnelDown, type TunnelItem, TUNNEL_HELLO } from '@cellhub/contract/tunnels';
import { VirtualDevice } from '../../../../devsim/src/device';
import { newTunnelStats, tunnelHandler } from '../../../../devsim/src/tunnel';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { connectDevice, createDevices, eventually, type TestDevice } from '../../test/gateway-test-kit';
import { auditLogs } from '../audit/audit.table';

let t: TestApp;
let owner: { uid: number; token: string; username: string };
let viewer: { token: string; username: string };
let controller: { token: string; username: string };
let stranger: { token: string };
let devs: TestDevice[];
let sim: VirtualDevice;
let manual: MqttClient;
/** `down/tunnel` messages the manual device (SN T-2) received; it answers only when a test says so. */
const manualDowns: TunnelDown[] = [];
let web: http.Server;
let webPort: number;
const stats = newTunnelStats();
const sockets: net.Socket[] = [];

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

const openTunnel = (sn: string, token: string, body: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: `/api/devices/${sn}/tunnels`, token, payload: body });

async function list(sn: string): Promise<TunnelItem[]> {
  const res = await t.inject({ method: 'GET', url: `/api/devices/${sn}/tunnels`, token: owner.token });
  expect(res.statusCode, res.body).toBe(200);
  return data<TunnelItem[]>(res);
}

const webBody = (sn: string) => ({
  name: 'PLC web',
  protocol: 'http',
  local_ip: '127.0.0.1',
  local_port: webPort,
  sn,
});

/** GET through `host:port`, a new connection each time. */
function get(address: string, path: string): Promise<{ status: number; body: string }> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port: Number(port), path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

/** A raw TCP connection; resolves when it is connected. */
function dial(port: number, localAddress?: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress });
    sockets.push(s);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

const closed = (s: net.Socket) =>
  new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

beforeAll(async () => {
  t = await buildTestApp({
    config: {
      tunnels: {
        port: 0,
        ports: { min: 19600, max: 19699 },
        address: '127.0.0.1',
        openTimeoutMs: 1500,
        idleMs: 60_000,
        maxMs: 600_000,
      },
    },
  });
  owner = await t.createUser('tunnelowner');
  viewer = await t.createUser('tunnelviewer');
  controller = await t.createUser('tunnelctl');
  stranger = await t.createUser('tunnelstranger');
  devs = await createDevices(t, owner.token, ['T-1', 'T-2']);
  for (const [who, right] of [
    [viewer, 'view'],
    [controller, 'control'],
  ] as const) {
    const res = await t.inject({
      method: 'POST',
      url: '/api/shares',
      token: owner.token,
      payload: { sns: ['T-1'], to: who.username, right },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  web = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`hello from the LAN: ${req.method} ${req.url}`);
  });
  await new Promise<void>((resolve) => web.listen(19690, '127.0.0.1', resolve));
  webPort = 19690;
  const url = `mqtt://127.0.0.1:${t.app.broker.port}`;
  const [d1, d2] = devs as [TestDevice, TestDevice];
  sim = new VirtualDevice(
    { sn: d1.sn, product_key: d1.productKey, secret: d1.secret },
    { url, configGet: false, handlers: { tunnel: tunnelHandler({}, stats) } },
  );
  await sim.connect();
  manual = await connectDevice(url, d2);
  await manual.subscribeAsync(`dev/${d2.productKey}/${d2.sn}/down/tunnel`, { qos: 1 });
  manual.on('message', (_topic, payload) => manualDowns.push(JSON.parse(payload.toString()) as TunnelDown));
  for (const sn of ['T-1', 'T-2'])
    await eventually(async () => {
      const res = await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token: owner.token });
      return data<{ online: number }>(res).online === 1 ? true : undefined;
    }, 8000);
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await sim?.close().catch(() => undefined);
  await manual?.endAsync().catch(() => undefined);
  await t?.close();
  await new Promise((resolve) => web?.close(resolve));
});

describe('remote tunnels', () => {
  it('carry an HTTP request to a server behind the device and back; the close button ends them', async () => {
    const res = await openTunnel('T-1', owner.token, webBody('T-1'));
    expect(res.statusCode, res.body).toBe(200);
    const tunnel = data<TunnelItem>(res);
    expect(tunnel).toMatchObject({ status: 'open', code: null, protocol: 'http', allowed_ip: '127.0.0.1' });
    const port = Number(tunnel.address?.split(':')[1]);
    expect(port).toBeGreaterThanOrEqual(19600);
    expect(port).toBeLessThanOrEqual(19699);

    // The first connection takes the spare the opening made; the second asks the device for a fresh one.
    expect(await get(tunnel.address!, '/status')).toEqual({
      status: 200,
      body: 'hello from the LAN: GET /status',
    });
    expect(await get(tunnel.address!, '/again')).toEqual({
      status: 200,
      body: 'hello from the LAN: GET /again',
    });
    expect(stats.opened).toBeGreaterThanOrEqual(2);

    const [item] = await list('T-1');
    expect(item).toMatchObject({ id: tunnel.id, status: 'open', connections: 2, opened_by: 'tunnelowner' });
    expect(item!.bytes_in).toBeGreaterThan(0);
    expect(item!.bytes_out).toBeGreaterThan(item!.bytes_in);

    const audit = await t.app.deps.db.select().from(auditLogs).where(eq(auditLogs.target, 'device:T-1'));
    expect(audit.find((a) => a.action === 'tunnel_open')?.detail).toMatchObject({
      tunnel: tunnel.id,
      local_port: webPort,
      allowed_ip: '127.0.0.1',
    });

    const close = await t.inject({
      method: 'POST',
      url: `/api/devices/T-1/tunnels/${tunnel.id}/close`,
      token: owner.token,
    });
    expect(close.statusCode, close.body).toBe(200);
    expect(data<TunnelItem>(close)).toMatchObject({ status: 'closed', reason: 'user' });
    expect(data<TunnelItem>(close).bytes_out).toBe(item!.bytes_out);
    await expect(dial(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const after = await t.app.deps.db.select().from(auditLogs).where(eq(auditLogs.action, 'tunnel_close'));
    expect(after.map((a) => a.uid)).toEqual([owner.uid]);
  });

  it('are for the owner and control shares: a view share and a stranger are refused', async () => {
    expect(errorOf(await openTunnel('T-1', stranger.token, webBody('T-1'))).code).toBe(10117);
    expect(errorOf(await openTunnel('T-1', viewer.token, webBody('T-1'))).code).toBe(10108);
    const viewList = await t.inject({ method: 'GET', url: '/api/devices/T-1/tunnels', token: viewer.token });
    expect(errorOf(viewList).code).toBe(10108);
    const res = await openTunnel('T-1', controller.token, webBody('T-1'));
    expect(res.statusCode, res.body).toBe(200);
    const tunnel = data<TunnelItem>(res);
    expect(tunnel.opened_by).toBe('tunnelctl');
    const strangerClose = await t.inject({
      method: 'POST',
      url: `/api/devices/T-1/tunnels/${tunnel.id}/close`,
      token: stranger.token,
    });
    expect(errorOf(strangerClose).code).toBe(10117);
    // A tunnel of another device is not found through this one.
    const wrong = await t.inject({
      method: 'POST',
      url: `/api/devices/T-2/tunnels/${tunnel.id}/close`,
      token: owner.token,
    });
    expect(errorOf(wrong).code).toBe(88001);
    const close = await t.inject({
      method: 'POST',
      url: `/api/devices/T-1/tunnels/${tunnel.id}/close`,
      token: controller.token,
    });
    expect(data<TunnelItem>(close).status).toBe('closed');
  });

  it('refuse bad input with a code', async () => {
    for (const body of [
      { name: 'x', local_ip: '192.168.1.300', local_port: 80 },
      { name: 'x', local_ip: '10.0.0.1', local_port: 70000 },
      { name: 'x\u0000', local_ip: '10.0.0.1', local_port: 80 },
      { name: 'x', protocol: 'udp', local_ip: '10.0.0.1', local_port: 80 },
    ]) {
      expect(errorOf(await openTunnel('T-1', owner.token, body)).code).toBe(10113);
    }
  });

  it('fail with 11016 when the device refuses (its LAN port is closed)', async () => {
    const res = await openTunnel('T-1', owner.token, {
      name: 'closed',
      local_ip: '127.0.0.1',
      local_port: 19691,
    });
    expect(errorOf(res)).toMatchObject({ code: 11016, details: { reason: 'refused', why: 'ECONNREFUSED' } });
    const [item] = await list('T-1');
    expect(item).toMatchObject({
      name: 'closed',
      status: 'failed',
      code: 11016,
      reason: 'refused',
      address: null,
    });
  });

  it('fail with 11016 when the device does not answer in time', async () => {
    const before = manualDowns.length;
    const res = await openTunnel('T-2', owner.token, {
      name: 'silent',
      local_ip: '10.0.0.5',
      local_port: 502,
    });
    expect(errorOf(res)).toMatchObject({ code: 11016, details: { reason: 'timeout' } });
    // It was asked, with a token valid for 60 s.
    const asked = manualDowns[before]!;
    expect(asked).toMatchObject({ host: '127.0.0.1', local_ip: '10.0.0.5', local_port: 502 });
    expect(asked.expires - Date.now()).toBeGreaterThan(50_000);
    // Its token died with the attempt: a late answer is refused.
    const late = await dial(asked.port);
    late.write(`${TUNNEL_HELLO} ${asked.token}\n`);
    await closed(late);
    expect((await list('T-2'))[0]).toMatchObject({ status: 'failed', code: 11016, reason: 'timeout' });
  });

  it('take each token once, and only from the opener address', async () => {
    const before = manualDowns.length;
    const opening = openTunnel('T-2', owner.token, { name: 'once', local_ip: '10.0.0.5', local_port: 23 });
    const down = await eventually(async () => manualDowns[before]);
    const first = await dial(down.port);
    first.write(`${TUNNEL_HELLO} ${down.token}\nbanner\n`);
    const res = await opening;
    expect(res.statusCode, res.body).toBe(200);
    const tunnel = data<TunnelItem>(res);
    const bad = t.app.tunnels.stats.badTokens;
    const again = await dial(down.port);
    again.write(`${TUNNEL_HELLO} ${down.token}\n`);
    await closed(again);
    expect(t.app.tunnels.stats.badTokens).toBe(bad + 1);
    expect(first.destroyed).toBe(false);

    // Another address (127.0.0.2 is this machine too) is turned away before anything is asked of the device.
    const port = Number(tunnel.address!.split(':')[1]);
    const asked = manualDowns.length;
    const other = await dial(port, '127.0.0.2');
    await closed(other);
    expect(t.app.tunnels.counts(tunnel.id)?.refused).toBe(1);
    expect(manualDowns.length).toBe(asked);

    // The opener's connection gets the spare: the device's banner arrives, and bytes go through both ways.
    const user = await dial(port);
    const banner = await new Promise<string>((resolve) =>
      user.once('data', (d: Buffer) => resolve(d.toString())),
    );
    expect(banner).toBe('banner\n');
    user.write('ping');
    const ping = await new Promise<string>((resolve) =>
      first.on('data', (d: Buffer) => resolve(d.toString())),
    );
    expect(ping).toBe('ping');
    await t.inject({
      method: 'POST',
      url: `/api/devices/T-2/tunnels/${tunnel.id}/close`,
      token: owner.token,
    });
    await closed(user);
    await closed(first);
  });

  it('refuse an expired token', async () => {
    const before = manualDowns.length;
    const opening = openTunnel('T-2', owner.token, { name: 'expired', local_ip: '10.0.0.5', local_port: 23 });
    const down = await eventually(async () => manualDowns[before]);
    t.clock.advance(61_000);
    const s = await dial(down.port);
    s.write(`${TUNNEL_HELLO} ${down.token}\n`);
    await closed(s);
    expect(errorOf(await opening)).toMatchObject({ code: 11016, details: { reason: 'timeout' } });
  });

  it("close when the opener's control share is reduced to view", async () => {
    const res = await openTunnel('T-1', controller.token, webBody('T-1'));
    expect(res.statusCode, res.body).toBe(200);
    const tunnel = data<TunnelItem>(res);
    const outgoing = await t.inject({ method: 'GET', url: '/api/shares/outgoing', token: owner.token });
    const share = data<{ id: number; to_username: string; right: string }[]>(outgoing).find(
      (x) => x.to_username === controller.username,
    );
    expect(share?.right).toBe('control');
    const put = await t.inject({
      method: 'PUT',
      url: `/api/shares/${share!.id}`,
      token: owner.token,
      payload: { right: 'view' },
    });
    expect(put.statusCode, put.body).toBe(200);
    const item = await eventually(async () => {
      const found = (await list('T-1')).find((x) => x.id === tunnel.id);
      return found?.status === 'closed' ? found : undefined;
    }, 8000);
    expect(item.reason).toBe('revoked');
    await expect(dial(Number(tunnel.address!.split(':')[1]))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('close when idle', async () => {
    t.app.deps.config.tunnels.idleMs = 600;
    try {
      const res = await openTunnel('T-1', owner.token, webBody('T-1'));
      expect(res.statusCode, res.body).toBe(200);
      const tunnel = data<TunnelItem>(res);
      expect(await get(tunnel.address!, '/once')).toMatchObject({ status: 200 });
      const item = await eventually(async () => {
        const found = (await list('T-1')).find((x) => x.id === tunnel.id);
        return found?.status === 'closed' ? found : undefined;
      }, 8000);
      expect(item).toMatchObject({ reason: 'idle', connections: 1 });
      expect(item.bytes_in).toBeGreaterThan(0);
      await expect(dial(Number(tunnel.address!.split(':')[1]))).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    } finally {
      t.app.deps.config.tunnels.idleMs = 60_000;
    }
  });
});
