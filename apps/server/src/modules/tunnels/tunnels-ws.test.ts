// WebSocket tunnels (issue 19, docs/tunnels.md): the far port exposed at a WebSocket path on the server's own HTTP
// port. devsim's tunnel code behind an MQTT device, a local HTTP server as the device's LAN, real sockets on
// 127.0.0.1 (LAN server on 19790; tunnel ports from the 19700-19789 block, unused by ws tunnels).
import http from 'node:http';
import net from 'node:net';
import { eq } from 'drizzle-orm';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TunnelItem } from '@cellhub/contract/tunnels';
import { VirtualDevice } from '../../../../devsim/src/device';
import { newTunnelStats, tunnelHandler } from '../../../../devsim/src/tunnel';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { createDevices, eventually, type TestDevice } from '../../test/gateway-test-kit';
import { auditLogs } from '../audit/audit.table';
import { deviceShares } from '../shares/shares.table';
import { users } from '../users/users.table';

let t: TestApp;
let origin: string;
let owner: { uid: number; token: string; username: string };
let viewer: { token: string; username: string };
let controller: { token: string; username: string };
let stranger: { token: string };
let sim: VirtualDevice;
let web: http.Server;
const WEB_PORT = 19790;
const stats = newTunnelStats();
const clients: WebSocket[] = [];

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

/** Opens a tunnel as if the console at `origin` asked (the Host header names where the ws path is served). */
const openTunnel = (token: string, body: Record<string, unknown>) =>
  t.inject({
    method: 'POST',
    url: '/api/devices/W-1/tunnels',
    token,
    headers: { host: new URL(origin).host },
    payload: { name: 'PLC web', protocol: 'http', local_ip: '127.0.0.1', local_port: WEB_PORT, ...body },
  });

async function openWs(token = owner.token): Promise<TunnelItem> {
  const res = await openTunnel(token, { exposure: 'ws' });
  expect(res.statusCode, res.body).toBe(200);
  return data<TunnelItem>(res);
}

async function find(id: number): Promise<TunnelItem | undefined> {
  const res = await t.inject({ method: 'GET', url: '/api/devices/W-1/tunnels', token: owner.token });
  expect(res.statusCode, res.body).toBe(200);
  return data<TunnelItem[]>(res).find((x) => x.id === id);
}

const closeTunnel = (id: number) =>
  t.inject({ method: 'POST', url: `/api/devices/W-1/tunnels/${id}/close`, token: owner.token });

/** A WebSocket client that keeps every byte received; `ended` resolves with them when it closes. */
interface Client {
  ws: WebSocket;
  received: Buffer[];
  ended: Promise<{ code: number; reason: string; bytes: Buffer }>;
}

function connect(url: string, localAddress?: string): Promise<Client> {
  const ws = new WebSocket(url, { localAddress });
  clients.push(ws);
  const received: Buffer[] = [];
  ws.on('message', (d: Buffer, isBinary) => {
    expect(isBinary).toBe(true);
    received.push(d);
  });
  const ended = new Promise<{ code: number; reason: string; bytes: Buffer }>((resolve) =>
    ws.on('close', (code, reason) =>
      resolve({ code, reason: reason.toString(), bytes: Buffer.concat(received) }),
    ),
  );
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, received, ended }));
    ws.once('error', reject);
  });
}

/** A raw HTTP/1.1 exchange straight to the LAN server: what the tunnel must reproduce byte for byte. */
function direct(request: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port: WEB_PORT }, () => s.write(request));
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => resolve(Buffer.concat(chunks)));
    s.on('error', reject);
  });
}

/** Every byte value, so nothing is treated as text on the way. */
const BINARY = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256));

const request = (path: string, connection: 'close' | 'keep-alive') =>
  Buffer.concat([
    Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: plc.lan\r\nContent-Type: application/octet-stream\r\n` +
        `Content-Length: ${BINARY.length}\r\nConnection: ${connection}\r\n\r\n`,
    ),
    BINARY,
  ]);

beforeAll(async () => {
  t = await buildTestApp({
    config: {
      tunnels: {
        port: 0,
        ports: { min: 19700, max: 19789 },
        address: '127.0.0.1',
        openTimeoutMs: 1500,
        idleMs: 60_000,
        maxMs: 600_000,
      },
    },
  });
  origin = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace(/^http/, 'ws');
  owner = await t.createUser('wstunnelowner');
  viewer = await t.createUser('wstunnelviewer');
  controller = await t.createUser('wstunnelctl');
  stranger = await t.createUser('wstunnelstranger');
  const [dev] = (await createDevices(t, owner.token, ['W-1'])) as [TestDevice];
  for (const [who, right] of [
    [viewer, 'view'],
    [controller, 'control'],
  ] as const) {
    const res = await t.inject({
      method: 'POST',
      url: '/api/shares',
      token: owner.token,
      payload: { sns: ['W-1'], to: who.username, right },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  // The LAN's web server echoes the body after a line naming the request; no Date header, so answers compare exactly.
  web = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.sendDate = false;
      res.setHeader('content-type', 'application/octet-stream');
      res.end(Buffer.concat([Buffer.from(`${req.method} ${req.url}\n`), ...chunks]));
    });
  });
  await new Promise<void>((resolve) => web.listen(WEB_PORT, '127.0.0.1', resolve));
  sim = new VirtualDevice(
    { sn: dev.sn, product_key: dev.productKey, secret: dev.secret },
    {
      url: `mqtt://127.0.0.1:${t.app.broker.port}`,
      configGet: false,
      handlers: { tunnel: tunnelHandler({}, stats) },
    },
  );
  await sim.connect();
  await eventually(async () => {
    const res = await t.inject({ method: 'GET', url: '/api/devices/W-1', token: owner.token });
    return data<{ online: number }>(res).online === 1 ? true : undefined;
  }, 8000);
});

afterAll(async () => {
  for (const c of clients) c.terminate();
  await sim?.close().catch(() => undefined);
  await t?.close();
  await new Promise((resolve) => web?.close(resolve));
});

describe('WebSocket tunnels', () => {
  it('carry an HTTP request byte for byte to a server behind the device and back', async () => {
    const tunnel = await openWs();
    expect(tunnel).toMatchObject({
      status: 'open',
      exposure: 'ws',
      protocol: 'http',
      allowed_ip: '127.0.0.1',
    });
    const url = new URL(tunnel.address!);
    expect(`${url.protocol}//${url.host}`).toBe(origin);
    expect(url.pathname).toMatch(new RegExp(`^/api/tunnels/${tunnel.id}/ws/[\\w-]{32}$`));

    const req = request('/plc/status', 'close');
    const expected = await direct(req);
    expect(expected.subarray(expected.length - BINARY.length).equals(BINARY)).toBe(true);
    // The first connection takes the opening's spare, the second asks the device for a fresh reverse connection;
    // the request is split across frames to show frames are a byte stream, not messages.
    for (let i = 0; i < 2; i += 1) {
      const opened = stats.opened;
      const c = await connect(tunnel.address!);
      c.ws.send(req.subarray(0, 10));
      c.ws.send(req.subarray(10));
      const { code, bytes } = await c.ended;
      expect(bytes.equals(expected)).toBe(true);
      expect(code).toBe(1000);
      if (i === 1) expect(stats.opened).toBe(opened + 1);
    }

    const item = await find(tunnel.id);
    expect(item).toMatchObject({ status: 'open', connections: 2, address: tunnel.address });
    expect(item!.bytes_in).toBe(2 * req.length);
    expect(item!.bytes_out).toBe(2 * expected.length);
    const audit = await t.app.deps.db.select().from(auditLogs).where(eq(auditLogs.target, 'device:W-1'));
    expect(audit.find((a) => a.action === 'tunnel_open')?.detail).toMatchObject({
      tunnel: tunnel.id,
      exposure: 'ws',
      allowed_ip: '127.0.0.1',
    });

    const close = await closeTunnel(tunnel.id);
    expect(data<TunnelItem>(close)).toMatchObject({
      status: 'closed',
      reason: 'user',
      bytes_out: 2 * expected.length,
      // History keeps where it was, without its secret.
      address: `${origin}/api/tunnels/${tunnel.id}/ws`,
    });
    await expect(connect(tunnel.address!)).rejects.toThrow(/400/);
  });

  it('are served at PUBLIC_URL when it is set, whatever Host the request named', async () => {
    const config = t.app.deps.config;
    const saved = { publicUrl: config.publicUrl, publicUrlSet: config.publicUrlSet };
    Object.assign(config, { publicUrl: 'https://hub.example.com/cellhub', publicUrlSet: true });
    try {
      const res = await t.inject({
        method: 'POST',
        url: '/api/devices/W-1/tunnels',
        token: owner.token,
        headers: { host: 'attacker.example' },
        payload: {
          name: 'PLC',
          protocol: 'http',
          local_ip: '127.0.0.1',
          local_port: WEB_PORT,
          exposure: 'ws',
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      const tunnel = data<TunnelItem>(res);
      expect(tunnel.address).toMatch(
        new RegExp(`^wss://hub\\.example\\.com/cellhub/api/tunnels/${tunnel.id}/ws/[\\w-]{32}$`),
      );
      expect(data<TunnelItem>(await closeTunnel(tunnel.id)).address).toBe(
        `wss://hub.example.com/cellhub/api/tunnels/${tunnel.id}/ws`,
      );
    } finally {
      Object.assign(config, saved);
    }
  });

  it('turn away another address, a wrong secret and a plain GET, before asking the device', async () => {
    const tunnel = await openWs();
    const opened = stats.opened;
    // 127.0.0.2 is this machine too, but not the opener's address.
    await expect(connect(tunnel.address!, '127.0.0.2')).rejects.toThrow(/400/);
    expect(t.app.tunnels.counts(tunnel.id)?.refused).toBe(1);
    const wrong = tunnel.address!.replace(/[\w-]$/, (ch) => (ch === 'A' ? 'B' : 'A'));
    await expect(connect(wrong)).rejects.toThrow(/400/);
    await expect(connect(tunnel.address!.replace(/\/ws\/.*/, '/ws/x'))).rejects.toThrow(/400/);
    await expect(
      connect(tunnel.address!.replace(`/tunnels/${tunnel.id}/`, '/tunnels/99999/')),
    ).rejects.toThrow(/400/);
    const plain = await t.inject({ method: 'GET', url: new URL(tunnel.address!).pathname });
    expect(errorOf(plain).code).toBe(10113);
    expect(stats.opened).toBe(opened);
    // The right one still works after all that.
    const c = await connect(tunnel.address!);
    c.ws.send(request('/after', 'close'));
    expect((await c.ended).bytes.toString('latin1')).toContain('POST /after');
    await closeTunnel(tunnel.id);
  });

  it('are for the owner and control shares, and each connection asks the opener right again', async () => {
    expect(errorOf(await openTunnel(stranger.token, { exposure: 'ws' })).code).toBe(10117);
    expect(errorOf(await openTunnel(viewer.token, { exposure: 'ws' })).code).toBe(10108);
    const tunnel = await openWs(controller.token);
    expect(tunnel.opened_by).toBe('wstunnelctl');
    // Reduced to view behind the service's back (no share.changed event): the next connection finds out.
    const [ctl] = await t.app.deps.db.select().from(users).where(eq(users.username, controller.username));
    await t.app.deps.db
      .update(deviceShares)
      .set({ right: 'view' })
      .where(eq(deviceShares.granteeUid, ctl!.id));
    try {
      await expect(connect(tunnel.address!)).rejects.toThrow(/400/);
      expect(await find(tunnel.id)).toMatchObject({ status: 'closed', reason: 'revoked' });
    } finally {
      await t.app.deps.db
        .update(deviceShares)
        .set({ right: 'control' })
        .where(eq(deviceShares.granteeUid, ctl!.id));
    }
  });

  it('close when idle, ending the connections still open', async () => {
    t.app.deps.config.tunnels.idleMs = 600;
    try {
      const tunnel = await openWs();
      const c = await connect(tunnel.address!);
      c.ws.send(request('/keep', 'keep-alive'));
      // The answer arrives and the connection stays open (keep-alive), then nothing moves either way.
      await eventually(async () =>
        Buffer.concat(c.received).toString('latin1').includes('POST /keep') ? true : undefined,
      );
      expect(await c.ended).toMatchObject({ code: 1001, reason: 'idle' });
      const item = await eventually(async () => {
        const found = await find(tunnel.id);
        return found?.status === 'closed' ? found : undefined;
      }, 8000);
      expect(item).toMatchObject({ reason: 'idle', connections: 1 });
      expect(item.bytes_in).toBe(request('/keep', 'keep-alive').length);
      await expect(connect(tunnel.address!)).rejects.toThrow(/400/);
    } finally {
      t.app.deps.config.tunnels.idleMs = 60_000;
    }
  });
});
