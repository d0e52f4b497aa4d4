import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimProviderTestResult } from '@cellhub/contract/sim';
import { buildTestApp, errorOf, type TestApp } from '../../../test/app';
import { FakeOnelink } from '../../../test/sim-providers/onelink-fake';
import { api } from '../../../test/sim-test-support';

const DB = process.env.TEST_DB === 'postgres' ? 'PostgreSQL' : 'PGlite';

let t: TestApp;
let admin: string;
let inside: Server;
let insidePort: number;
let insideConnections = 0;
let closedPort: number;
const onelink = new FakeOnelink();

beforeAll(async () => {
  // An internal service on 127.0.0.1 that the test app was not told about: it must never see a connection.
  inside = createServer((_req, res) => res.end('{"status":"0","result":[{"token":"t","ttl":3600}]}'));
  inside.on('connection', () => insideConnections++);
  await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve));
  insidePort = (inside.address() as AddressInfo).port;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  await onelink.start();
  t = await buildTestApp({ config: { simSyncTickMs: 0 } });
  admin = await t.adminToken();
});
afterAll(async () => {
  await t?.close();
  await onelink.stop();
  inside.closeAllConnections();
  await new Promise((resolve) => inside.close(resolve));
});

async function provider(baseUrl: string): Promise<number> {
  const p = await api<{ id: number }>(t, admin, 'POST', '/api/card-admin/providers', {
    name: `guarded ${Math.random().toString(36).slice(2, 8)}`,
    kind: 'onelink',
    operator: 'china_mobile',
    sync_interval_min: 0,
    config: { appid: onelink.appid, password: onelink.password, base_url: baseUrl },
  });
  return p.id;
}

const testAction = (id: number) =>
  t.inject({ method: 'POST', url: `/api/card-admin/providers/${id}/test`, token: admin });

describe(`SIM provider base_url (${DB})`, () => {
  it('the test action refuses private and local base URLs with 400 / 40004, the same for open and closed ports', async () => {
    const answers: unknown[] = [];
    for (const baseUrl of [
      `http://127.0.0.1:${insidePort}/v5/ec`,
      `http://127.0.0.1:${closedPort}/v5/ec`,
      `http://localhost:${insidePort}/v5/ec`,
      `http://localhost:${closedPort}/v5/ec`,
      `http://2130706433:${insidePort}/v5/ec`,
      `http://[::ffff:127.0.0.1]:${insidePort}/v5/ec`,
      `http://[::1]:${insidePort}/v5/ec`,
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.8:8080/v5/ec',
    ]) {
      const res = await testAction(await provider(baseUrl));
      expect(res.statusCode, baseUrl).toBe(400);
      const body = errorOf(res);
      expect(body, baseUrl).toMatchObject({
        code: 40004,
        message: 'The target address is not allowed',
        details: [{ field: 'config.base_url', message: 'the URL points to a private or local address' }],
      });
      answers.push(body);
    }
    // Nothing in the answer tells an open port from a closed one.
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(insideConnections).toBe(0);
  });

  it('reaches an operator API that OUTBOUND_ALLOW names (here the test fake, as an on-premise host)', async () => {
    const id = await provider(onelink.baseUrl);
    expect(
      await api<SimProviderTestResult>(t, admin, 'POST', `/api/card-admin/providers/${id}/test`),
    ).toMatchObject({ ok: true, error_kind: null });
  });
});
