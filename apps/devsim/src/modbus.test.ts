import {
  decodeValue,
  encodeRequest,
  type ModbusRequest,
  parseResponse,
  type ReadResult,
  ResponseStream,
  toHex,
} from '@cellhub/contract/modbus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualDevice } from './device';
import { demoMeter, ModbusBus, ModbusSlave } from './modbus';
import { startTestBroker, type TestBroker, waitFor } from './test-broker';

let broker: TestBroker;
const uplinks: { sn: string; bytes: Uint8Array }[] = [];

beforeAll(async () => {
  broker = await startTestBroker();
  broker.aedes.on('publish', (packet, client) => {
    if (client && packet.topic.endsWith('/up/raw'))
      uplinks.push({ sn: client.id, bytes: new Uint8Array(Buffer.from(packet.payload)) });
  });
});

afterAll(async () => {
  await broker.close();
});

const sendRaw = (d: VirtualDevice, bytes: Uint8Array) =>
  new Promise<void>((resolve, reject) =>
    broker.aedes.publish(
      {
        cmd: 'publish',
        topic: `${d.prefix}/down/raw`,
        payload: Buffer.from(bytes),
        qos: 1,
        retain: false,
        dup: false,
      },
      (err) => (err ? reject(err) : resolve()),
    ),
  );

async function dtu(sn: string, bus: ModbusBus) {
  const d = new VirtualDevice(
    { sn, product_key: 'pk_mb', secret: 's'.repeat(32) },
    { url: broker.url, modbus: bus, configGet: false },
  );
  await d.connect();
  return d;
}

/** Sends a request on down/raw and waits for the next answer on up/raw of that device. */
async function exchange(d: VirtualDevice, req: ModbusRequest, chunks = 1): Promise<ReadResult> {
  const before = uplinks.filter((u) => u.sn === d.identity.sn).length;
  const frame = encodeRequest(req);
  const step = Math.ceil(frame.length / chunks);
  for (let i = 0; i < frame.length; i += step) await sendRaw(d, frame.slice(i, i + step));
  const got = await waitFor(() => uplinks.filter((u) => u.sn === d.identity.sn)[before]);
  const stream = new ResponseStream();
  stream.expect(req);
  const [r] = stream.push(got.bytes);
  expect(r).toBeDefined();
  return r!;
}

describe('modbus slaves behind a transparent DTU', () => {
  it('answers reads and writes on up/raw, also for a request split over packets', async () => {
    const bus = new ModbusBus([
      { address: 1, holdingRegisters: { 0: 100, 1: 0x4148, 2: 0 }, coils: { 4: true, 5: false } },
      { address: 2, inputRegisters: { 9: 7 }, discreteInputs: { 0: true } },
    ]);
    const d = await dtu('MB0001', bus);
    const r = await exchange(d, { fc: 3, unit: 1, address: 0, quantity: 3 }, 3);
    expect(r.kind === 'response' && r.response.fc === 3 && r.response.registers).toEqual([100, 0x4148, 0]);
    if (r.kind === 'response' && r.response.fc === 3)
      expect(decodeValue(r.response.data, 2, 'float32', 'ABCD')).toBe(12.5);
    const coils = await exchange(d, { fc: 1, unit: 1, address: 4, quantity: 2 });
    expect(coils.kind === 'response' && coils.response.fc === 1 && coils.response.bits).toEqual([
      true,
      false,
    ]);
    const inputs = await exchange(d, { fc: 4, unit: 2, address: 9, quantity: 1 });
    expect(inputs.kind === 'response' && inputs.response.fc === 4 && inputs.response.registers).toEqual([7]);

    expect((await exchange(d, { fc: 6, unit: 1, address: 0, value: 321 })).kind).toBe('response');
    expect((await exchange(d, { fc: 16, unit: 1, address: 1, values: [1, 2] })).kind).toBe('response');
    expect((await exchange(d, { fc: 5, unit: 1, address: 5, value: true })).kind).toBe('response');
    expect((await exchange(d, { fc: 15, unit: 1, address: 4, values: [false, false] })).kind).toBe(
      'response',
    );
    const slave = bus.slave(1)!;
    expect(slave.words('holding', 0, 3)).toEqual([321, 1, 2]);
    expect([slave.coils.get(4), slave.coils.get(5)]).toEqual([0, 0]);
    await d.close();
  });

  it('answers exceptions: unmapped addresses, unsupported codes, and on request', async () => {
    const bus = new ModbusBus([{ address: 3, holdingRegisters: { 0: 1 } }]);
    const d = await dtu('MB0002', bus);
    expect(await exchange(d, { fc: 3, unit: 3, address: 0, quantity: 2 })).toMatchObject({
      kind: 'exception',
      code: 2,
      name: 'Illegal data address',
    });
    expect(await exchange(d, { fc: 12, unit: 3 })).toMatchObject({ kind: 'exception', code: 1 });
    bus.slave(3)!.queuedExceptions.push(6);
    expect(await exchange(d, { fc: 3, unit: 3, address: 0, quantity: 1 })).toMatchObject({
      kind: 'exception',
      code: 6,
    });
    expect((await exchange(d, { fc: 3, unit: 3, address: 0, quantity: 1 })).kind).toBe('response');
    bus.slave(3)!.exception = 4;
    expect(await exchange(d, { fc: 6, unit: 3, address: 0, value: 9 })).toMatchObject({
      kind: 'exception',
      fc: 6,
      code: 4,
    });
    expect(bus.slave(3)!.words('holding', 0, 1)).toEqual([1]);
    await d.close();
  });

  it('corrupts the CRC when asked, and stays quiet for absent slaves and broken frames', async () => {
    const bus = new ModbusBus([{ address: 5, holdingRegisters: { 0: 42 } }]);
    const d = await dtu('MB0003', bus);
    bus.slave(5)!.corruptCrc = true;
    expect(await exchange(d, { fc: 3, unit: 5, address: 0, quantity: 1 })).toMatchObject({
      kind: 'error',
      error: 'crc',
    });
    bus.slave(5)!.corruptCrc = false;
    // Nobody at 6, and a frame with a broken CRC: no answers, so the next answer is the one to slave 5.
    const before = uplinks.filter((u) => u.sn === 'MB0003').length;
    await sendRaw(d, encodeRequest({ fc: 3, unit: 6, address: 0, quantity: 1 }));
    const broken = encodeRequest({ fc: 3, unit: 5, address: 0, quantity: 1 });
    broken[7] = broken[7]! ^ 0xff;
    await sendRaw(d, broken);
    const r = await exchange(d, { fc: 3, unit: 5, address: 0, quantity: 1 });
    expect(r.kind === 'response' && r.response.fc === 3 && r.response.registers).toEqual([42]);
    expect(uplinks.filter((u) => u.sn === 'MB0003').length).toBe(before + 1);
    expect(bus.stats.garbage).toBe(1);
    bus.slave(5)!.silent = true;
    await sendRaw(d, encodeRequest({ fc: 3, unit: 5, address: 0, quantity: 1 }));
    await waitFor(() => bus.slave(5)!.requests.length === 3);
    // The bus answers in order: once slave 7 has answered, slave 5 had its turn and said nothing.
    bus.add({ address: 7, coils: { 0: true } });
    expect((await exchange(d, { fc: 1, unit: 7, address: 0, quantity: 1 })).kind).toBe('response');
    expect(uplinks.filter((u) => u.sn === 'MB0003').length).toBe(before + 2);
    await d.close();
  });

  it('answers slowly when told to', async () => {
    const bus = new ModbusBus([{ address: 1, inputRegisters: { 0: 1 }, delayMs: 150 }]);
    const d = await dtu('MB0004', bus);
    const t0 = Date.now();
    expect((await exchange(d, { fc: 4, unit: 1, address: 0, quantity: 1 })).kind).toBe('response');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
    await d.close();
  });

  it('lets registers and coils drift over time', async () => {
    const bus = new ModbusBus([
      {
        address: 1,
        drift: [
          {
            type: 'input',
            address: 0,
            format: 'float32',
            order: 'CDAB',
            min: 10,
            max: 30,
            periodMs: 400,
          },
          { type: 'coil', address: 0, min: 0, max: 1, periodMs: 400 },
        ],
      },
    ]);
    const d = await dtu('MB0005', bus);
    const seen = new Set<string>();
    const coils = new Set<boolean>();
    const deadline = Date.now() + 5000;
    while ((seen.size < 3 || coils.size < 2) && Date.now() < deadline) {
      const r = await exchange(d, { fc: 4, unit: 1, address: 0, quantity: 2 });
      if (r.kind === 'response' && r.response.fc === 4) {
        const v = decodeValue(r.response.data, 0, 'float32', 'CDAB') as number;
        expect(v).toBeGreaterThanOrEqual(10 - 1e-3);
        expect(v).toBeLessThanOrEqual(30 + 1e-3);
        seen.add(v.toFixed(3));
      }
      const c = await exchange(d, { fc: 1, unit: 1, address: 0, quantity: 1 });
      if (c.kind === 'response' && c.response.fc === 1) coils.add(c.response.bits[0]!);
    }
    expect(seen.size).toBeGreaterThanOrEqual(3);
    expect(coils.size).toBe(2);
    await d.close();
  });
});

describe('modbus slave without a broker', () => {
  it('executes broadcast writes without answering', () => {
    const slave = new ModbusSlave({ address: 9, holdingRegisters: { 3: 0 } });
    expect(slave.answer({ fc: 6, unit: 0, address: 3, value: 77 })).toBeUndefined();
    expect(slave.words('holding', 3, 1)).toEqual([77]);
  });

  it('stores typed values in register order', () => {
    const slave = new ModbusSlave({ address: 1 });
    slave.set('holding', 10, 12.5, 'float32', 'CDAB');
    const frame = slave.answer({ fc: 3, unit: 1, address: 10, quantity: 2 })!;
    expect(toHex(frame.slice(3, 7))).toBe('00004148');
    const r = parseResponse(frame, { fc: 3, unit: 1, address: 10, quantity: 2 });
    expect(r.kind).toBe('response');
  });

  it('serves the demo meter of --modbus', () => {
    const slave = new ModbusSlave(demoMeter());
    const temp = slave.answer({ fc: 3, unit: 1, address: 0, quantity: 3 })!;
    const r = parseResponse(temp, { fc: 3, unit: 1, address: 0, quantity: 3 });
    expect(r.kind).toBe('response');
    if (r.kind !== 'response' || r.response.fc !== 3) return;
    const t = decodeValue(r.response.data, 0, 'int16') as number;
    const v = decodeValue(r.response.data, 2, 'float32', 'ABCD') as number;
    expect(t).toBeGreaterThanOrEqual(150);
    expect(t).toBeLessThanOrEqual(300);
    expect(v).toBeGreaterThanOrEqual(215 - 1e-3);
    expect(v).toBeLessThanOrEqual(235 + 1e-3);
    const e = parseResponse(slave.answer({ fc: 4, unit: 1, address: 3, quantity: 2 })!, {
      fc: 4,
      unit: 1,
      address: 3,
      quantity: 2,
    });
    expect(
      e.kind === 'response' && e.response.fc === 4 && decodeValue(e.response.data, 0, 'uint32', 'CDAB'),
    ).toBeGreaterThanOrEqual(10_000);
    expect(parseResponse(slave.answer({ fc: 6, unit: 1, address: 10, value: 70 })!).kind).toBe('response');
    expect(slave.words('holding', 10, 1)).toEqual([70]);
  });
});
