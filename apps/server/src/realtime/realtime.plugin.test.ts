import { EventEmitter } from 'node:events';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { DeviceEvent } from '@cellhub/contract/realtime';
import { WS_CLOSE } from '@cellhub/contract/realtime';
import { buildTestApp, errorOf, type TestApp } from '../test/app';
import { eventually } from '../test/gateway-test-kit';
import { listenUrl, openSocket, signedInSocket, type TestSocket } from '../test/ws-test-client';

const online = (sn: string, on: 0 | 1 = 1): DeviceEvent => ({
  type: 'device.online',
  sn,
  product_key: 'pk1',
  online: on,
  at: new Date().toISOString(),
});

let t: TestApp;
let url: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let adminToken: string;
const open: TestSocket[] = [];
const track = (s: TestSocket) => (open.push(s), s);

beforeAll(async () => {
  t = await buildTestApp();
  url = await listenUrl(t.app);
  a = await t.createUser();
  b = await t.createUser();
  adminToken = await t.adminToken();
});
afterAll(async () => {
  for (const s of open) s.close();
  await t.close();
});

describe('/api/ws sign-in', () => {
  it('closes a socket that sends no auth within 5 s (4401)', async () => {
    const s = track(await openSocket(url));
    const started = Date.now();
    const { code } = await s.closed;
    expect(code).toBe(WS_CLOSE.unauthorized);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
  }, 10_000);

  it('closes a socket whose first message is not auth (4401)', async () => {
    const s = track(await openSocket(url));
    s.send({ type: 'subscribe', sns: null });
    expect((await s.closed).code).toBe(WS_CLOSE.unauthorized);
    expect((await s.next('error')).code).toBe(10102);
  });

  it('closes a socket with a wrong token (4401) and one whose token was already revoked', async () => {
    const s = track(await openSocket(url));
    s.send({ type: 'auth', token: 'not-a-token' });
    expect((await s.closed).code).toBe(WS_CLOSE.unauthorized);

    const c = await t.createUser();
    await t.inject({ method: 'POST', url: '/api/auth/logout', token: c.token });
    const r = track(await openSocket(url));
    r.send({ type: 'auth', token: c.token });
    expect((await r.closed).code).toBe(WS_CLOSE.unauthorized);
  });

  it('closes an open socket when its session is signed out (4403)', async () => {
    const c = await t.createUser();
    const s = track(await signedInSocket(url, c.token));
    const other = track(await signedInSocket(url, a.token));
    await t.inject({ method: 'POST', url: '/api/auth/logout', token: c.token });
    await t.app.realtime.checkSessions();
    expect((await s.closed).code).toBe(WS_CLOSE.revoked);
    // Other users' sockets stay.
    other.send({ type: 'ping', id: 7 });
    expect((await other.next('pong', (m) => m.id === 7)).id).toBe(7);
  });

  it('closes the socket at once when its session signs out, without waiting for the periodic check', async () => {
    const c = await t.createUser();
    const s = track(await signedInSocket(url, c.token));
    const started = Date.now();
    await t.inject({ method: 'POST', url: '/api/auth/logout', token: c.token });
    expect((await s.closed).code).toBe(WS_CLOSE.revoked);
    // The periodic check runs every 10 s; this must not have waited for it.
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await s.next('error')).message).toBe('session ended');
  });

  it('closes the sockets of a user at once on password change and when an admin disables the account', async () => {
    const c = await t.createUser();
    const s = track(await signedInSocket(url, c.token));
    const started = Date.now();
    const changed = await t.inject({
      method: 'PUT',
      url: '/api/user/password',
      token: c.token,
      payload: { old_password: 'User1234', new_password: 'Newpass123', confirm_password: 'Newpass123' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await s.closed).code).toBe(WS_CLOSE.revoked);
    expect(Date.now() - started).toBeLessThan(2000);

    const again = await t.login(c.username, 'Newpass123');
    const s2 = track(await signedInSocket(url, again.token));
    const admin = await t.adminToken();
    const disabled = await t.inject({ method: 'PUT', url: `/api/users/${c.uid}/disable`, token: admin });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect((await s2.closed).code).toBe(WS_CLOSE.revoked);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('closes every socket of a user whose sessions all ended (password change, disable), and no other', async () => {
    const c = await t.createUser();
    const s1 = track(await signedInSocket(url, c.token));
    const second = await t.login(c.username, 'User1234');
    const s2 = track(await signedInSocket(url, second.token));
    const other = track(await signedInSocket(url, a.token));
    t.app.deps.events.sessionsEnded({ uid: c.uid });
    expect((await s1.closed).code).toBe(WS_CLOSE.revoked);
    expect((await s2.closed).code).toBe(WS_CLOSE.revoked);
    other.send({ type: 'ping', id: 8 });
    expect((await other.next('pong', (m) => m.id === 8)).id).toBe(8);
  });

  it('answers a plain GET (no upgrade) with 400', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/ws' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(10113);
  });
});

describe('/api/ws events', () => {
  it("delivers a device's events to its owner and admins only", async () => {
    const sa = track(await signedInSocket(url, a.token));
    const sb = track(await signedInSocket(url, b.token));
    const sadmin = track(await signedInSocket(url, adminToken));

    t.app.deps.events.publish(online('A-1'), { uid: a.uid });
    t.app.deps.events.publish(online('B-1'), { uid: b.uid });
    t.app.deps.events.publish(online('NOBODY-1'), { uid: null });

    expect((await sa.next('event')).event.sn).toBe('A-1');
    // B's own event arrives after A's was published; had A's been sent to B it would be before it.
    await sb.next('event', (m) => m.event.sn === 'B-1');
    await sadmin.next('event', (m) => m.event.sn === 'NOBODY-1');
    // A late straggler would still show up here.
    sb.send({ type: 'ping', id: 1 });
    await sb.next('pong');
    sa.send({ type: 'ping', id: 1 });
    await sa.next('pong');

    expect(
      sb.messages.filter((m) => m.type === 'event').map((m) => m.type === 'event' && m.event.sn),
    ).toEqual(['B-1']);
    expect(
      sa.messages.filter((m) => m.type === 'event').map((m) => m.type === 'event' && m.event.sn),
    ).toEqual(['A-1']);
    expect(
      sadmin.messages.filter((m) => m.type === 'event').map((m) => m.type === 'event' && m.event.sn),
    ).toEqual(['A-1', 'B-1', 'NOBODY-1']);
  });

  it('narrows the stream to the subscribed serial numbers and widens it again with null', async () => {
    const s = track(await signedInSocket(url, a.token));
    s.send({ type: 'subscribe', sns: ['A-2'] });
    await s.next('subscribed');
    t.app.deps.events.publish(online('A-1'), { uid: a.uid });
    t.app.deps.events.publish(online('A-2'), { uid: a.uid });
    await s.next('event', (m) => m.event.sn === 'A-2');
    s.send({ type: 'subscribe', sns: null });
    await s.next('subscribed', (m) => m.sns === null);
    t.app.deps.events.publish(online('A-3'), { uid: a.uid });
    await s.next('event', (m) => m.event.sn === 'A-3');
    const sns = s.messages.flatMap((m) => (m.type === 'event' ? [m.event.sn] : []));
    expect(sns).toEqual(['A-2', 'A-3']);
  });

  it('merges a burst of property reports of one device into one event', async () => {
    const s = track(await signedInSocket(url, a.token));
    for (let i = 0; i < 50; i++) {
      t.app.deps.events.publish(
        {
          type: 'device.properties',
          sn: 'A-9',
          product_key: 'pk1',
          ts: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
          values: i % 2 ? { temp: i } : { hum: i },
        },
        { uid: a.uid },
      );
    }
    const { event } = await s.next('event', (m) => m.event.sn === 'A-9');
    expect(event).toMatchObject({ ts: '2025-01-01T00:00:49.000Z', values: { temp: 49, hum: 48 } });
    s.send({ type: 'ping' });
    await s.next('pong');
    expect(s.messages.filter((m) => m.type === 'event')).toHaveLength(1);
  });

  it('answers a malformed message with an error and keeps the socket', async () => {
    const s = track(await signedInSocket(url, a.token));
    s.send('{not json');
    expect((await s.next('error')).code).toBe(10113);
    s.send({ type: 'ping', id: 3 });
    await s.next('pong', (m) => m.id === 3);
  });

  /** A socket the test controls completely, signed in as A. */
  async function fakeSocket() {
    const sent: string[] = [];
    const fake = Object.assign(new EventEmitter(), {
      readyState: WebSocket.OPEN as number,
      bufferedAmount: 0,
      pings: 0,
      terminated: false,
      send: (text: string) => sent.push(text),
      close: () => undefined,
      terminate: () => {
        fake.terminated = true;
        fake.readyState = WebSocket.CLOSED;
      },
      ping: () => {
        fake.pings++;
      },
    });
    const request = { ip: '127.0.0.1', headers: {} } as unknown as FastifyRequest;
    t.app.realtime.accept(fake as unknown as WebSocket, request);
    fake.emit('message', Buffer.from(JSON.stringify({ type: 'auth', token: a.token })), false);
    await expect.poll(() => sent.some((m) => m.includes('"ready"'))).toBe(true);
    return { fake, sent };
  }

  it('cuts a socket that misses a heartbeat and keeps one that answers', async () => {
    const { fake: silent } = await fakeSocket();
    const { fake: answering } = await fakeSocket();
    t.app.realtime.heartbeat();
    expect([silent.pings, answering.pings]).toEqual([1, 1]);
    answering.emit('pong');
    t.app.realtime.heartbeat();
    expect(silent.terminated).toBe(true);
    expect(answering.terminated).toBe(false);
    expect(answering.pings).toBe(2);
    answering.emit('close');
  });

  it('drops events for a socket that is too far behind, and counts them', async () => {
    // A socket that never drains: bufferedAmount stays over the limit.
    const { fake, sent } = await fakeSocket();

    const before = t.app.realtime.stats().eventsDropped;
    t.app.deps.events.publish(online('A-5'), { uid: a.uid });
    expect(sent.filter((m) => m.includes('A-5'))).toHaveLength(1);
    fake.bufferedAmount = 10 * 1024 * 1024;
    t.app.deps.events.publish(online('A-6'), { uid: a.uid });
    expect(sent.filter((m) => m.includes('A-6'))).toHaveLength(0);
    expect(t.app.realtime.stats().eventsDropped).toBe(before + 1);
    fake.emit('close');
  });
});

describe('/api/ws with an external broker', () => {
  it('registers the WebSocket support itself', async () => {
    const ext = await buildTestApp({ config: { mqttUrl: 'mqtt://127.0.0.1:9' } });
    try {
      const u = await ext.createUser();
      const s = await signedInSocket(await listenUrl(ext.app), u.token);
      ext.app.deps.events.publish(online('X-1'), { uid: u.uid });
      expect((await s.next('event')).event.sn).toBe('X-1');
      s.close();
    } finally {
      await ext.close();
    }
  });
});

describe.skipIf(process.env.TEST_DB !== 'postgres')('/api/ws across instances (PostgreSQL)', () => {
  it('delivers an event published on one instance to a socket on another, once', async () => {
    const other = await buildTestApp({ config: { databaseUrl: t.app.deps.config.databaseUrl } });
    try {
      const otherUrl = await listenUrl(other.app);
      const remote = await signedInSocket(otherUrl, a.token);
      const remoteB = await signedInSocket(otherUrl, b.token);
      const local = track(await signedInSocket(url, a.token));

      t.app.deps.events.publish(online('A-X'), { uid: a.uid });
      t.app.deps.events.publish(online('B-X'), { uid: b.uid });
      expect((await remote.next('event', (m) => m.event.sn === 'A-X')).event.type).toBe('device.online');
      await remoteB.next('event', (m) => m.event.sn === 'B-X');
      await local.next('event', (m) => m.event.sn === 'A-X');

      // And back the other way; the publishing instance does not deliver its own echo a second time.
      other.app.deps.events.publish(online('A-Y'), { uid: a.uid });
      await local.next('event', (m) => m.event.sn === 'A-Y');
      await remote.next('event', (m) => m.event.sn === 'A-Y');
      // The sentinel: a later event on the same path; an echo of A-Y would have come before it.
      other.app.deps.events.publish(online('A-Z'), { uid: a.uid });
      await local.next('event', (m) => m.event.sn === 'A-Z');
      await remote.next('event', (m) => m.event.sn === 'A-Z');
      const count = (s: TestSocket, sn: string) =>
        s.messages.filter((m) => m.type === 'event' && m.event.sn === sn).length;
      expect([count(local, 'A-X'), count(local, 'A-Y'), count(remote, 'A-X'), count(remote, 'A-Y')]).toEqual([
        1, 1, 1, 1,
      ]);
      expect(count(remoteB, 'A-X') + count(remoteB, 'A-Y')).toBe(0);
      remote.close();
      remoteB.close();
    } finally {
      await other.close();
    }
  });

  it('closes a socket on another instance at once when its session signs out here', async () => {
    const other = await buildTestApp({ config: { databaseUrl: t.app.deps.config.databaseUrl } });
    try {
      const c = await t.createUser();
      const remote = await signedInSocket(await listenUrl(other.app), c.token);
      const started = Date.now();
      await t.inject({ method: 'POST', url: '/api/auth/logout', token: c.token });
      expect((await remote.closed).code).toBe(WS_CLOSE.revoked);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await other.close();
    }
  });
  it('refuses on another instance at once a token it had just accepted (its session cache is emptied)', async () => {
    const other = await buildTestApp({ config: { databaseUrl: t.app.deps.config.databaseUrl } });
    try {
      await other.app.deps.events.ready();
      const c = await t.createUser();
      const info = () => other.inject({ method: 'GET', url: '/api/user/info', token: c.token });
      expect((await info()).statusCode).toBe(200); // now cached on the other instance
      const disabled = await t.inject({
        method: 'PUT',
        url: `/api/users/${c.uid}/disable`,
        token: await t.adminToken(),
      });
      expect(disabled.statusCode).toBe(200);
      // Well inside the cache's 5 s: the announcement crossed over LISTEN/NOTIFY and emptied it.
      await eventually(async () => {
        const res = await info();
        return res.statusCode !== 200 && errorOf(res).code === 10102 ? true : undefined;
      }, 2000);
    } finally {
      await other.close();
    }
  });
});
