import { BROKER_HOOK_SECRET_HEADER } from '@cellhub/contract/broker-auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/app';
import { createDevices, hmacPassword, type TestDevice } from '../../test/gateway-test-kit';

const SECRET = 'emqx-hook-secret-0123456789';

/**
 * The EMQX HTTP hooks over real HTTP on 127.0.0.1, with the request bodies docs/external-brokers.md has EMQX send
 * (a local client playing EMQX).
 */
describe('EMQX HTTP auth hooks', () => {
  let t: TestApp;
  let base: string;
  let a: TestDevice;
  let b: TestDevice;
  let token: string;

  /** `secret` null: no header at all. */
  const post = (path: string, body: unknown, secret: string | null = SECRET) =>
    fetch(`${base}/api/broker-auth/emqx/${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret === null ? {} : { [BROKER_HOOK_SECRET_HEADER]: secret }),
      },
      body: JSON.stringify(body),
    });
  const authn = async (body: Record<string, unknown>) => {
    const r = await post('authn', { peerhost: '10.0.0.9', ...body });
    expect(r.status).toBe(200);
    return (await r.json()) as { result: string; is_superuser: boolean };
  };
  const authz = async (d: TestDevice, action: string, topic: string, extra: Record<string, unknown> = {}) => {
    const r = await post('authz', {
      clientid: d.sn,
      username: d.sn,
      peerhost: '10.0.0.9',
      action,
      topic,
      qos: '1',
      retain: 'false',
      ...extra,
    });
    expect(r.status).toBe(200);
    return ((await r.json()) as { result: string }).result;
  };

  beforeAll(async () => {
    t = await buildTestApp({
      config: {
        brokerAuth: {
          hookSecret: SECRET,
          dynsec: { enabled: false, reconcileMs: 3_600_000 },
        },
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
    token = (await t.createUser()).token;
    [a, b] = (await createDevices(t, token, ['EMQX-A', 'EMQX-B'])) as [TestDevice, TestDevice];
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('answers 401 without the shared secret or with a wrong one, before reading the body', async () => {
    for (const secret of [null, 'wrong-secret-0123456789', '', SECRET.slice(1)]) {
      const r = await post('authn', { clientid: a.sn, username: a.sn, password: a.secret }, secret);
      expect(r.status).toBe(401);
      expect(((await r.json()) as { code: number }).code).toBe(10108);
      const z = await post('authz', { nothing: 'valid' }, secret);
      expect(z.status).toBe(401);
    }
  });

  it('authenticates a device as the embedded broker does', async () => {
    expect(await authn({ clientid: a.sn, username: a.sn, password: a.secret })).toEqual({
      result: 'allow',
      is_superuser: false,
    });
    expect(
      (await authn({ clientid: a.sn, username: a.sn, password: hmacPassword(a, Date.now()) })).result,
    ).toBe('allow');
    expect((await authn({ clientid: a.sn, username: a.sn, password: b.secret })).result).toBe('deny');
    expect((await authn({ clientid: a.sn, username: a.sn })).result).toBe('deny');
    expect((await authn({ clientid: b.sn, username: a.sn, password: a.secret })).result).toBe('deny');
    // An hmac password outside its 15 minutes.
    const stale = hmacPassword(a, Date.now() - 16 * 60_000);
    expect((await authn({ clientid: a.sn, username: a.sn, password: stale })).result).toBe('deny');
  });

  it('ignores usernames that are no device, so the broker asks its next authenticator', async () => {
    expect(await authn({ clientid: 'cellhub-1', username: 'cellhub-server', password: 'x' })).toEqual({
      result: 'ignore',
      is_superuser: false,
    });
    expect((await authn({ clientid: 'anon' })).result).toBe('ignore');
  });

  it('authorises a device to its own topics only', async () => {
    const own = `dev/${a.productKey}/${a.sn}`;
    const other = `dev/${b.productKey}/${b.sn}`;
    expect(await authz(a, 'publish', `${own}/up/property`)).toBe('allow');
    expect(await authz(a, 'publish', `${own}/up/raw`)).toBe('allow');
    expect(await authz(a, 'publish', `${other}/up/property`)).toBe('deny');
    expect(await authz(a, 'publish', `${own}/down/cmd`)).toBe('deny');
    expect(await authz(a, 'publish', 'anything/else')).toBe('deny');
    expect(await authz(a, 'subscribe', `${own}/down/#`)).toBe('allow');
    expect(await authz(a, 'subscribe', `${own}/down/cmd`)).toBe('allow');
    expect(await authz(a, 'subscribe', `${other}/down/#`)).toBe('deny');
    expect(await authz(a, 'subscribe', `${own}/up/#`)).toBe('deny');
    expect(await authz(a, 'subscribe', '#')).toBe('deny');
    expect(await authz(a, 'subscribe', `$share/g/${own}/down/#`)).toBe('deny');
    // The clientid must be the device's sn, as at connect.
    expect(await authz(a, 'publish', `${own}/up/property`, { clientid: 'other' })).toBe('deny');
    const r = await post('authz', {
      clientid: 'x',
      username: 'cellhub-server',
      action: 'subscribe',
      topic: '#',
    });
    expect(((await r.json()) as { result: string }).result).toBe('ignore');
  });

  it('denies a disabled device at connect and on every topic; enabled again, it is allowed', async () => {
    let r = await t.inject({
      method: 'PUT',
      url: `/api/devices/${b.sn}`,
      token,
      payload: { disabled: true },
    });
    expect(r.statusCode).toBe(200);
    expect((await authn({ clientid: b.sn, username: b.sn, password: b.secret })).result).toBe('deny');
    expect(await authz(b, 'publish', `dev/${b.productKey}/${b.sn}/up/property`)).toBe('deny');
    r = await t.inject({ method: 'PUT', url: `/api/devices/${b.sn}`, token, payload: { disabled: false } });
    expect(r.statusCode).toBe(200);
    expect((await authn({ clientid: b.sn, username: b.sn, password: b.secret })).result).toBe('allow');
  });

  it('rejects a malformed body with 10113 when the secret is right', async () => {
    const r = await post('authz', { clientid: a.sn, username: a.sn, action: 'delete', topic: 't' });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: number }).code).toBe(10113);
  });
});

describe('EMQX HTTP auth hooks without BROKER_HOOK_SECRET', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers every call 401, whatever header is sent', async () => {
    for (const headers of [{}, { [BROKER_HOOK_SECRET_HEADER]: 'anything-at-all-0123' }]) {
      const r = await t.inject({
        method: 'POST',
        url: '/api/broker-auth/emqx/authn',
        headers,
        payload: { clientid: 'a', username: 'a', password: 'b' },
      });
      expect(r.statusCode).toBe(401);
    }
  });
});
