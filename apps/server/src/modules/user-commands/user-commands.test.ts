import { eq } from 'drizzle-orm';
import { auditLogs } from '../audit/audit.table';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic } from '@cellhub/contract/protocol';
import type { UserCommandItem, UserCommandRun } from '@cellhub/contract/user-commands';
import {
  connectDevice,
  createDevices,
  eventually,
  nextMessage,
  type TestDevice,
  up,
} from '../../test/gateway-test-kit';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { COMMAND_TIMEOUT_MS, markCommandTimeouts } from '../commands/commands.service';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let aDevices: TestDevice[];
let bDevices: TestDevice[];
const clients: MqttClient[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  aDevices = await createDevices(t, a.token, ['UC-A1', 'UC-A2', 'UC-A3']);
  bDevices = await createDevices(t, b.token, ['UC-B1']);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
  await t.close();
});

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

async function online(d: TestDevice, token: string): Promise<MqttClient> {
  const c = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d);
  clients.push(c);
  await c.subscribeAsync(`dev/${d.productKey}/${d.sn}/down/#`, { qos: 1 });
  await c.publishAsync(up(d, 'status'), '{"online":1}', { qos: 1 });
  await eventually(async () => {
    const res = await t.inject({ method: 'GET', url: `/api/devices/${d.sn}`, token });
    return data<{ online: number }>(res).online === 1 ? true : undefined;
  });
  return c;
}

async function create(token: string, payload: Record<string, unknown>) {
  return t.inject({ method: 'POST', url: '/api/user-commands', token, payload });
}

describe('saved commands', () => {
  it('checks data as seed section 5 says: 90000 missing, 90001 blank, 70003 bad hex', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ name: 'x', type: 'hex' }, 90000],
      [{ name: 'x', type: 'string', data: '' }, 90000],
      [{ name: 'x', type: 'string', data: '   ' }, 90001],
      [{ name: 'x', type: 'hex', data: '0x0103' }, 70003],
      [{ name: 'x', type: 'hex', data: '010' }, 70003],
      [{ name: 'x', type: 'hex', data: '01 03' }, 70003],
      [{ name: '', type: 'hex', data: '0103' }, 10113],
      [{ name: 'x', type: 'bin', data: '0103' }, 10113],
    ];
    for (const [payload, code] of cases) {
      const res = await create(a.token, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(res).code, JSON.stringify(payload)).toBe(code);
    }
  });

  it('creates, lists, reads, edits and deletes its own commands; B sees none of them (10107)', async () => {
    const res = await create(a.token, { name: 'Read holding', type: 'hex', data: '01030000000AC5CD' });
    expect(res.statusCode).toBe(200);
    const cmd = data<UserCommandItem>(res);
    expect(cmd).toMatchObject({ uid: a.uid, name: 'Read holding', type: 'hex', runs: 0, description: '' });

    const list = await t.inject({ method: 'GET', url: '/api/user-commands?keyword=holding', token: a.token });
    expect(list.json().total).toBe(1);
    expect((await t.inject({ method: 'GET', url: '/api/user-commands', token: b.token })).json().total).toBe(
      0,
    );
    const asAdmin = await t.inject({ method: 'GET', url: `/api/user-commands/${cmd.id}`, token: admin });
    expect(asAdmin.statusCode).toBe(200);

    for (const [method, url, payload] of [
      ['GET', `/api/user-commands/${cmd.id}`, undefined],
      ['PUT', `/api/user-commands/${cmd.id}`, { name: 'mine now' }],
      ['DELETE', `/api/user-commands/${cmd.id}`, undefined],
      ['POST', `/api/user-commands/${cmd.id}/send`, { sns: ['UC-B1'] }],
      ['GET', `/api/user-commands/${cmd.id}/runs`, undefined],
      ['GET', `/api/user-commands/${cmd.id}/runs/1`, undefined],
    ] as const) {
      const other = await t.inject({ method, url, token: b.token, payload });
      expect(other.statusCode, `${method} ${url}`).toBe(400);
      expect(errorOf(other).code, `${method} ${url}`).toBe(10107);
    }

    // Turning it into a string command keeps the data; turning text into hex re-checks it.
    const edited = await t.inject({
      method: 'PUT',
      url: `/api/user-commands/${cmd.id}`,
      token: a.token,
      payload: { type: 'string', data: 'AT+CSQ', description: 'signal' },
    });
    expect(data<UserCommandItem>(edited)).toMatchObject({
      type: 'string',
      data: 'AT+CSQ',
      description: 'signal',
    });
    const badType = await t.inject({
      method: 'PUT',
      url: `/api/user-commands/${cmd.id}`,
      token: a.token,
      payload: { type: 'hex' },
    });
    expect(errorOf(badType).code).toBe(70003);

    const del = await t.inject({ method: 'DELETE', url: `/api/user-commands/${cmd.id}`, token: a.token });
    expect(del.statusCode).toBe(200);
    const gone = await t.inject({ method: 'GET', url: `/api/user-commands/${cmd.id}`, token: a.token });
    expect(errorOf(gone).code).toBe(10107);
  });
});

describe('sending to many devices', () => {
  it('reports each device (sent, offline 20401, not_found 10117) and follows the replies', async () => {
    const [d1, d2, d3] = aDevices as [TestDevice, TestDevice, TestDevice];
    const c1 = await online(d1, a.token);
    const c2 = await online(d2, a.token);
    const b1 = await online(bDevices[0]!, b.token);
    const cmd = data<UserCommandItem>(await create(a.token, { name: 'Query', type: 'hex', data: 'AA55' }));

    const down1 = nextMessage(c1, downTopic(d1.productKey, d1.sn, 'cmd'));
    const down2 = nextMessage(c2, downTopic(d2.productKey, d2.sn, 'cmd'));
    let bGotCommand = false;
    b1.on('message', (topic) => {
      if (topic.endsWith('/down/cmd')) bGotCommand = true;
    });
    const res = await t.inject({
      method: 'POST',
      url: `/api/user-commands/${cmd.id}/send`,
      token: a.token,
      payload: { sns: `${d1.sn}\n${d2.sn}\n${d3.sn}\nUC-B1\nNO-SUCH\n${d1.sn}` },
    });
    expect(res.statusCode).toBe(200);
    const run = data<UserCommandRun>(res);
    expect(run).toMatchObject({ user_command_id: cmd.id, type: 'hex', data: 'AA55', total: 5 });
    expect(run.results.map((r) => [r.sn, r.status, r.code])).toEqual([
      [d1.sn, 'sent', 0],
      [d2.sn, 'sent', 0],
      [d3.sn, 'offline', 20401],
      ['UC-B1', 'not_found', 10117],
      ['NO-SUCH', 'not_found', 10117],
    ]);
    const first = run.results[0]!;
    expect(JSON.parse((await down1).toString())).toEqual({ id: first.command_id, type: 'hex', data: 'AA55' });
    await down2;

    // d1 answers; d2 stays silent.
    await c1.publishAsync(
      up(d1, 'cmd_reply'),
      JSON.stringify({ id: first.command_id, code: 0, data: '55AA' }),
      {
        qos: 1,
      },
    );
    const after = await eventually(async () => {
      const r = data<UserCommandRun>(
        await t.inject({ method: 'GET', url: `/api/user-commands/${cmd.id}/runs/${run.id}`, token: a.token }),
      );
      return r.results[0]?.status === 'replied' ? r : undefined;
    });
    expect(after.results[0]).toMatchObject({ status: 'replied', code: 0, reply: '55AA' });
    expect(after.results[0]!.latency_ms).toBeGreaterThanOrEqual(0);
    expect(after.results[1]).toMatchObject({ status: 'sent', reply: null });
    expect(bGotCommand).toBe(false);

    // d2 never answers: past its deadline it timed out, with no code (0 would read as the device's success).
    t.clock.advance(COMMAND_TIMEOUT_MS + 1000);
    expect(await markCommandTimeouts(t.app.deps)).toBeGreaterThanOrEqual(1);
    const timedOut = data<UserCommandRun>(
      await t.inject({ method: 'GET', url: `/api/user-commands/${cmd.id}/runs/${run.id}`, token: a.token }),
    );
    expect(timedOut.results[1]).toMatchObject({
      status: 'timeout',
      code: null,
      reply: null,
      latency_ms: null,
    });
    expect(timedOut.results[0]).toMatchObject({ status: 'replied', code: 0 });
    expect(timedOut.results[2]).toMatchObject({ status: 'offline', code: 20401 });

    // The command also shows in the device's own history.
    const history = await t.inject({ method: 'GET', url: `/api/devices/${d1.sn}/commands`, token: a.token });
    expect(data<{ id: string }[]>(history).map((h) => h.id)).toContain(first.command_id);

    const runs = await t.inject({ method: 'GET', url: `/api/user-commands/${cmd.id}/runs`, token: a.token });
    expect(runs.json().total).toBe(1);
    const item = data<UserCommandItem>(
      await t.inject({ method: 'GET', url: `/api/user-commands/${cmd.id}`, token: a.token }),
    );
    expect(item.runs).toBe(1);
    const missingRun = await t.inject({
      method: 'GET',
      url: `/api/user-commands/${cmd.id}/runs/${run.id + 1000}`,
      token: a.token,
    });
    expect(errorOf(missingRun).code).toBe(10107);
  });

  it("lets B send B's own command, but never to A's devices", async () => {
    const cmd = data<UserCommandItem>(await create(b.token, { name: 'B cmd', type: 'string', data: 'AT' }));
    const res = await t.inject({
      method: 'POST',
      url: `/api/user-commands/${cmd.id}/send`,
      token: b.token,
      payload: { sns: [aDevices[0]!.sn] },
    });
    expect(data<UserCommandRun>(res).results).toMatchObject([
      { sn: aDevices[0]!.sn, status: 'not_found', code: 10117, command_id: null },
    ]);
  });

  it('refuses bad targets with 10113', async () => {
    const cmd = data<UserCommandItem>(await create(a.token, { name: 'c', type: 'string', data: 'AT' }));
    for (const sns of [[], ['a/b'], '']) {
      const res = await t.inject({
        method: 'POST',
        url: `/api/user-commands/${cmd.id}/send`,
        token: a.token,
        payload: { sns },
      });
      expect(errorOf(res).code).toBe(10113);
    }
  });
});

describe('audit', () => {
  it('writes an audit row with every create, update and delete', async () => {
    const made = await t.inject({
      method: 'POST',
      url: '/api/user-commands',
      token: a.token,
      payload: { name: 'audited', type: 'hex', data: '0103' },
    });
    expect(made.statusCode, made.body).toBe(200);
    const id = (made.json() as { data: { id: number } }).data.id;
    const upd = await t.inject({
      method: 'PUT',
      url: `/api/user-commands/${id}`,
      token: a.token,
      payload: { name: 'audited 2' },
    });
    expect(upd.statusCode, upd.body).toBe(200);
    const del = await t.inject({ method: 'DELETE', url: `/api/user-commands/${id}`, token: a.token });
    expect(del.statusCode, del.body).toBe(200);
    const rows = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.target, `user-command:${id}`));
    expect(rows.map((r) => [r.action, r.uid])).toEqual([
      ['user_command_create', a.uid],
      ['user_command_update', a.uid],
      ['user_command_delete', a.uid],
    ]);
  });
});
