import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_QUEUE_MAX, type CommandItem, type DeviceLogItem } from '@cellhub/contract/devices';
import { downTopic, topicPrefix } from '@cellhub/contract/protocol';
import type { Deps } from '../../lib/deps';
import { buildTestApp, errorOf, type TestApp, USER_PASSWORD } from '../../test/app';
import { connectDevice, createDevices, eventually, type TestDevice, up } from '../../test/gateway-test-kit';
import { deliverQueuedCommands } from './commands.service';
import { devices } from '../devices/devices.table';
import { deviceCommands } from './commands.table';

import { onPostgres, sharedStore } from '../../test/shared-store';

let t: TestApp;
let url: string;
let owner: { uid: number; token: string; username: string };
let other: { uid: number; token: string };
const clients: MqttClient[] = [];
const tag = randomBytes(3).toString('hex');

beforeAll(async () => {
  t = await buildTestApp();
  url = `mqtt://127.0.0.1:${t.app.broker.port}`;
  owner = await t.createUser();
  other = await t.createUser();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
  await t.close();
});

async function call(app: TestApp, token: string, method: 'GET' | 'POST', url: string, payload?: unknown) {
  return app.inject({ method, url, token, payload: payload as never });
}

async function send(sn: string, body: Record<string, unknown>, app = t, token = owner.token) {
  const res = await call(app, token, 'POST', `/api/devices/${sn}/commands`, body);
  return res;
}

async function queue(
  sn: string,
  data: string,
  extra: Record<string, unknown> = {},
  app = t,
  token = owner.token,
) {
  const res = await send(sn, { type: 'string', data, offline: 'queue', ...extra }, app, token);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: CommandItem }).data;
}

async function history(sn: string, app = t, token = owner.token): Promise<CommandItem[]> {
  const res = await call(app, token, 'GET', `/api/devices/${sn}/commands?per_page=100`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: CommandItem[] }).data;
}

async function logs(sn: string, event: string, app = t, token = owner.token): Promise<DeviceLogItem[]> {
  const res = await call(app, token, 'GET', `/api/devices/${sn}/logs?event=${event}&per_page=100`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: DeviceLogItem[] }).data;
}

async function devicesOf(app: TestApp, n: number, name: string): Promise<TestDevice[]> {
  const sns = Array.from({ length: n }, (_, i) => `CQ-${name}-${i + 1}-${tag}`);
  return createDevices(app, owner.token, sns);
}

/** Every P/down/cmd message the client receives, in arrival order. */
function collect(client: MqttClient, d: TestDevice): { id: string; data: string }[] {
  const got: { id: string; data: string }[] = [];
  const topic = downTopic(d.productKey, d.sn, 'cmd');
  client.on('message', (t, payload) => {
    if (t === topic) got.push(JSON.parse(payload.toString()) as { id: string; data: string });
  });
  return got;
}

async function online(sn: string, app = t): Promise<void> {
  await eventually(async () => {
    const res = await call(app, owner.token, 'GET', `/api/devices/${sn}`);
    return (res.json() as { data: { online: number } }).data.online === 1 ? true : undefined;
  });
}

const statusOf = async (id: string) =>
  (await t.app.deps.db.select().from(deviceCommands).where(eq(deviceCommands.id, id)))[0]?.status;

describe('commands queued for offline devices', () => {
  it('validates offline and ttl_seconds with 10113, and keeps 20401 for immediate sends', async () => {
    const [d] = await devicesOf(t, 1, 'val');
    const sn = d!.sn;
    expect(errorOf(await send(sn, { type: 'string', data: 'x' })).code).toBe(20401);
    expect(errorOf(await send(sn, { type: 'string', data: 'x', offline: 'fail' })).code).toBe(20401);
    for (const [body, field] of [
      [{ offline: 'later' }, 'offline'],
      [{ offline: 'queue', ttl_seconds: 59 }, 'ttl_seconds'],
      [{ offline: 'queue', ttl_seconds: 7 * 86_400 + 1 }, 'ttl_seconds'],
      [{ offline: 'queue', ttl_seconds: 90.5 }, 'ttl_seconds'],
      [{ offline: 'queue', ttl_seconds: '3600' }, 'ttl_seconds'],
      [{ ttl_seconds: 3600 }, 'ttl_seconds'],
      [{ offline: 'fail', ttl_seconds: 3600 }, 'ttl_seconds'],
    ] as const) {
      const err = errorOf(await send(sn, { type: 'string', data: 'x', ...body }));
      expect(err.code, JSON.stringify(body)).toBe(10113);
      expect(JSON.stringify(err.details), JSON.stringify(body)).toContain(field);
    }
    // Hex rules apply to queued commands too.
    expect(errorOf(await send(sn, { type: 'hex', data: '0x01', offline: 'queue' })).code).toBe(70003);
    expect(await history(sn)).toEqual([]);
  });

  it('queues as pending for 24 h by default, shows it in history and log, and refuses others (10117)', async () => {
    const [d] = await devicesOf(t, 1, 'pend');
    const sn = d!.sn;
    const before = t.clock.now().getTime();
    const c = await queue(sn, 'reboot');
    expect(c).toMatchObject({ status: 'pending', data: 'reboot', repliedat: null, latency_ms: null });
    expect(Date.parse(c.expiresat!) - Date.parse(c.queuedat!)).toBe(86_400_000);
    expect(Date.parse(c.queuedat!)).toBeGreaterThanOrEqual(before);
    const short = await queue(sn, 'short', { ttl_seconds: 600 });
    expect(Date.parse(short.expiresat!) - Date.parse(short.queuedat!)).toBe(600_000);
    expect((await history(sn)).map((x) => [x.id, x.status])).toEqual([
      [short.id, 'pending'],
      [c.id, 'pending'],
    ]);
    const queued = await logs(sn, 'command_queued');
    expect(queued.map((l) => l.detail)).toEqual([
      expect.objectContaining({ id: short.id, status: 'pending', by: owner.username }),
      expect.objectContaining({ id: c.id, status: 'pending', data: 'reboot', expiresat: c.expiresat }),
    ]);
    // Someone else's device answers like a missing one, for queueing and cancelling alike.
    expect(
      errorOf(await send(sn, { type: 'string', data: 'x', offline: 'queue' }, t, other.token)).code,
    ).toBe(10117);
    const cancel = await call(t, other.token, 'POST', `/api/devices/${sn}/commands/${c.id}/cancel`);
    expect(errorOf(cancel).code).toBe(10117);
  });

  it('delivers in order only once the device subscribes to its commands, not between CONNACK and SUBSCRIBE', async () => {
    const [d] = await devicesOf(t, 1, 'order');
    const sn = d!.sn;
    const queued = [await queue(sn, 'one'), await queue(sn, 'two'), await queue(sn, 'three')];
    const client = await connectDevice(url, d!, { clean: true });
    clients.push(client);
    const got = collect(client, d!);
    await online(sn);
    // Online but not subscribed: a command queued now waits too (sent now, it would be lost).
    const fourth = await queue(sn, 'four');
    expect(fourth.status).toBe('pending');
    expect((await history(sn)).every((c) => c.status === 'pending')).toBe(true);

    await client.subscribeAsync(downTopic(d!.productKey, sn, 'cmd'), { qos: 1 });
    await eventually(async () => (got.length >= 4 ? true : undefined));
    expect(got.map((m) => m.data)).toEqual(['one', 'two', 'three', 'four']);
    expect(got.map((m) => m.id)).toEqual([...queued, fourth].map((c) => c.id));
    const list = await history(sn);
    expect(list.map((c) => c.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect((await logs(sn, 'command')).map((l) => l.detail.id).sort()).toEqual(got.map((m) => m.id).sort());

    // The reply is matched as for any command; a command queued now goes out at once.
    await client.publishAsync(up(d!, 'cmd_reply'), JSON.stringify({ id: got[0]!.id, code: 0, data: 'ok' }), {
      qos: 1,
    });
    const now = await queue(sn, 'five');
    expect(now.status).toBe('sent');
    await eventually(async () => (got.length === 5 ? true : undefined));
    expect(got[4]!.data).toBe('five');
    await eventually(async () =>
      (await history(sn)).find((c) => c.id === got[0]!.id)?.status === 'replied' ? true : undefined,
    );
    // Nothing went twice.
    expect(new Set(got.map((m) => m.id)).size).toBe(5);
  });

  it('delivers on connect to a kept session (it has its subscription), over MQTT 5 too', async () => {
    for (const protocolVersion of [4, 5] as const) {
      const [d] = await devicesOf(t, 1, `kept${protocolVersion}`);
      const sn = d!.sn;
      const opts = {
        clean: false,
        protocolVersion,
        ...(protocolVersion === 5 ? { properties: { sessionExpiryInterval: 600 } } : {}),
      };
      const first = await connectDevice(url, d!, opts);
      await first.subscribeAsync(downTopic(d!.productKey, sn, 'cmd'), { qos: 1 });
      await first.endAsync();
      await eventually(async () => {
        const res = await call(t, owner.token, 'GET', `/api/devices/${sn}`);
        return (res.json() as { data: { online: number } }).data.online === 0 ? true : undefined;
      });
      const a = await queue(sn, 'a');
      const b = await queue(sn, 'b');
      const client = await connectDevice(url, d!, opts);
      clients.push(client);
      const got = collect(client, d!);
      await eventually(async () => (got.length >= 2 ? true : undefined));
      expect(
        got.map((m) => m.id),
        `MQTT ${protocolVersion}`,
      ).toEqual([a.id, b.id]);
    }
  });

  it('a clean MQTT 5 session gets the queue on SUBSCRIBE', async () => {
    const [d] = await devicesOf(t, 1, 'v5');
    const x = await queue(d!.sn, 'x');
    const client = await connectDevice(url, d!, { protocolVersion: 5 });
    clients.push(client);
    const got = collect(client, d!);
    await client.subscribeAsync(`${topicPrefix(d!.productKey, d!.sn)}/down/#`, { qos: 1 });
    await eventually(async () => (got.length >= 1 ? true : undefined));
    expect(got.map((m) => m.id)).toEqual([x.id]);
  });

  it('cancels a pending command (never sent), 20404 once it is not pending, 10107 for an unknown id', async () => {
    const [d] = await devicesOf(t, 1, 'cancel');
    const sn = d!.sn;
    const keep = await queue(sn, 'keep');
    const drop = await queue(sn, 'drop');
    const res = await call(t, owner.token, 'POST', `/api/devices/${sn}/commands/${drop.id}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { data: CommandItem }).data).toMatchObject({ id: drop.id, status: 'cancelled' });
    const again = await call(t, owner.token, 'POST', `/api/devices/${sn}/commands/${drop.id}/cancel`);
    expect(errorOf(again).code).toBe(20404);
    const unknown = await call(t, owner.token, 'POST', `/api/devices/${sn}/commands/0123456789abcdef/cancel`);
    expect(errorOf(unknown).code).toBe(10107);
    expect((await logs(sn, 'command_cancelled')).map((l) => l.detail)).toEqual([
      expect.objectContaining({ id: drop.id, by: owner.username }),
    ]);

    const client = await connectDevice(url, d!);
    clients.push(client);
    const got = collect(client, d!);
    await client.subscribeAsync(downTopic(d!.productKey, sn, 'cmd'), { qos: 1 });
    await eventually(async () => (got.length >= 1 ? true : undefined));
    // A reply round trip after the delivery: had the cancelled one gone out, it would have arrived before this.
    await client.publishAsync(up(d!, 'cmd_reply'), JSON.stringify({ id: keep.id, code: 0 }), { qos: 1 });
    await eventually(async () => ((await statusOf(keep.id)) === 'replied' ? true : undefined));
    expect(got.map((m) => m.id)).toEqual([keep.id]);
    expect(await statusOf(drop.id)).toBe('cancelled');
    // A sent command cannot be cancelled.
    expect(
      errorOf(await call(t, owner.token, 'POST', `/api/devices/${sn}/commands/${keep.id}/cancel`)).code,
    ).toBe(20404);
  });

  it('marks commands past their time-to-live expired (the expiry job), and never sends them', async () => {
    const [d] = await devicesOf(t, 1, 'exp');
    const sn = d!.sn;
    const old = await queue(sn, 'old', { ttl_seconds: 60 });
    const fresh = await queue(sn, 'fresh', { ttl_seconds: 3600 });
    t.clock.advance(61_000);
    // Past its time it is shown expired at once and cannot be cancelled; the job writes it down.
    expect((await history(sn)).find((c) => c.id === old.id)?.status).toBe('expired');
    expect(
      errorOf(await call(t, owner.token, 'POST', `/api/devices/${sn}/commands/${old.id}/cancel`)).code,
    ).toBe(20404);
    t.app.commandQueue.expiry.wake();
    const expired = await eventually(async () => {
      const rows = await logs(sn, 'command_expired');
      return rows.length > 0 ? rows : undefined;
    });
    expect(expired.map((l) => l.detail)).toEqual([
      expect.objectContaining({ id: old.id, data: 'old', expiresat: old.expiresat }),
    ]);
    expect(await statusOf(old.id)).toBe('expired');
    expect(await statusOf(fresh.id)).toBe('pending');

    const client = await connectDevice(url, d!);
    clients.push(client);
    const got = collect(client, d!);
    await client.subscribeAsync(downTopic(d!.productKey, sn, 'cmd'), { qos: 1 });
    await eventually(async () => (got.length >= 1 ? true : undefined));
    await client.publishAsync(up(d!, 'cmd_reply'), JSON.stringify({ id: fresh.id, code: 0 }), { qos: 1 });
    await eventually(async () => ((await statusOf(fresh.id)) === 'replied' ? true : undefined));
    expect(got.map((m) => m.id)).toEqual([fresh.id]);
  });

  it(`holds at most ${COMMAND_QUEUE_MAX} waiting commands per device (20405)`, async () => {
    const [d] = await devicesOf(t, 1, 'max');
    const sn = d!.sn;
    const first = await queue(sn, 'first');
    const [row] = await t.app.deps.db.select().from(deviceCommands).where(eq(deviceCommands.id, first.id));
    await t.app.deps.db.insert(deviceCommands).values(
      Array.from({ length: COMMAND_QUEUE_MAX - 1 }, (_, i) => {
        const { seq: _seq, ...rest } = row!;
        return { ...rest, id: `${first.id.slice(0, 10)}${String(i).padStart(6, '0')}` };
      }),
    );
    const full = await send(sn, { type: 'string', data: 'more', offline: 'queue' });
    expect(errorOf(full).code).toBe(20405);
    // Cancelling one makes room.
    await call(t, owner.token, 'POST', `/api/devices/${sn}/commands/${first.id}/cancel`);
    await queue(sn, 'more');
  });

  it('two instances delivering at once send each command once, in order', async () => {
    const [d] = await devicesOf(t, 1, 'two');
    const sn = d!.sn;
    const client = await connectDevice(url, d!);
    clients.push(client);
    const got = collect(client, d!);
    await client.subscribeAsync(downTopic(d!.productKey, sn, 'cmd'), { qos: 1 });
    await online(sn);
    // Rows written as another instance's API would, without asking this one to deliver.
    const deviceId = await deviceIdOf(sn);
    const now = t.clock.now();
    const ids = Array.from({ length: 20 }, (_, i) => `${tag}${String(i).padStart(10, '0')}`);
    for (const id of ids) {
      await t.app.deps.db.insert(deviceCommands).values({
        id,
        deviceId,
        uid: owner.uid,
        type: 'string',
        data: id,
        status: 'pending',
        sentat: now,
        queuedat: now,
        expiresat: new Date(now.getTime() + 3_600_000),
        timeoutat: new Date(now.getTime() + 3_600_000),
      });
    }
    const ref = { id: deviceId, sn, productKey: d!.productKey, uid: owner.uid };
    const [one, two] = await instances();
    const counts = await Promise.all([
      deliverQueuedCommands(one, ref),
      deliverQueuedCommands(two, ref),
      deliverQueuedCommands(one, ref),
      deliverQueuedCommands(two, ref),
    ]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(20);
    await eventually(async () => (got.length >= 20 ? true : undefined));
    expect(got.map((m) => m.id)).toEqual(ids);
    const statuses = await Promise.all(ids.map(statusOf));
    expect(statuses.every((s) => s === 'sent')).toBe(true);
  });
});

async function deviceIdOf(sn: string): Promise<number> {
  const [row] = await t.app.deps.db.select({ id: devices.id }).from(devices).where(eq(devices.sn, sn));
  return row!.id;
}

/**
 * A second instance: on PostgreSQL another app on the same database (its own connection pool), on PGlite a second
 * set of deps on the one database (PGlite lives in one process). Both reach the device through the first app's
 * broker, as instances behind one external broker do.
 */
let second: { app: TestApp; drop(): Promise<void> } | undefined;
async function instances(): Promise<[Deps, Deps]> {
  const one = t.app.deps;
  if (!onPostgres) return [one, { ...one }];
  second ??= await (async () => {
    const app = await buildTestApp({ config: { databaseUrl: t.app.deps.config.databaseUrl } });
    return { app, drop: () => app.close() };
  })();
  return [one, { ...second.app.app.deps, link: one.link, now: one.now }];
}
afterAll(async () => second?.drop());

describe('restart', () => {
  it('keeps pending commands in the database: the device gets them after the server restarted', async () => {
    // A file-backed embedded database (or one PostgreSQL database) survives the restart.
    const shared = await sharedStore('cmdq_restart');
    const config = { dataDir: shared.dataDir, databaseUrl: shared.databaseUrl };
    try {
      let app = await buildTestApp({ config });
      const user = await app.createUser('cmdrestart');
      const [d] = await createDevices(app, user.token, [`CQ-RESTART-${tag}`]);
      const sn = d!.sn;
      const ids: string[] = [];
      for (const data of ['r1', 'r2', 'r3']) {
        const res = await send(sn, { type: 'string', data, offline: 'queue' }, app, user.token);
        ids.push((res.json() as { data: CommandItem }).data.id);
      }
      await app.close();

      app = await buildTestApp({ config });
      try {
        const token = (await app.login('cmdrestart', USER_PASSWORD)).token;
        expect((await history(sn, app, token)).map((c) => c.status)).toEqual([
          'pending',
          'pending',
          'pending',
        ]);
        const client = await connectDevice(`mqtt://127.0.0.1:${app.app.broker.port}`, d!);
        const got = collect(client, d!);
        await client.subscribeAsync(downTopic(d!.productKey, sn, 'cmd'), { qos: 1 });
        await eventually(async () => (got.length >= 3 ? true : undefined));
        expect(got.map((m) => m.id)).toEqual(ids);
        expect((await history(sn, app, token)).map((c) => c.status)).toEqual(['sent', 'sent', 'sent']);
        await client.endAsync(true);
      } finally {
        await app.close();
      }
    } finally {
      await shared.drop();
    }
    // Two file-backed PGlite databases are migrated from scratch: slow on a loaded machine.
  }, 120_000);
});
