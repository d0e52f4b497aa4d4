import { inArray } from 'drizzle-orm';
import type { IPublishPacket } from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CommandGroupDetail,
  CommandGroupItem,
  DeviceCommandGroup,
  GroupCommandBody,
  GroupCommandItem,
} from '@cellhub/contract/command-groups';
import type { CommandItem } from '@cellhub/contract/devices';
import { downTopic, upTopic } from '@cellhub/contract/protocol';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { createDevices, eventually, type TestDevice } from '../../test/gateway-test-kit';
import { RawDevice } from '../../test/raw-device';
import { deviceCommands } from '../commands/commands.table';

let t: TestApp;
let admin: string;
let owner: { uid: number; token: string; username: string };
let stranger: { uid: number; token: string; username: string };
let viewer: { uid: number; token: string; username: string };
let controller: { uid: number; token: string; username: string };
let dev: TestDevice;
let other: TestDevice;
const raws: RawDevice[] = [];

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  owner = await t.createUser();
  stranger = await t.createUser();
  viewer = await t.createUser();
  controller = await t.createUser();
  dev = (await createDevices(t, owner.token, ['CG-1']))[0]!;
  other = (await createDevices(t, owner.token, ['CG-OTHER'], { name: 'Other DTU' }))[0]!;
  for (const [who, right] of [
    [viewer, 'view'],
    [controller, 'control'],
  ] as const) {
    const res = await t.inject({
      method: 'POST',
      url: '/api/shares',
      token: owner.token,
      payload: { sns: ['CG-1'], to: who.username, right },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
});
afterAll(async () => {
  for (const r of raws) r.destroy();
  await t.close();
});

async function makeGroup(productKey: string, name = 'Modbus'): Promise<CommandGroupItem> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/command-groups',
    token: admin,
    payload: { product_key: productKey, name, description: 'Holding registers' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return data<CommandGroupItem>(res);
}

const addCommand = (groupId: number, payload: GroupCommandBody, token = admin) =>
  t.inject({ method: 'POST', url: `/api/command-groups/${groupId}/commands`, token, payload });

const READ: GroupCommandBody = {
  name: 'Read registers',
  type: 'hex',
  data: '{{slave}}03{{addr}}{{count}}',
  params: [
    { name: 'slave', type: 'int', min: 1, max: 247, bytes: 1 },
    { name: 'addr', type: 'hex', bytes: 2 },
    { name: 'count', type: 'int', min: 1, max: 125, bytes: 2 },
  ],
  reply_pattern: '^01',
  timeout_s: 10,
};

describe('command group definitions (admin)', () => {
  it('creates, lists, reads, renames and deletes groups; 10107 for an unknown product', async () => {
    const g = await makeGroup(dev.productKey, 'Basics');
    expect(g).toMatchObject({ product_key: dev.productKey, name: 'Basics', command_count: 0 });
    const list = await t.inject({
      method: 'GET',
      url: '/api/command-groups',
      token: admin,
      query: { product_key: dev.productKey, keyword: 'bas' },
    });
    expect(list.statusCode).toBe(200);
    expect(data<CommandGroupItem[]>(list).map((x) => x.id)).toContain(g.id);
    const put = await t.inject({
      method: 'PUT',
      url: `/api/command-groups/${g.id}`,
      token: admin,
      payload: { name: 'Basics 2' },
    });
    expect(data<CommandGroupItem>(put).name).toBe('Basics 2');
    const del = await t.inject({ method: 'DELETE', url: `/api/command-groups/${g.id}`, token: admin });
    expect(del.statusCode).toBe(200);
    const gone = await t.inject({ method: 'GET', url: `/api/command-groups/${g.id}`, token: admin });
    expect(errorOf(gone).code).toBe(10107);
    const bad = await t.inject({
      method: 'POST',
      url: '/api/command-groups',
      token: admin,
      payload: { product_key: 'nope', name: 'x' },
    });
    expect(errorOf(bad).code).toBe(10107);
  });

  it('is for admins only (10108 for a user)', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/command-groups', token: owner.token });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(10108);
    const g = await makeGroup(dev.productKey, 'Admin only');
    const add = await addCommand(g.id, READ, owner.token);
    expect(errorOf(add).code).toBe(10108);
  });

  it('refuses bad definitions with the seed codes and names the field', async () => {
    const g = await makeGroup(dev.productKey, 'Bad ones');
    const cases: [Partial<GroupCommandBody>, number, string?][] = [
      [{ data: undefined }, 90000, 'data'],
      [{ data: '' }, 90000, 'data'],
      [{ data: '   ', params: [] }, 90001, 'data'],
      [{ data: '0x{{slave}}03{{addr}}{{count}}' }, 70003, 'data'],
      [{ data: '0{{slave}}03{{addr}}{{count}}' }, 70003, 'data'],
      [{ data: '{{slave}}03{{addr}}{{count}}{{nope}}' }, 70003, 'data'],
      [{ data: '{{slave}}03{{addr}}' }, 70003, 'params.count'],
      [
        { params: [{ name: 'slave', type: 'int', min: 1, max: 247 }, ...READ.params!.slice(1)] },
        70003,
        'params.slave',
      ],
      [
        { params: [{ name: 'slave', type: 'int', min: 300, max: 1, bytes: 1 }, ...READ.params!.slice(1)] },
        70003,
        'params.slave',
      ],
      [{ params: [{ name: 'slave', type: 'string' }, ...READ.params!.slice(1)] }, 70003, 'params.slave'],
      [{ reply_pattern: '(a+)+$' }, 70003, 'reply_pattern'],
      [{ reply_pattern: '([' }, 70003, 'reply_pattern'],
      [{ reply_pattern: 'x'.repeat(201) }, 70003, 'reply_pattern'],
      [{ name: '' }, 10113],
      [{ timeout_s: 0 }, 10113],
      [{ params: [{ name: '1bad', type: 'hex', bytes: 1 }] }, 10113],
      [{ data: 'A\u0000' }, 10113],
    ];
    for (const [over, code, field] of cases) {
      const res = await addCommand(g.id, { ...READ, ...over });
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      const err = errorOf(res);
      expect(err.code, JSON.stringify(over)).toBe(code);
      if (field) {
        expect(
          (err.details as { field: string }[]).map((d) => d.field),
          JSON.stringify(over),
        ).toContain(field);
      }
    }
  });

  it('stores a good definition, reads and replaces it', async () => {
    const g = await makeGroup(dev.productKey, 'Good');
    const res = await addCommand(g.id, READ);
    expect(res.statusCode, res.body).toBe(200);
    const c = data<GroupCommandItem>(res);
    expect(c).toMatchObject({ group_id: g.id, name: 'Read registers', timeout_s: 10, reply_pattern: '^01' });
    const put = await t.inject({
      method: 'PUT',
      url: `/api/command-groups/${g.id}/commands/${c.id}`,
      token: admin,
      payload: { ...READ, name: 'Read', description: 'FC 03' },
    });
    expect(data<GroupCommandItem>(put)).toMatchObject({ name: 'Read', description: 'FC 03' });
    const detail = data<CommandGroupDetail>(
      await t.inject({ method: 'GET', url: `/api/command-groups/${g.id}`, token: admin }),
    );
    expect(detail.command_count).toBe(1);
    expect(detail.commands[0]?.params).toHaveLength(3);
    // A command of another group is not found through this one.
    const g2 = await makeGroup(dev.productKey, 'Other');
    const cross = await t.inject({
      method: 'GET',
      url: `/api/command-groups/${g2.id}/commands/${c.id}`,
      token: admin,
    });
    expect(errorOf(cross).code).toBe(10107);
    const del = await t.inject({
      method: 'DELETE',
      url: `/api/command-groups/${g.id}/commands/${c.id}`,
      token: admin,
    });
    expect(del.statusCode).toBe(200);
  });
});

describe('sending a predefined command', () => {
  let group: CommandGroupItem;
  let read: GroupCommandItem;
  let say: GroupCommandItem;
  let foreign: GroupCommandItem;
  let raw: RawDevice;

  beforeAll(async () => {
    group = await makeGroup(dev.productKey, 'Field');
    read = data<GroupCommandItem>(await addCommand(group.id, READ));
    say = data<GroupCommandItem>(
      await addCommand(group.id, {
        name: 'Set APN',
        type: 'string',
        data: 'AT+APN={{apn}},{{mode}},{{level}}',
        params: [
          { name: 'apn', type: 'string', max_length: 16, pattern: '[a-z.]+' },
          { name: 'mode', type: 'enum', options: ['auto', 'manual'] },
          { name: 'level', type: 'number', min: 0, max: 1.5 },
        ],
      }),
    );
    const og = await makeGroup(other.productKey, 'Other product');
    foreign = data<GroupCommandItem>(await addCommand(og.id, READ));
    raw = await RawDevice.connect({ mqttPort: t.app.broker.port! }, 'tcp', 4, dev);
    raws.push(raw);
    await raw.connack();
    raw.send({
      cmd: 'subscribe',
      messageId: 1,
      subscriptions: [{ topic: `dev/${dev.productKey}/${dev.sn}/down/#`, qos: 1 }],
    });
    await raw.next('suback');
  });

  const send = (params: Record<string, string | number>, token = owner.token, cmdId = read.id, sn = dev.sn) =>
    t.inject({
      method: 'POST',
      url: `/api/devices/${sn}/command-groups/commands/${cmdId}/send`,
      token,
      payload: { params },
    });

  it("lists the product's groups for whoever may control the device", async () => {
    const res = await t.inject({
      method: 'GET',
      url: `/api/devices/${dev.sn}/command-groups`,
      token: owner.token,
    });
    expect(res.statusCode).toBe(200);
    const groups = data<DeviceCommandGroup[]>(res);
    const field = groups.find((g) => g.id === group.id);
    expect(field?.commands.map((c) => c.name)).toEqual(['Read registers', 'Set APN']);
    // Only this product's groups.
    expect(groups.some((g) => g.name === 'Other product')).toBe(false);
    const shared = await t.inject({
      method: 'GET',
      url: `/api/devices/${dev.sn}/command-groups`,
      token: controller.token,
    });
    expect(shared.statusCode).toBe(200);
  });

  it('refuses a stranger (10117) and a view-only share (10108)', async () => {
    for (const [token, code] of [
      [stranger.token, 10117],
      [viewer.token, 10108],
    ] as const) {
      const list = await t.inject({ method: 'GET', url: `/api/devices/${dev.sn}/command-groups`, token });
      expect(errorOf(list).code).toBe(code);
      const res = await send({ slave: 1, addr: '0000', count: 2 }, token);
      expect(errorOf(res).code).toBe(code);
    }
  });

  it('checks every parameter against its definition', async () => {
    const cases: [Record<string, string | number>, number, string, number?][] = [
      [{ addr: '0000', count: 2 }, 90000, 'params.slave'],
      [{ slave: '  ', addr: '0000', count: 2 }, 90001, 'params.slave'],
      [{ slave: 0, addr: '0000', count: 2 }, 70003, 'params.slave'],
      [{ slave: 248, addr: '0000', count: 2 }, 70003, 'params.slave'],
      [{ slave: '1.5', addr: '0000', count: 2 }, 70003, 'params.slave'],
      [{ slave: 1, addr: '0x10', count: 2 }, 70003, 'params.addr'],
      [{ slave: 1, addr: 'zz', count: 2 }, 70003, 'params.addr'],
      [{ slave: 1, addr: '123456', count: 2 }, 70003, 'params.addr'],
      [{ slave: 1, addr: '0000', count: 126 }, 70003, 'params.count'],
      [{ apn: 'CMNET', mode: 'auto', level: 1 }, 70003, 'params.apn', 1],
      [{ apn: 'cmnet', mode: 'fast', level: 1 }, 70003, 'params.mode', 1],
      [{ apn: 'cmnet', mode: 'auto', level: 2 }, 70003, 'params.level', 1],
      [{ apn: 'cmnet', mode: 'auto', level: 'x' }, 70003, 'params.level', 1],
      [{ apn: 'a'.repeat(17), mode: 'auto', level: 1 }, 70003, 'params.apn', 1],
    ];
    for (const [params, code, field, which] of cases) {
      const res = await send(params, owner.token, which ? say.id : read.id);
      expect(res.statusCode, JSON.stringify(params)).toBe(400);
      const err = errorOf(res);
      expect(err.code, JSON.stringify(params)).toBe(code);
      expect((err.details as { field: string }[]).map((d) => d.field)).toContain(field);
    }
    const huge = await send({ slave: '9'.repeat(5000), addr: '0000', count: 2 });
    expect(errorOf(huge).code).toBe(10113);
    const nul = await send({ apn: 'a\u0000', mode: 'auto', level: 1 }, owner.token, say.id);
    expect(errorOf(nul).code).toBe(10113);
  });

  it("refuses a command of another product's group (10107)", async () => {
    const res = await send({ slave: 1, addr: '0000', count: 2 }, owner.token, foreign.id);
    expect(errorOf(res).code).toBe(10107);
  });

  it('renders, sends to the device over MQTT, and the history names the predefined command', async () => {
    const res = await send({ slave: 1, addr: 'a', count: 2 }, controller.token);
    expect(res.statusCode, res.body).toBe(200);
    const sent = data<CommandItem>(res);
    // slave 1 -> 01, addr "a" padded to 2 bytes -> 000A, count 2 in 2 bytes -> 0002.
    expect(sent.data).toBe('0103000A0002');
    expect(sent.command_ref).toEqual({
      group_id: group.id,
      command_id: read.id,
      group: 'Field',
      name: 'Read registers',
    });
    const pub = (await raw.next('publish')) as IPublishPacket;
    expect(pub.topic).toBe(downTopic(dev.productKey, dev.sn, 'cmd'));
    const body = JSON.parse(pub.payload.toString()) as { id: string; type: string; data: string };
    expect(body).toEqual({ id: sent.id, type: 'hex', data: '0103000A0002' });
    raw.send({
      cmd: 'publish',
      topic: upTopic(dev.productKey, dev.sn, 'cmd_reply'),
      payload: Buffer.from(JSON.stringify({ id: sent.id, code: 0, data: '010304000A0002' })),
      qos: 0,
      retain: false,
      dup: false,
    });
    const replied = await eventually(async () => {
      const list = await t.inject({
        method: 'GET',
        url: `/api/devices/${dev.sn}/commands`,
        token: owner.token,
      });
      const row = data<CommandItem[]>(list).find((c) => c.id === sent.id);
      return row?.status === 'replied' ? row : undefined;
    });
    expect(replied).toMatchObject({
      reply: '010304000A0002',
      command_ref: { name: 'Read registers', group: 'Field' },
    });
  });

  it('renders a string command and a typed command has no ref', async () => {
    const res = await send({ apn: 'cmnet', mode: 'manual', level: '0.5' }, owner.token, say.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(data<CommandItem>(res).data).toBe('AT+APN=cmnet,manual,0.5');
    await raw.next('publish');
    const typed = await t.inject({
      method: 'POST',
      url: `/api/devices/${dev.sn}/commands`,
      token: owner.token,
      payload: { type: 'string', data: 'AT' },
    });
    expect(data<CommandItem>(typed).command_ref).toBeNull();
    await raw.next('publish');
  });

  it('keeps the names in history after the group is deleted', async () => {
    const g = await makeGroup(dev.productKey, 'Short-lived');
    const c = data<GroupCommandItem>(
      await addCommand(g.id, { name: 'Ping', type: 'string', data: 'PING', params: [] }),
    );
    const res = await send({}, owner.token, c.id);
    expect(res.statusCode, res.body).toBe(200);
    await raw.next('publish');
    await t.inject({ method: 'DELETE', url: `/api/command-groups/${g.id}`, token: admin });
    const list = await t.inject({
      method: 'GET',
      url: `/api/devices/${dev.sn}/commands`,
      token: owner.token,
    });
    const row = data<CommandItem[]>(list).find((x) => x.id === data<CommandItem>(res).id);
    expect(row?.command_ref).toMatchObject({ group: 'Short-lived', name: 'Ping' });
  });

  it('answers 20401 for an offline device', async () => {
    const [off] = await createDevices(t, owner.token, ['CG-OFF'], { name: 'Offline DTU' });
    const g = await makeGroup(off!.productKey, 'Off');
    const c = data<GroupCommandItem>(
      await addCommand(g.id, { name: 'Ping', type: 'string', data: 'PING', params: [] }),
    );
    const res = await send({}, owner.token, c.id, off!.sn);
    expect(errorOf(res).code).toBe(20401);
  });

  it("queued for an offline device, goes out later with the command's own reply timeout", async () => {
    const [off] = await createDevices(t, owner.token, ['CG-LATER'], { name: 'Later DTU' });
    const g = await makeGroup(off!.productKey, 'Later');
    const slow = data<GroupCommandItem>(
      await addCommand(g.id, { name: 'Slow', type: 'string', data: 'SLOW', params: [], timeout_s: 7 }),
    );
    const quick = data<GroupCommandItem>(
      await addCommand(g.id, { name: 'Quick', type: 'string', data: 'QUICK', params: [], timeout_s: 250 }),
    );
    const queued: CommandItem[] = [];
    for (const c of [slow, quick]) {
      const res = await t.inject({
        method: 'POST',
        url: `/api/devices/${off!.sn}/command-groups/commands/${c.id}/send`,
        token: owner.token,
        payload: { params: {}, offline: 'queue', ttl_seconds: 3600 },
      });
      expect(res.statusCode, res.body).toBe(200);
      queued.push(data<CommandItem>(res));
    }
    expect(queued.map((c) => c.status)).toEqual(['pending', 'pending']);
    // The device connects later; the queue is delivered when it subscribes.
    const later = await RawDevice.connect({ mqttPort: t.app.broker.port! }, 'tcp', 4, off!);
    raws.push(later);
    await later.connack();
    later.send({
      cmd: 'subscribe',
      messageId: 1,
      subscriptions: [{ topic: `dev/${off!.productKey}/${off!.sn}/down/#`, qos: 1 }],
    });
    await later.next('suback');
    const rows = await eventually(async () => {
      const got = await t.app.deps.db
        .select()
        .from(deviceCommands)
        .where(
          inArray(
            deviceCommands.id,
            queued.map((c) => c.id),
          ),
        );
      return got.length === 2 && got.every((r) => r.status === 'sent') ? got : undefined;
    });
    const windowOf = (id: string) => {
      const r = rows.find((x) => x.id === id)!;
      return r.timeoutat.getTime() - r.sentat.getTime();
    };
    expect(windowOf(queued[0]!.id)).toBe(7_000);
    expect(windowOf(queued[1]!.id)).toBe(250_000);
  });
});
