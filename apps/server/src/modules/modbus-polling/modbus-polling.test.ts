// Platform polling against devsim's Modbus slaves behind a transparent DTU, through the real broker and gateway.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualDevice } from '../../../../devsim/src/device';
import { ModbusBus } from '../../../../devsim/src/modbus';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { createDevices, eventually, type TestDevice } from '../../test/gateway-test-kit';
import { auditLogs } from '../audit/audit.table';
import {
  dataTemplates,
  dataTemplateSlaves,
  dataTemplateVariables,
  deviceDataTemplates,
} from '../data-templates/data-templates.table';
import { devices } from '../devices/devices.table';
import { rawMessages } from '../telemetry/telemetry.table';
import { modbusVariableStatus } from './modbus-polling.table';

let t: TestApp;
let owner: { uid: number; token: string; username: string };
let stranger: { uid: number; token: string; username: string };
const sims: VirtualDevice[] = [];

type VarSpec = Partial<typeof dataTemplateVariables.$inferInsert> &
  Pick<typeof dataTemplateVariables.$inferInsert, 'tag' | 'registerType' | 'registerAddress' | 'dataFormat'>;

/** A platform-polled template with one slave, applied to the device. */
async function applyTemplate(
  sn: string,
  slave: number,
  vars: VarSpec[],
  collectMode: 'platform' | 'dtu' = 'platform',
) {
  const db = t.app.deps.db;
  const [tpl] = await db
    .insert(dataTemplates)
    .values({ uid: owner.uid, name: `tpl ${sn}`, collectMode })
    .returning();
  const [s] = await db
    .insert(dataTemplateSlaves)
    .values({ templateId: tpl!.id, name: 'meter', address: slave })
    .returning();
  await db.insert(dataTemplateVariables).values(
    vars.map((v) => ({
      templateId: tpl!.id,
      slaveId: s!.id,
      name: v.tag,
      samplingCycleS: 1,
      functionCode: { coil: 1, discrete_input: 2, holding: 3, input: 4 }[v.registerType],
      ...v,
    })),
  );
  const [d] = await db.select({ id: devices.id }).from(devices).where(eq(devices.sn, sn));
  await db.insert(deviceDataTemplates).values({ deviceId: d!.id, templateId: tpl!.id });
  return d!.id;
}

async function dtu(d: TestDevice, bus: ModbusBus) {
  const sim = new VirtualDevice(
    { sn: d.sn, product_key: d.productKey, secret: d.secret },
    { url: `mqtt://127.0.0.1:${t.app.broker.port}`, configGet: false, modbus: bus },
  );
  await sim.connect();
  sims.push(sim);
  t.app.modbusPoller.invalidate();
  return sim;
}

async function latest(sn: string): Promise<Record<string, unknown>> {
  const res = await t.inject({ method: 'GET', url: `/api/devices/${sn}/properties`, token: owner.token });
  const items = (res.json() as { data: { key: string; value: unknown }[] }).data;
  return Object.fromEntries(items.map((i) => [i.key, i.value]));
}

async function status(sn: string, token = owner.token) {
  const res = await t.inject({ method: 'GET', url: `/api/devices/${sn}/modbus/variables`, token });
  expect(res.statusCode, res.body).toBe(200);
  return new Map(
    (res.json() as { data: { variables: Record<string, unknown>[] } }).data.variables.map((v) => [
      v.tag as string,
      v,
    ]),
  );
}

let devs: TestDevice[];

beforeAll(async () => {
  t = await buildTestApp();
  t.app.modbusPoller.options.timeoutMs = 300;
  owner = await t.createUser('mbowner');
  stranger = await t.createUser('mbstranger');
  devs = await createDevices(
    t,
    owner.token,
    Array.from({ length: 6 }, (_, i) => `MBPOLL-${i + 1}`),
  );
});

afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await t.close();
});

describe('platform polling through a transparent DTU', () => {
  it('reads adjacent variables in one request, decodes them and stores properties, one request at a time', async () => {
    const d = devs[0]!;
    await applyTemplate(d.sn, 1, [
      {
        tag: 'temp',
        registerType: 'holding',
        registerAddress: 1,
        dataFormat: 'int16',
        captureFormula: 'x*0.1',
        decimals: 1,
      },
      {
        tag: 'flow',
        registerType: 'holding',
        registerAddress: 2,
        dataFormat: 'float32',
        byteOrder: 'CDAB',
        decimals: 2,
      },
      { tag: 'count', registerType: 'input', registerAddress: 10, dataFormat: 'uint32', byteOrder: 'ABCD' },
      { tag: 'pump', registerType: 'coil', registerAddress: 5, dataFormat: 'bool' },
      { tag: 'setpoint', registerType: 'holding', registerAddress: 20, dataFormat: 'uint16', access: 'w' },
    ]);
    const bus = new ModbusBus([
      { address: 1, delayMs: 20, inputRegisters: { 9: 1, 10: 2 }, coils: { 4: true } },
    ]);
    const slave = bus.slave(1)!;
    slave.set('holding', 0, -123, 'int16');
    slave.set('holding', 1, 3.14159, 'float32', 'CDAB');
    // One request in flight per bus: a request never reaches the bus while an answer is pending.
    let outstanding = 0;
    let maxOutstanding = 0;
    const receive = bus.receive.bind(bus);
    bus.receive = (bytes, send) => {
      outstanding++;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      return receive(bytes, async (frame) => {
        outstanding--;
        await send(frame);
      });
    };
    await dtu(d, bus);
    const props = await eventually(async () => {
      const p = await latest(d.sn);
      return 'temp' in p && 'flow' in p && 'count' in p && 'pump' in p ? p : undefined;
    });
    expect(props).toMatchObject({ temp: -12.3, flow: 3.14, count: 65538, pump: true });
    expect(props).not.toHaveProperty('setpoint');
    // temp+flow share one FC3 request; count one FC4; pump one FC1; write-only setpoint is not polled.
    const fcs = slave.requests
      .slice(0, 3)
      .map((r) => r.fc)
      .sort();
    expect(fcs).toEqual([1, 3, 4]);
    const fc3 = slave.requests.find((r) => r.fc === 3);
    expect(fc3).toMatchObject({ address: 0, quantity: 3 });
    // It keeps polling at the sampling cycle, and the values follow the slave.
    slave.set('holding', 0, 250, 'int16');
    await eventually(async () => ((await latest(d.sn)).temp === 25 ? true : undefined));
    expect(maxOutstanding).toBe(1);
    const s = await status(d.sn);
    expect(s.get('temp')).toMatchObject({ timeouts: 0, exceptions: 0, crc_errors: 0 });
    expect((s.get('temp')!.reads as number) >= 2).toBe(true);
    expect(s.get('setpoint')).toMatchObject({ reads: 0, access: 'w' });
  });

  it('keeps polled answers as values, not raw messages; unsolicited frames are still stored', async () => {
    const d = devs[5]!;
    const deviceId = await applyTemplate(d.sn, 1, [
      { tag: 'level', registerType: 'holding', registerAddress: 1, dataFormat: 'uint16' },
    ]);
    const bus = new ModbusBus([{ address: 1 }]);
    bus.slave(1)!.set('holding', 0, 42, 'uint16');
    const sim = await dtu(d, bus);
    await eventually(async () => ((await latest(d.sn)).level === 42 ? true : undefined));
    await eventually(async () =>
      (t.app.modbusPoller.pending(deviceId).get('level')?.reads ?? 0) >= 2 ? true : undefined,
    );
    const rawsUp = () =>
      t.app.deps.db
        .select({ data: rawMessages.data })
        .from(rawMessages)
        .where(and(eq(rawMessages.deviceId, deviceId), eq(rawMessages.direction, 'up')));
    // Answers were consumed by the poller: none of them became a raw message.
    expect(await rawsUp()).toEqual([]);
    // Bytes sent while no request is in flight are the device's own: stored as a raw message. A frame that happens
    // to land inside an exchange is taken as (part of) its answer, so it is sent again until one is stored.
    const unsolicited = Buffer.from('hello modbus');
    await eventually(async () => {
      await sim.publishBytes('raw', unsolicited);
      const rows = await rawsUp();
      return rows.some((r) => r.data === unsolicited.toString('base64')) ? true : undefined;
    });
  });

  it('counts timeouts, exceptions and CRC errors per variable and shows the last error', async () => {
    const d = devs[1]!;
    const deviceId = await applyTemplate(d.sn, 2, [
      { tag: 'a', registerType: 'holding', registerAddress: 1, dataFormat: 'uint16' },
      { tag: 'b', registerType: 'holding', registerAddress: 2, dataFormat: 'uint16' },
    ]);
    const bus = new ModbusBus([{ address: 2, holdingRegisters: { 0: 1, 1: 2 } }]);
    const slave = bus.slave(2)!;
    slave.silent = true;
    await dtu(d, bus);
    const poller = t.app.modbusPoller;
    await eventually(async () =>
      (poller.pending(deviceId).get('a')?.timeouts ?? 0) >= 1 ? true : undefined,
    );
    slave.silent = false;
    slave.exception = 2;
    await eventually(async () =>
      (poller.pending(deviceId).get('b')?.exceptions ?? 0) >= 1 ? true : undefined,
    );
    slave.exception = undefined;
    slave.corruptCrc = true;
    await eventually(async () =>
      (poller.pending(deviceId).get('a')?.crcErrors ?? 0) >= 1 ? true : undefined,
    );
    slave.corruptCrc = false;
    await eventually(async () => ((await latest(d.sn)).b === 2 ? true : undefined));
    await poller.flush();
    const s = await status(d.sn);
    for (const tag of ['a', 'b']) {
      const v = s.get(tag)!;
      expect(v.timeouts as number, tag).toBeGreaterThanOrEqual(1);
      expect(v.exceptions as number, tag).toBeGreaterThanOrEqual(1);
      expect(v.crc_errors as number, tag).toBeGreaterThanOrEqual(1);
      expect(v.reads as number, tag).toBeGreaterThanOrEqual(1);
    }
    // The counters reached the table.
    const rows = await t.app.deps.db
      .select()
      .from(modbusVariableStatus)
      .where(eq(modbusVariableStatus.deviceId, deviceId));
    expect(rows.map((r) => r.tag).sort()).toEqual(['a', 'b']);
    expect(rows.every((r) => r.timeouts >= 1 && r.exceptions >= 1 && r.crcErrors >= 1)).toBe(true);
  });

  it('test-reads one variable, with the frames both ways', async () => {
    const d = devs[2]!;
    await applyTemplate(
      d.sn,
      3,
      [
        {
          tag: 'volts',
          registerType: 'input',
          registerAddress: 1,
          dataFormat: 'float32',
          byteOrder: 'ABCD',
          captureFormula: 'x * 2',
          decimals: 1,
          samplingCycleS: 3600,
        },
      ],
      'dtu',
    );
    const bus = new ModbusBus([{ address: 3 }]);
    bus.slave(3)!.set('input', 0, 115.2, 'float32', 'ABCD');
    await dtu(d, bus);
    const res = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/modbus/variables/volts/read`,
      token: owner.token,
    });
    expect(res.statusCode, res.body).toBe(200);
    const r = (res.json() as { data: Record<string, unknown> }).data;
    expect(r).toMatchObject({
      outcome: 'response',
      code: 0,
      request: '030400000002' + r.request!.toString().slice(12),
      function_code: 4,
    });
    expect(r.request).toMatch(/^030400000002[0-9a-f]{4}$/);
    expect(r.response).toMatch(/^030404[0-9a-f]{8}[0-9a-f]{4}$/);
    expect(r.raw as number).toBeCloseTo(115.2, 3);
    expect(r.value).toBe(230.4);
    bus.slave(3)!.exception = 4;
    const ex = (
      await t.inject({
        method: 'POST',
        url: `/api/devices/${d.sn}/modbus/variables/volts/read`,
        token: owner.token,
      })
    ).json() as { data: Record<string, unknown> };
    expect(ex.data).toMatchObject({ outcome: 'exception', code: 81002, exception_code: 4 });
    expect(ex.data.response).toMatch(/^0384 ?04/);
    bus.slave(3)!.exception = undefined;
    bus.slave(3)!.silent = true;
    const to = (
      await t.inject({
        method: 'POST',
        url: `/api/devices/${d.sn}/modbus/variables/volts/read`,
        token: owner.token,
      })
    ).json() as { data: Record<string, unknown> };
    expect(to.data).toMatchObject({ outcome: 'timeout', code: 81001, response: '' });
    // A late answer (after the timeout) is not taken for the next request's answer: the bus keeps silent a moment.
    bus.slave(3)!.silent = false;
    bus.slave(3)!.delayMs = 320;
    for (let i = 0; i < 2; i++) {
      const late = (
        await t.inject({
          method: 'POST',
          url: `/api/devices/${d.sn}/modbus/variables/volts/read`,
          token: owner.token,
        })
      ).json() as { data: Record<string, unknown> };
      expect(late.data, `read ${i}`).toMatchObject({ outcome: 'timeout', response: '' });
    }
    bus.slave(3)!.delayMs = 0;
    await eventually(async () => {
      const r2 = (
        await t.inject({
          method: 'POST',
          url: `/api/devices/${d.sn}/modbus/variables/volts/read`,
          token: owner.token,
        })
      ).json() as { data: Record<string, unknown> };
      return r2.data.outcome === 'response' ? r2 : undefined;
    });
    const missing = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/modbus/variables/nope/read`,
      token: owner.token,
    });
    expect(errorOf(missing).code).toBe(10113);
  });

  it('writes through the control formula with the right function code, checks the answer and audits', async () => {
    const d = devs[3]!;
    await applyTemplate(d.sn, 4, [
      {
        tag: 'sp',
        registerType: 'holding',
        registerAddress: 1,
        dataFormat: 'int16',
        access: 'rw',
        captureFormula: 'x*0.1+2',
        samplingCycleS: 3600,
      },
      {
        tag: 'big',
        registerType: 'holding',
        registerAddress: 3,
        dataFormat: 'float32',
        byteOrder: 'DCBA',
        access: 'rw',
        samplingCycleS: 3600,
      },
      {
        tag: 'relay',
        registerType: 'coil',
        registerAddress: 1,
        dataFormat: 'bool',
        access: 'rw',
        samplingCycleS: 3600,
      },
      { tag: 'ro', registerType: 'input', registerAddress: 1, dataFormat: 'uint16', samplingCycleS: 3600 },
      {
        tag: 'sq',
        registerType: 'holding',
        registerAddress: 9,
        dataFormat: 'uint16',
        access: 'rw',
        captureFormula: 'x*x',
        samplingCycleS: 3600,
      },
    ]);
    const bus = new ModbusBus([
      {
        address: 4,
        holdingRegisters: { 0: 0, 2: 0, 3: 0, 8: 0 },
        coils: { 0: false },
        inputRegisters: { 0: 1 },
      },
    ]);
    const slave = bus.slave(4)!;
    await dtu(d, bus);
    // The first scheduled reads (hourly after that) are done: nothing else will use the bus during the writes.
    await eventually(async () => {
      const st = await status(d.sn);
      return ['sp', 'big', 'relay', 'ro', 'sq'].every((tag) => (st.get(tag)!.reads as number) >= 1)
        ? true
        : undefined;
    });
    const write = (tag: string, value: unknown, token = owner.token) =>
      t.inject({
        method: 'POST',
        url: `/api/devices/${d.sn}/modbus/variables/${tag}/write`,
        token,
        payload: { value },
      });

    let res = await write('sp', 14.5);
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { data: unknown }).data).toMatchObject({
      outcome: 'response',
      raw: 125,
      value: 14.5,
      function_code: 6,
    });
    expect(slave.words('holding', 0, 1)).toEqual([125]);
    res = await write('big', 12.5);
    expect((res.json() as { data: unknown }).data).toMatchObject({ outcome: 'response', function_code: 16 });
    expect(slave.words('holding', 2, 2)).toEqual([0x0000, 0x4841]);
    res = await write('relay', true);
    expect((res.json() as { data: unknown }).data).toMatchObject({ function_code: 5 });
    expect(slave.coils.get(0)).toBe(1);

    expect(errorOf(await write('ro', 1)).code).toBe(80007);
    expect(errorOf(await write('sq', 4)).code).toBe(80004); // not linear and no control formula
    expect(errorOf(await write('sp', 1e9)).code).toBe(80008);
    expect(errorOf(await write('sp', 'abc')).code).not.toBe(0);
    slave.queuedExceptions.push(3);
    const ex = await write('sp', 3);
    expect(errorOf(ex).code).toBe(81002);
    slave.corruptCrc = true;
    expect(errorOf(await write('sp', 3)).code).toBe(81003);
    slave.corruptCrc = false;
    slave.silent = true;
    expect(errorOf(await write('sp', 3)).code).toBe(81001);
    slave.silent = false;

    // Strangers do not see the device at all.
    expect(errorOf(await write('sp', 3, stranger.token)).code).toBe(10117);
    const audits = await t.app.deps.db.select().from(auditLogs).where(eq(auditLogs.action, 'modbus_write'));
    const mine = audits.filter((a) => a.target === d.sn);
    expect(mine.length).toBe(6);
    expect(mine.map((a) => (a.detail as { outcome: string }).outcome).sort()).toEqual(
      ['exception', 'crc', 'response', 'response', 'response', 'timeout'].sort(),
    );
  });

  it('answers 81004 for a device without a template and 20401 when the DTU is offline', async () => {
    const d = devs[4]!;
    const none = await t.inject({
      method: 'GET',
      url: `/api/devices/${d.sn}/modbus/variables`,
      token: owner.token,
    });
    expect(errorOf(none).code).toBe(81004);
    await applyTemplate(d.sn, 5, [
      { tag: 'x1', registerType: 'holding', registerAddress: 1, dataFormat: 'uint16', access: 'rw' },
    ]);
    const off = await t.inject({
      method: 'POST',
      url: `/api/devices/${d.sn}/modbus/variables/x1/read`,
      token: owner.token,
    });
    expect(errorOf(off).code).toBe(20401);
  });
});
