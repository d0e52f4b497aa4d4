import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CellhubApi, ensureFleet } from './api-client';

// A stand-in for the Cellhub API with the shapes of CONTRACT.md: envelope, Bearer token, paging, 429.
const devices = new Map<string, { sn: string; product_key: string; secret: string }>();
const calls: string[] = [];
let limitedOnce = false;
let server: Server;
let base: string;

const body = async (req: IncomingMessage) => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as Record<string, unknown>;
};

beforeAll(async () => {
  devices.set('SIM000001', { sn: 'SIM000001', product_key: 'pk_demo', secret: 'secret-1' });
  devices.set('OTHER1', { sn: 'OTHER1', product_key: 'pk_other', secret: 'secret-o' });
  server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      calls.push(`${req.method} ${url.pathname}`);
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (url.pathname === '/api/auth/login') {
        const b = await body(req);
        if (b.password !== 'pw') return send(400, { code: 10001, message: 'wrong password' });
        return send(200, { status: true, data: { token: 'tok', uid: 1, issuper: true } });
      }
      if (req.headers.authorization !== 'Bearer tok')
        return send(403, { code: 10102, message: 'not signed in' });
      if (req.method === 'GET' && url.pathname === '/api/devices') {
        const pk = url.searchParams.get('product_key');
        const perPage = Math.min(2, Number(url.searchParams.get('per_page'))); // a server whose pages are smaller than asked
        const current = Number(url.searchParams.get('current'));
        const all = [...devices.values()]
          .filter((d) => d.product_key === pk)
          .map(({ sn, product_key }) => ({ sn, product_key }));
        return send(200, {
          status: true,
          data: all.slice((current - 1) * perPage, current * perPage),
          total: all.length,
        });
      }
      if (req.method === 'POST' && url.pathname === '/api/devices') {
        const b = (await body(req)) as { product_key: string; sn: string[] };
        for (const sn of b.sn) {
          if (devices.has(sn)) return send(400, { code: 40001, message: `${sn} exists` });
          devices.set(sn, { sn, product_key: b.product_key, secret: `secret-${sn}` });
        }
        return send(200, { status: true, data: null });
      }
      const m = /^\/api\/devices\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && m) {
        if (!limitedOnce) {
          limitedOnce = true;
          res.writeHead(429, { 'retry-after': '0.05', 'content-type': 'application/json' });
          return res.end(JSON.stringify({ code: 10110, message: 'too many requests' }));
        }
        const d = devices.get(decodeURIComponent(m[1]!));
        return d
          ? send(200, { status: true, data: d })
          : send(400, { code: 40002, message: 'no such device' });
      }
      send(404, { code: 10106, message: 'no route' });
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

describe('Cellhub API client', () => {
  it('refuses a wrong password with the server message', async () => {
    const api = new CellhubApi(base);
    await expect(api.login('admin', 'nope')).rejects.toThrow(/HTTP 400 code 10001 wrong password/);
  });

  it('creates only the missing devices, waits out 429 and returns every secret', async () => {
    const api = new CellhubApi(base);
    await api.login('admin', 'pw');
    calls.length = 0;
    const ids = await ensureFleet(api, 'pk_demo', 3, 'SIM');
    expect(ids).toEqual([
      { sn: 'SIM000001', product_key: 'pk_demo', secret: 'secret-1' },
      { sn: 'SIM000002', product_key: 'pk_demo', secret: 'secret-SIM000002' },
      { sn: 'SIM000003', product_key: 'pk_demo', secret: 'secret-SIM000003' },
    ]);
    expect(calls.filter((c) => c === 'POST /api/devices')).toHaveLength(1);
    expect(limitedOnce).toBe(true);

    // A second run finds all three (over two pages, as the server caps per_page) and creates nothing.
    calls.length = 0;
    expect(await ensureFleet(api, 'pk_demo', 3, 'SIM')).toHaveLength(3);
    expect(calls.filter((c) => c === 'GET /api/devices')).toHaveLength(2);
    expect(calls).not.toContain('POST /api/devices');
  });
});
