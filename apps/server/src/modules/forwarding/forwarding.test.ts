// Forwarding against the real server and a controllable HTTP receiver on 127.0.0.1: rules, bad input, the SSRF
// fence, the HMAC signature, an outage of a minute (on the test clock) with no loss, no duplicate after the
// idempotency key and the order per device kept, pause and the owner's message, dead letters and replay, rights.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ForwardDeadItem,
  ForwardMessage,
  ForwardRuleBody,
  ForwardRuleCreated,
  ForwardRuleItem,
  ForwardStats,
  ForwardTestResult,
} from '@cellhub/contract/forwarding';
import { alertDevices, data, goOnline, report } from '../../test/alerts-test-kit';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { eventually } from '../../test/gateway-test-kit';
import { allowTestTarget } from '../../test/outbound';
import type { DeviceRef } from '../devices/device-ref';
import { inboxMessages } from '../inbox/inbox.table';
import { forwardMessages } from './forwarding.table';

interface Received {
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The client's port: one per connection. */
  port: number;
}

/** A receiver whose answer the test sets: 200, 503 (down), or 400 (refuses). */
class Receiver {
  mode: 200 | 503 | 400 = 200;
  readonly got: Received[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.got.push({
          path: req.url ?? '',
          status: this.mode,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          port: req.socket.remotePort ?? 0,
        });
        res.writeHead(this.mode, { 'content-type': 'text/plain', 'x-receiver': 'test' });
        res.end(this.mode === 200 ? 'accepted' : `mode ${this.mode}`);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    allowTestTarget(this.url);
  }

  /** Accepted deliveries (answered 200) to `path`, parsed. */
  accepted(path: string): { message: ForwardMessage; headers: IncomingHttpHeaders; body: string }[] {
    return this.got
      .filter((r) => r.path === path && r.status === 200)
      .map((r) => ({ message: JSON.parse(r.body) as ForwardMessage, headers: r.headers, body: r.body }));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The receiver's own idempotent store, as a user's system would keep it: the first copy of each message id, in
 * arrival order, only for requests it answered 200 (the body of an answered 503 was not taken).
 */
class IdempotentStore {
  readonly seen = new Map<string, ForwardMessage>();
  readonly order: ForwardMessage[] = [];
  take(messages: ForwardMessage[]): void {
    for (const m of messages) {
      if (this.seen.has(m.id)) continue;
      this.seen.set(m.id, m);
      this.order.push(m);
    }
  }
}

type User = { uid: number; token: string; username: string };
let t: TestApp;
let owner: User;
let viewer: User;
let stranger: User;
let rx: Receiver;
let d1: DeviceRef;
let d2: DeviceRef;
let other: DeviceRef;

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, payload?: unknown) =>
  t.inject({ method, url, token, ...(payload === undefined ? {} : { payload: payload as object }) });

function ruleBody(path: string, extra: Partial<ForwardRuleBody> = {}): ForwardRuleBody {
  return {
    name: `rule ${path}`,
    kinds: ['property', 'online', 'offline'],
    target: {
      kind: 'http',
      method: 'POST',
      url: `${rx.url}${path}`,
      headers: [{ name: 'X-Token', value: 'abc' }],
    },
    ...extra,
  };
}

async function createRule(token: string, body: ForwardRuleBody): Promise<ForwardRuleCreated> {
  return data<ForwardRuleCreated>(await call('POST', '/api/forwarding', token, body));
}

/** Moves the test clock and lets the worker look at what became due, until it is quiet. */
async function tick(ms: number): Promise<void> {
  t.clock.advance(ms);
  await t.app.forwarding.idle();
  // A claim round now, whatever the worker's gap between rounds says.
  await t.app.forwarding.worker.runOnce();
  await t.app.forwarding.idle();
}

const pendingOf = async (ruleId: number) =>
  (await t.app.deps.db.select().from(forwardMessages).where(eq(forwardMessages.ruleId, ruleId))).length;

beforeAll(async () => {
  rx = new Receiver();
  await rx.start();
  t = await buildTestApp();
  owner = await t.createUser();
  viewer = await t.createUser();
  stranger = await t.createUser();
  const mine = await alertDevices(t, owner.token, ['FWD-A1', 'FWD-A2']);
  d1 = mine[0]!;
  d2 = mine[1]!;
  other = (await alertDevices(t, stranger.token, ['FWD-S1']))[0]!;
}, 60_000);

afterAll(async () => {
  await t?.close();
  await rx?.close();
});

describe('forwarding rules', () => {
  it('creates a rule, shows its secret once and never again, lists and finds it', async () => {
    const created = await createRule(owner.token, ruleBody('/crud'));
    expect(created.secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(created.status).toBe('running');
    expect(created.counters).toEqual({ delivered: 0, failed: 0, dead: 0, pending: 0 });
    const got = data<ForwardRuleItem>(await call('GET', `/api/forwarding/${created.id}`, owner.token));
    expect(got).not.toHaveProperty('secret');
    expect(JSON.stringify(got)).not.toContain(created.secret);
    const list = await call('GET', '/api/forwarding?keyword=crud', owner.token);
    expect((list.json() as { total: number }).total).toBe(1);
    // The secret is sealed at rest.
    const [row] = await t.app.deps.db
      .execute((await import('drizzle-orm')).sql`select secret from forward_rules where id = ${created.id}`)
      .then((r) => (r as unknown as { rows: { secret: string }[] }).rows);
    expect(row!.secret).not.toContain(created.secret);
    const off = data<ForwardRuleItem>(
      await call('PUT', `/api/forwarding/${created.id}/enabled`, owner.token, { enabled: false }),
    );
    expect(off.status).toBe('disabled');
    expect((await call('DELETE', `/api/forwarding/${created.id}`, owner.token)).statusCode).toBe(200);
    expect(errorOf(await call('GET', `/api/forwarding/${created.id}`, owner.token)).code).toBe(86001);
  });

  it('refuses bad input with its code', async () => {
    const bad = async (body: unknown) => errorOf(await call('POST', '/api/forwarding', owner.token, body));
    expect((await bad({ ...ruleBody('/x'), name: '' })).code).toBe(10113);
    expect((await bad({ ...ruleBody('/x'), name: 'a\u0000b' })).code).toBe(10113);
    expect((await bad({ ...ruleBody('/x'), name: 'a\ud800b' })).code).toBe(10113);
    expect((await bad({ ...ruleBody('/x'), kinds: [] })).code).toBe(10113);
    expect((await bad({ ...ruleBody('/x'), kinds: ['kafka'] })).code).toBe(10113);
    expect((await bad({ ...ruleBody('/x'), target: { kind: 'kafka', url: 'kafka://x' } })).code).toBe(10113);
    expect((await bad({ ...ruleBody('/x'), target: { kind: 'http', url: 'ftp://example.com/' } })).code).toBe(
      10113,
    );
    expect(
      (
        await bad({
          ...ruleBody('/x'),
          target: { kind: 'http', url: `${rx.url}/x`, headers: [{ name: 'X-A', value: 'a\r\nX-B: b' }] },
        })
      ).code,
    ).toBe(10113);
    expect(
      (
        await bad({
          ...ruleBody('/x'),
          target: {
            kind: 'http',
            url: `${rx.url}/x`,
            headers: [{ name: 'X-Cellhub-Signature', value: 'forged' }],
          },
        })
      ).code,
    ).toBe(10113);
    expect(
      (
        await bad({
          ...ruleBody('/x'),
          target: { kind: 'mqtt', url: 'mqtt://broker.example.com', topic: 'a/#' },
        })
      ).code,
    ).toBe(10113);
    expect(
      (
        await bad({
          ...ruleBody('/x'),
          target: { kind: 'mqtt', url: 'mqtt://b.example.com', topic: 't', qos: 3 },
        })
      ).code,
    ).toBe(10113);
    expect((await bad({ ...ruleBody('/x'), sns: ['x'.repeat(100)] })).code).toBe(10113);
    const placeholder = await bad({
      ...ruleBody('/x'),
      target: { kind: 'http', url: `${rx.url}/x`, body_template: '{"v": "{{secret}}"}' },
    });
    expect(placeholder.code).toBe(86003);
    expect(errorOf(await call('GET', '/api/forwarding/abc', owner.token)).code).toBe(10113);
    expect(errorOf(await call('GET', '/api/forwarding/0', owner.token)).code).toBe(10113);
  });

  it('refuses private and local targets (SSRF fence) when saved and when sending', async () => {
    for (const url of [
      'http://127.0.0.1:1/',
      'http://10.1.2.3/hook',
      'http://[::1]:8080/',
      'http://169.254.169.254/',
    ]) {
      const e = errorOf(
        await call('POST', '/api/forwarding', owner.token, {
          ...ruleBody('/x'),
          target: { kind: 'http', url },
        }),
      );
      expect(e.code, url).toBe(40004);
    }
    const mqtt = errorOf(
      await call('POST', '/api/forwarding', owner.token, {
        ...ruleBody('/x'),
        target: { kind: 'mqtt', url: 'mqtt://192.168.1.10:1883', topic: 'cellhub/{{sn}}' },
      }),
    );
    expect(mqtt.code).toBe(40004);
  });

  it('test send shows the real answer, and a 502 when nothing answers', async () => {
    const rule = await createRule(owner.token, ruleBody('/test-send'));
    const res = data<ForwardTestResult>(
      await call('POST', `/api/forwarding/${rule.id}/test`, owner.token, { kind: 'property' }),
    );
    expect(res.ok).toBe(true);
    expect(res.status).toBe(200);
    expect(res.headers['x-receiver']).toBe('test');
    expect(res.body_excerpt).toBe('accepted');
    expect(res.duration_ms).toBeGreaterThanOrEqual(0);
    const sent = rx.got.filter((g) => g.path === '/test-send').at(-1)!;
    expect(sent.headers['x-cellhub-message-id']).toBe(res.message_id);
    expect(JSON.parse(sent.body)).toMatchObject({ sn: 'SN0001', kind: 'property', rule_id: rule.id });
    rx.mode = 503;
    const down = data<ForwardTestResult>(
      await call('POST', `/api/forwarding/${rule.id}/test`, owner.token, {}),
    );
    expect(down).toMatchObject({ ok: false, status: 503, body_excerpt: 'mode 503' });
    rx.mode = 200;
    // Nothing listening on an allowed address: no answer at all.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    allowTestTarget(url);
    const noAnswer = await call('PUT', `/api/forwarding/${rule.id}`, owner.token, {
      ...ruleBody('/x'),
      target: { kind: 'http', url: `${url}/gone` },
    });
    expect(noAnswer.statusCode).toBe(200);
    const e = await call('POST', `/api/forwarding/${rule.id}/test`, owner.token, {});
    expect(e.statusCode).toBe(502);
    expect(errorOf(e).code).toBe(40001);
    await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
  });
});

describe('delivery', () => {
  it('loses nothing through a minute of receiver outage, keeps the order per device, signs every body', async () => {
    const rule = await createRule(owner.token, ruleBody('/outage', { kinds: ['property'] }));
    rx.mode = 503;
    const perDevice = 5;
    for (let i = 1; i <= perDevice; i++) {
      await report(t, d1, { temp: i });
      await report(t, d2, { temp: 100 + i });
    }
    await eventually(async () => ((await pendingOf(rule.id)) === 2 * perDevice ? true : undefined));
    // A minute down, on the test clock: each device's first message is tried again and again, never a later one.
    for (let s = 0; s < 6; s++) await tick(10_000);
    const tried = rx.got.filter((g) => g.path === '/outage');
    expect(tried.length).toBeGreaterThanOrEqual(4);
    const triedTemps = new Set(
      tried.map((g) => JSON.stringify((JSON.parse(g.body) as ForwardMessage).data.params)),
    );
    expect([...triedTemps].sort()).toEqual(
      [JSON.stringify({ temp: 1 }), JSON.stringify({ temp: 101 })].sort(),
    );
    const during = data<ForwardRuleItem>(await call('GET', `/api/forwarding/${rule.id}`, owner.token));
    expect(during.status).toBe('running');
    expect(during.counters.pending).toBe(2 * perDevice);
    expect(during.counters.failed).toBeGreaterThanOrEqual(4);

    // Up again: everything arrives once the backoff comes round.
    rx.mode = 200;
    const before = rx.got.length;
    await eventually(async () => {
      await tick(30_000);
      return (await pendingOf(rule.id)) === 0 ? true : undefined;
    }, 30_000);
    const answered = rx.got.slice(before).filter((g) => g.path === '/outage');
    const store = new IdempotentStore();
    store.take(answered.map((g) => JSON.parse(g.body) as ForwardMessage));
    expect(store.seen.size).toBe(2 * perDevice);
    for (const d of [d1, d2]) {
      const temps = store.order
        .filter((m) => m.sn === d.sn)
        .map((m) => (m.data.params as { temp: number }).temp);
      const base = d === d1 ? 0 : 100;
      expect(temps).toEqual(Array.from({ length: perDevice }, (_, i) => base + i + 1));
    }
    // Every request, retries included, is signed with the secret shown at creation, over the exact body.
    for (const g of rx.got.filter((x) => x.path === '/outage')) {
      const expected = `sha256=${createHmac('sha256', rule.secret).update(g.body).digest('hex')}`;
      expect(g.headers['x-cellhub-signature']).toBe(expected);
      expect(g.headers['x-cellhub-message-id']).toBe((JSON.parse(g.body) as ForwardMessage).id);
      expect(g.headers['x-token']).toBe('abc');
    }
    const after = data<ForwardRuleItem>(await call('GET', `/api/forwarding/${rule.id}`, owner.token));
    expect(after.counters).toMatchObject({ delivered: 2 * perDevice, pending: 0, dead: 0 });
    const stats = data<ForwardStats>(
      await call('GET', `/api/forwarding/${rule.id}/stats?range=1h`, owner.token),
    );
    expect(stats.points).toHaveLength(60);
    expect(stats.points.reduce((a, p) => a + p.delivered, 0)).toBe(2 * perDevice);
    expect(stats.max_ms).toBeGreaterThan(0);
    await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
  }, 120_000);

  it('sends a burst directly in order over kept-alive connections; a failure hands the device to the claim', async () => {
    const rule = await createRule(owner.token, ruleBody('/direct', { kinds: ['property'], sns: [d1.sn] }));
    rx.mode = 200;
    const worker = t.app.forwarding.worker;
    const temps = (path: string) =>
      rx.accepted(path).map((a) => (a.message.data.params as { temp: number }).temp);
    // Nothing waits for this device: its messages are written taken and handed to delivery, never claimed.
    const claimed = worker.stats.claimed;
    const adopted = worker.stats.adopted;
    for (let i = 1; i <= 20; i++) await report(t, d1, { temp: i });
    await eventually(async () => (temps('/direct').length >= 20 ? true : undefined));
    await t.app.forwarding.idle();
    expect(temps('/direct')).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(worker.stats.adopted).toBeGreaterThan(adopted);
    expect(worker.stats.claimed).toBe(claimed);
    expect(await pendingOf(rule.id)).toBe(0);
    // One connection, kept alive, carries the burst (a connection per request was the old cost).
    const ports = new Set(rx.got.filter((g) => g.path === '/direct').map((g) => g.port));
    expect(ports.size).toBeLessThanOrEqual(2);

    // The target fails: the message waits for its retry, and the device's next ones queue behind it in the table.
    rx.mode = 503;
    await report(t, d1, { temp: 21 });
    await eventually(async () =>
      rx.got.some((g) => g.path === '/direct' && g.status === 503) ? true : undefined,
    );
    await t.app.forwarding.idle();
    for (let i = 22; i <= 24; i++) await report(t, d1, { temp: i });
    await eventually(async () => ((await pendingOf(rule.id)) === 4 ? true : undefined));
    const waiting = await t.app.deps.db
      .select({ status: forwardMessages.status })
      .from(forwardMessages)
      .where(eq(forwardMessages.ruleId, rule.id));
    expect(waiting.map((w) => w.status)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(temps('/direct')).toHaveLength(20);

    // Back up: the claim delivers the four in order, then the device's messages go directly again.
    rx.mode = 200;
    await eventually(async () => {
      await tick(30_000);
      return (await pendingOf(rule.id)) === 0 ? true : undefined;
    }, 30_000);
    const adoptedBefore = worker.stats.adopted;
    t.clock.advance(5_000);
    for (let i = 25; i <= 27; i++) await report(t, d1, { temp: i });
    await eventually(async () => (temps('/direct').length >= 27 ? true : undefined));
    await t.app.forwarding.idle();
    expect([...new Set(temps('/direct'))]).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
    expect(worker.stats.adopted).toBeGreaterThan(adoptedBefore);
    await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
  }, 120_000);

  it('batches a device backlog into JSON arrays in order, signed; a refused batch is dead letters together', async () => {
    const rule = await createRule(
      owner.token,
      ruleBody('/batch', {
        kinds: ['property'],
        sns: [d2.sn],
        target: { kind: 'http', method: 'POST', url: `${rx.url}/batch`, batch_max: 10 },
      }),
    );
    expect(rule.target).toMatchObject({ kind: 'http', batch_max: 10 });
    const batches = () =>
      rx.got
        .filter((g) => g.path === '/batch')
        .map((g) => ({ ...g, messages: JSON.parse(g.body) as ForwardMessage[] }));
    // Down while 12 messages come: the first request fails, the rest wait behind it in the table.
    rx.mode = 503;
    for (let i = 1; i <= 12; i++) await report(t, d2, { temp: i });
    await eventually(async () => ((await pendingOf(rule.id)) === 12 ? true : undefined));
    rx.mode = 200;
    await eventually(async () => {
      await tick(30_000);
      return (await pendingOf(rule.id)) === 0 ? true : undefined;
    }, 30_000);
    const all = batches();
    // Every body is an array (of one at least), at most batch_max long, its ids and count in the headers, signed.
    for (const b of all) {
      expect(Array.isArray(b.messages)).toBe(true);
      expect(b.messages.length).toBeGreaterThanOrEqual(1);
      expect(b.messages.length).toBeLessThanOrEqual(10);
      expect(b.headers['x-cellhub-message-count']).toBe(String(b.messages.length));
      expect(b.headers['x-cellhub-message-id']).toBe(b.messages.map((m) => m.id).join(','));
      expect(b.headers['x-cellhub-signature']).toBe(
        `sha256=${createHmac('sha256', rule.secret).update(b.body).digest('hex')}`,
      );
    }
    const ok = all.filter((b) => b.status === 200);
    const store = new IdempotentStore();
    for (const b of ok) store.take(b.messages);
    expect(store.order.map((m) => (m.data.params as { temp: number }).temp)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    // The backlog went out in few requests (10 + 2 after the recovery), not twelve.
    expect(ok.length).toBeLessThanOrEqual(3);
    expect(ok.some((b) => b.messages.length === 10)).toBe(true);

    // A refused request: all its messages become dead letters at once, none sent again.
    rx.mode = 503;
    for (let i = 13; i <= 15; i++) await report(t, d2, { temp: i });
    await eventually(async () => ((await pendingOf(rule.id)) === 3 ? true : undefined));
    rx.mode = 400;
    const before = rx.got.length;
    await eventually(async () => {
      await tick(30_000);
      const rows = await t.app.deps.db
        .select({ status: forwardMessages.status })
        .from(forwardMessages)
        .where(eq(forwardMessages.ruleId, rule.id));
      return rows.length === 3 && rows.every((r) => r.status === 'dead') ? true : undefined;
    }, 30_000);
    const refused = rx.got.slice(before).filter((g) => g.path === '/batch');
    expect(refused).toHaveLength(1);
    expect((JSON.parse(refused[0]!.body) as ForwardMessage[]).map((m) => m.data.params)).toEqual([
      { temp: 13 },
      { temp: 14 },
      { temp: 15 },
    ]);
    const after = data<ForwardRuleItem>(await call('GET', `/api/forwarding/${rule.id}`, owner.token));
    expect(after.counters).toMatchObject({ delivered: 12, dead: 3, pending: 0 });
    await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
  }, 120_000);

  it('refuses a batching rule whose body template is not JSON (86003)', async () => {
    // A form-encoded body: fine one message per request, not as an element of a JSON array.
    const formBody = (extra: { batch_max?: number; headers?: { name: string; value: string }[] }) =>
      ruleBody('/batch-bad', {
        target: {
          kind: 'http',
          method: 'POST',
          url: `${rx.url}/batch-bad`,
          body_template: 'sn={{sn}}&temp={{data.params.temp}}',
          ...extra,
        },
      });
    const res = await call('POST', '/api/forwarding', owner.token, formBody({ batch_max: 5 }));
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(86003);
    // The same template is fine one message per request (form bodies are allowed there).
    const single = await call(
      'POST',
      '/api/forwarding',
      owner.token,
      formBody({ headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }] }),
    );
    expect(single.statusCode).toBe(200);
    await call('DELETE', `/api/forwarding/${data<ForwardRuleItem>(single).id}`, owner.token);
  });

  it('acknowledges a device only after its messages are queued (a crash then loses none)', async () => {
    const rule = await createRule(
      owner.token,
      ruleBody('/durable', { kinds: ['property', 'raw'], sns: [d2.sn] }),
    );
    rx.mode = 503;
    // What the PUBACK waits for: the uplink resolves once the data and its queue rows are written, not while the
    // rows still sit in the insert batch (a kill -9 there lost them).
    await t.app.gateway.uplink(d2, 'property', Buffer.from(JSON.stringify({ params: { temp: 61 } })));
    expect(await pendingOf(rule.id)).toBe(1);
    await t.app.gateway.uplink(d2, 'raw', Buffer.from([1, 2, 3]));
    const rows = await t.app.deps.db
      .select({ kind: forwardMessages.kind })
      .from(forwardMessages)
      .where(eq(forwardMessages.ruleId, rule.id));
    expect(rows.map((r) => r.kind).sort()).toEqual(['property', 'raw']);
    rx.mode = 200;
    await eventually(async () => {
      await tick(30_000);
      return (await pendingOf(rule.id)) === 0 ? true : undefined;
    }, 30_000);
    await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
  }, 60_000);

  it('forwards a reading the device sends again under the same message id; one without its own time under a new one', async () => {
    const rule = await createRule(owner.token, ruleBody('/resent', { kinds: ['property'], sns: [d2.sn] }));
    const path = '/resent';
    // A QoS 1 copy sent again after a lost PUBACK (the server killed after storing it): the same bytes, stored twice.
    const timed = Buffer.from(JSON.stringify({ ts: 1_790_000_000_000, params: { temp: 62 } }));
    await t.app.gateway.uplink(d2, 'property', timed);
    await t.app.gateway.uplink(d2, 'property', timed);
    // Another reading at the same time, and a message without `ts` sent twice: different ids.
    const other = Buffer.from(JSON.stringify({ ts: 1_790_000_000_000, params: { temp: 63 } }));
    await t.app.gateway.uplink(d2, 'property', other);
    const untimed = Buffer.from(JSON.stringify({ params: { temp: 64 } }));
    await t.app.gateway.uplink(d2, 'property', untimed);
    await t.app.gateway.uplink(d2, 'property', untimed);
    await eventually(async () => {
      await tick(1_000);
      return rx.accepted(path).length === 5 ? true : undefined;
    }, 30_000);
    const got = rx.accepted(path).map((r) => r.message);
    const temps = got.map((m) => (m.data as { params: { temp: number } }).params.temp);
    expect(temps).toEqual([62, 62, 63, 64, 64]);
    expect(got[1]!.id).toBe(got[0]!.id);
    expect(new Set(got.map((m) => m.id)).size).toBe(4);
    // What a receiver that drops repeats by id keeps: each reading once.
    const store = new IdempotentStore();
    store.take(got);
    expect(store.order.map((m) => (m.data as { params: { temp: number } }).params.temp)).toEqual([
      62, 63, 64, 64,
    ]);
    // Not another rule's id for the same reading.
    const again = await createRule(owner.token, ruleBody('/resent-2', { kinds: ['property'], sns: [d2.sn] }));
    await t.app.gateway.uplink(d2, 'property', timed);
    await eventually(async () => {
      await tick(1_000);
      return rx.accepted('/resent-2').length === 1 ? true : undefined;
    }, 30_000);
    expect(rx.accepted('/resent-2')[0]!.message.id).not.toBe(got[0]!.id);
    await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
    await call('DELETE', `/api/forwarding/${again.id}`, owner.token);
  }, 60_000);

  it('pauses a rule whose target keeps failing and tells its owner; the switch resumes it', async () => {
    const rule = await createRule(owner.token, ruleBody('/pause', { kinds: ['property'], sns: [d1.sn] }));
    rx.mode = 503;
    await report(t, d1, { temp: 7 });
    await eventually(async () => ((await pendingOf(rule.id)) === 1 ? true : undefined));
    await tick(0);
    for (let s = 0; s < 4 && !(await isPaused(rule.id)); s++) await tick(4 * 60_000);
    const paused = data<ForwardRuleItem>(await call('GET', `/api/forwarding/${rule.id}`, owner.token));
    expect(paused.status).toBe('paused');
    expect(paused.paused_reason).toBe('HTTP 503');
    const notes = await t.app.deps.db
      .select()
      .from(inboxMessages)
      .where(and(eq(inboxMessages.uid, owner.uid), eq(inboxMessages.kind, 'forward_paused')));
    expect(notes.map((n) => n.params)).toEqual([expect.objectContaining({ rule_id: rule.id })]);
    expect(notes[0]!.params).toMatchObject({ rule_id: rule.id, rule_name: rule.name });
    // Paused: messages keep queueing up to the paused backlog (2 here: 7 and 8), the rest are dropped; nothing is
    // tried.
    const tries = rx.got.length;
    const options = t.app.forwarding.options as { pausedBacklog: number };
    const cap = options.pausedBacklog;
    options.pausedBacklog = 2;
    const dropped = t.app.forwarding.stats.dropped;
    for (const temp of [8, 9, 10]) await report(t, d1, { temp });
    await tick(10 * 60_000);
    options.pausedBacklog = cap;
    expect(rx.got.length).toBe(tries);
    expect(await pendingOf(rule.id)).toBe(2);
    expect(t.app.forwarding.stats.dropped).toBe(dropped + 2);
    rx.mode = 200;
    await call('PUT', `/api/forwarding/${rule.id}/enabled`, owner.token, { enabled: true });
    await eventually(async () => {
      await tick(1000);
      return (await pendingOf(rule.id)) === 0 ? true : undefined;
    }, 20_000);
    const temps = rx
      .accepted('/pause')
      .map((r) => (r.message.data.params as { temp: number }).temp)
      .filter((v, i, all) => all.indexOf(v) === i);
    expect(temps).toEqual([7, 8]);
    await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
  }, 60_000);

  it('makes a refused message a dead letter with its last error, and replays it', async () => {
    const rule = await createRule(owner.token, ruleBody('/dead', { kinds: ['property'], sns: [d2.sn] }));
    rx.mode = 400;
    await report(t, d2, { temp: 55 });
    await eventually(async () => {
      await tick(0);
      const list = await call('GET', `/api/forwarding/${rule.id}/dead`, owner.token);
      return (list.json() as { total: number }).total === 1 ? list : undefined;
    });
    const dead = data<ForwardDeadItem[]>(await call('GET', `/api/forwarding/${rule.id}/dead`, owner.token));
    expect(dead[0]).toMatchObject({ sn: d2.sn, kind: 'property', attempts: 1, last_error: 'HTTP 400' });
    // A dead letter no longer holds the device back.
    rx.mode = 200;
    await report(t, d2, { temp: 56 });
    await eventually(async () => {
      await tick(0);
      return rx.accepted('/dead').some((r) => (r.message.data.params as { temp: number }).temp === 56)
        ? true
        : undefined;
    });
    const replay = data<{ replayed: number }>(
      await call('POST', `/api/forwarding/${rule.id}/dead/replay`, owner.token, {}),
    );
    expect(replay.replayed).toBe(1);
    await eventually(async () => {
      await tick(0);
      return (await pendingOf(rule.id)) === 0 ? true : undefined;
    });
    const replayed = rx.accepted('/dead').filter((r) => r.message.id === dead[0]!.message_id);
    expect(replayed).toHaveLength(1);
    // The refused first try carried the same idempotency key.
    const refused = rx.got.filter((g) => g.path === '/dead' && g.status === 400);
    expect(refused.map((g) => g.headers['x-cellhub-message-id'])).toEqual([dead[0]!.message_id]);
    expect(replayed.at(-1)!.headers['x-cellhub-message-id']).toBe(dead[0]!.message_id);
    const after = data<ForwardRuleItem>(await call('GET', `/api/forwarding/${rule.id}`, owner.token));
    expect(after.counters.dead).toBe(0);
    await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
  });

  it('forwards presence with a body template', async () => {
    const rule = await createRule(owner.token, {
      ...ruleBody('/presence'),
      kinds: ['online'],
      sns: [d1.sn],
      target: {
        kind: 'http',
        url: `${rx.url}/presence`,
        body_template: '{"device": "{{sn}}", "what": "{{kind}}", "online": {{data.online}}, "id": "{{id}}"}',
      },
    });
    rx.mode = 200;
    await goOnline(t, d1);
    const got = await eventually(async () => {
      await tick(0);
      return rx.got.find((g) => g.path === '/presence');
    });
    expect(JSON.parse(got.body)).toMatchObject({ device: d1.sn, what: 'online', online: 1 });
    expect(got.headers['x-cellhub-message-id']).toBe((JSON.parse(got.body) as { id: string }).id);
    await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
  });
});

async function isPaused(id: number): Promise<boolean> {
  const r = data<ForwardRuleItem>(await call('GET', `/api/forwarding/${id}`, owner.token));
  return r.status === 'paused';
}

describe('rights', () => {
  it("a stranger's rule sees nothing of your devices; a view share is forwarded while it lasts", async () => {
    // Naming a device one may not read is refused as if it did not exist.
    const named = errorOf(
      await call('POST', '/api/forwarding', stranger.token, ruleBody('/stranger', { sns: [d1.sn] })),
    );
    expect(named.code).toBe(10117);
    const mine = await createRule(owner.token, ruleBody('/rights-owner', { kinds: ['property'] }));
    const strangers = await createRule(stranger.token, ruleBody('/rights-stranger', { kinds: ['property'] }));
    const viewers = await createRule(viewer.token, ruleBody('/rights-viewer', { kinds: ['property'] }));
    expect(errorOf(await call('GET', `/api/forwarding/${mine.id}`, stranger.token)).code).toBe(86001);
    expect(
      errorOf(await call('PUT', `/api/forwarding/${mine.id}/enabled`, stranger.token, { enabled: false }))
        .code,
    ).toBe(86001);
    expect(errorOf(await call('GET', `/api/forwarding/${mine.id}/dead`, stranger.token)).code).toBe(86001);
    expect(
      errorOf(await call('POST', `/api/forwarding/${mine.id}/dead/replay`, stranger.token, {})).code,
    ).toBe(86001);
    const list = await call('GET', '/api/forwarding', stranger.token);
    expect((list.json() as { data: ForwardRuleItem[] }).data.map((r) => r.id)).toEqual([strangers.id]);

    const share = await call('POST', '/api/shares', owner.token, {
      sns: [d1.sn],
      to: viewer.username,
      right: 'view',
    });
    expect(share.statusCode).toBe(200);
    await eventually(async () =>
      t.app.deps.caches.shares.grantsOf(d1.sn).some((g) => g.uid === viewer.uid) ? true : undefined,
    );
    rx.mode = 200;
    await report(t, d1, { temp: 31 });
    await report(t, d2, { temp: 32 });
    await report(t, other, { temp: 33 });
    await eventually(async () => {
      await tick(0);
      return (await pendingOf(mine.id)) + (await pendingOf(viewers.id)) + (await pendingOf(strangers.id)) ===
        0 && rx.accepted('/rights-owner').length === 2
        ? true
        : undefined;
    });
    const sns = (path: string) =>
      rx
        .accepted(path)
        .map((r) => r.message.sn)
        .sort();
    expect(sns('/rights-owner')).toEqual([d1.sn, d2.sn]);
    expect(sns('/rights-stranger')).toEqual([other.sn]);
    expect(sns('/rights-viewer')).toEqual([d1.sn]);

    // The share ends while a message of d1 waits for the viewer's rule: it is withdrawn, never sent; the owner's
    // rule still delivers its copy.
    rx.mode = 503;
    await report(t, d1, { temp: 34 });
    await eventually(async () =>
      (await pendingOf(viewers.id)) === 1 && (await pendingOf(mine.id)) === 1 ? true : undefined,
    );
    await t.app.forwarding.idle();
    const shares = data<{ id: number; sn: string; to_uid: number }[]>(
      await call('GET', `/api/shares/outgoing?sn=${d1.sn}`, owner.token),
    );
    const shareId = shares.find((r) => r.to_uid === viewer.uid)!.id;
    expect((await call('DELETE', `/api/shares/${shareId}`, owner.token)).statusCode).toBe(200);
    await eventually(async () =>
      t.app.deps.caches.shares.grantsOf(d1.sn).some((g) => g.uid === viewer.uid) ? undefined : true,
    );
    rx.mode = 200;
    const withdrawn = t.app.forwarding.stats.withdrawn;
    await eventually(async () => {
      await tick(30_000);
      return (await pendingOf(viewers.id)) + (await pendingOf(mine.id)) === 0 ? true : undefined;
    }, 30_000);
    expect(sns('/rights-viewer')).toEqual([d1.sn]);
    expect(rx.accepted('/rights-owner').map((r) => r.message.data.params)).toContainEqual({ temp: 34 });
    expect(t.app.forwarding.stats.withdrawn).toBe(withdrawn + 1);
    for (const r of [mine, strangers, viewers])
      await call(
        'DELETE',
        `/api/forwarding/${r.id}`,
        r === mine ? owner.token : r === strangers ? stranger.token : viewer.token,
      );
  });
});

describe('MQTT target', () => {
  it('publishes to an external broker on the topic template, through the fence', async () => {
    const aedes = await Aedes.createBroker();
    const tcp = createTcpServer((s) => aedes.handle(s));
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    const url = `mqtt://127.0.0.1:${(tcp.address() as AddressInfo).port}`;
    try {
      const sub = await mqtt.connectAsync(url, { clientId: 'receiver', reconnectPeriod: 0 });
      const got: { topic: string; body: ForwardMessage }[] = [];
      sub.on('message', (topic, payload) =>
        got.push({ topic, body: JSON.parse(payload.toString('utf8')) as ForwardMessage }),
      );
      await sub.subscribeAsync('plant/#', { qos: 1 });
      // Not allowed yet: the fence refuses the broker's loopback address when the rule is saved.
      const refused = errorOf(
        await call('POST', '/api/forwarding', owner.token, {
          ...ruleBody('/mqtt'),
          target: { kind: 'mqtt', url, topic: 'plant/{{sn}}/{{kind}}' },
        }),
      );
      expect(refused.code).toBe(40004);
      allowTestTarget(url.replace('mqtt://', 'http://'));
      const rule = await createRule(owner.token, {
        ...ruleBody('/mqtt'),
        kinds: ['property'],
        sns: [d2.sn],
        target: { kind: 'mqtt', url, username: 'u', password: 'p', topic: 'plant/{{sn}}/{{kind}}', qos: 1 },
      });
      expect(rule.target).toMatchObject({ kind: 'mqtt', has_password: true });
      expect(JSON.stringify(rule)).not.toContain('"password"');
      await report(t, d2, { temp: 61 });
      await eventually(async () => {
        await tick(0);
        return got.length > 0 ? true : undefined;
      });
      expect(got[0]!.topic).toBe(`plant/${d2.sn}/property`);
      expect(got[0]!.body).toMatchObject({ sn: d2.sn, kind: 'property', data: { params: { temp: 61 } } });
      await eventually(async () => ((await pendingOf(rule.id)) === 0 ? true : undefined));
      await sub.endAsync(true);
      await call('DELETE', `/api/forwarding/${rule.id}`, owner.token);
    } finally {
      t.app.forwarding.mqtt.close();
      await new Promise<void>((r) => aedes.close(() => r()));
      await new Promise<void>((r) => tcp.close(() => r()));
    }
  });
});
