import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc16, crcOk, fromHex, toHex, withCrc } from './crc';
import {
  encodeException,
  encodeRequest,
  encodeResponse,
  functionCodeRefusal,
  type ModbusRequest,
  ModbusFrameError,
  parseRequest,
  parseResponse,
  RequestStream,
  ResponseStream,
} from './frames';

const hex = (s: string) => fromHex(s)!;

// RTU frames with their CRCs as published (slave 0x11 examples of the serial-line references, and the
// commonly quoted 01 03 00 00 00 0A C5 CD).
const KNOWN: { name: string; request: ModbusRequest; req: string; res: string }[] = [
  {
    name: 'FC3 read 10 holding registers',
    request: { fc: 3, unit: 1, address: 0, quantity: 10 },
    req: '01 03 00 00 00 0A C5 CD',
    res: '',
  },
  {
    name: 'FC1 read coils 20-56',
    request: { fc: 1, unit: 0x11, address: 0x13, quantity: 0x25 },
    req: '11 01 00 13 00 25 0E 84',
    res: '11 01 05 CD 6B B2 0E 1B 45 E6',
  },
  {
    name: 'FC2 read discrete inputs 10197-10218',
    request: { fc: 2, unit: 0x11, address: 0xc4, quantity: 0x16 },
    req: '11 02 00 C4 00 16 BA A9',
    res: '11 02 03 AC DB 35 20 18',
  },
  {
    name: 'FC3 read holding registers 40108-40110',
    request: { fc: 3, unit: 0x11, address: 0x6b, quantity: 3 },
    req: '11 03 00 6B 00 03 76 87',
    res: '11 03 06 AE 41 56 52 43 40 49 AD',
  },
  {
    name: 'FC4 read input register 30009',
    request: { fc: 4, unit: 0x11, address: 8, quantity: 1 },
    req: '11 04 00 08 00 01 B2 98',
    res: '11 04 02 00 0A F8 F4',
  },
  {
    name: 'FC5 write single coil 173 on',
    request: { fc: 5, unit: 0x11, address: 0xac, value: true },
    req: '11 05 00 AC FF 00 4E 8B',
    res: '11 05 00 AC FF 00 4E 8B',
  },
  {
    name: 'FC6 write register 40002 = 3',
    request: { fc: 6, unit: 0x11, address: 1, value: 3 },
    req: '11 06 00 01 00 03 9A 9B',
    res: '11 06 00 01 00 03 9A 9B',
  },
  {
    name: 'FC15 write 10 coils from 20',
    request: {
      fc: 15,
      unit: 0x11,
      address: 0x13,
      values: [true, false, true, true, false, false, true, true, true, false],
    },
    req: '11 0F 00 13 00 0A 02 CD 01 BF 0B',
    res: '11 0F 00 13 00 0A 26 99',
  },
  {
    name: 'FC16 write 2 registers from 40002',
    request: { fc: 16, unit: 0x11, address: 1, values: [0x000a, 0x0102] },
    req: '11 10 00 01 00 02 04 00 0A 01 02 C6 F0',
    res: '11 10 00 01 00 02 12 98',
  },
];

// PDU examples of the Modbus application protocol specification V1.1b3 (section 6), framed for slave 1.
const SPEC_PDUS: { request: ModbusRequest; reqPdu: string; resPdu: string }[] = [
  { request: { fc: 1, unit: 1, address: 19, quantity: 19 }, reqPdu: '01 0013 0013', resPdu: '01 03 CD6B05' },
  { request: { fc: 2, unit: 1, address: 196, quantity: 22 }, reqPdu: '02 00C4 0016', resPdu: '02 03 ACDB35' },
  {
    request: { fc: 3, unit: 1, address: 107, quantity: 3 },
    reqPdu: '03 006B 0003',
    resPdu: '03 06 022B00000064',
  },
  { request: { fc: 4, unit: 1, address: 8, quantity: 1 }, reqPdu: '04 0008 0001', resPdu: '04 02 000A' },
  { request: { fc: 5, unit: 1, address: 172, value: true }, reqPdu: '05 00AC FF00', resPdu: '05 00AC FF00' },
  { request: { fc: 6, unit: 1, address: 1, value: 3 }, reqPdu: '06 0001 0003', resPdu: '06 0001 0003' },
  {
    request: { fc: 15, unit: 1, address: 19, values: [1, 0, 1, 1, 0, 0, 1, 1, 1, 0].map(Boolean) },
    reqPdu: '0F 0013 000A 02 CD01',
    resPdu: '0F 0013 000A',
  },
  {
    request: { fc: 16, unit: 1, address: 1, values: [0x000a, 0x0102] },
    reqPdu: '10 0001 0002 04 000A0102',
    resPdu: '10 0001 0002',
  },
  { request: { fc: 7, unit: 1 }, reqPdu: '07', resPdu: '07 6D' },
  {
    request: { fc: 8, unit: 1, subfunction: 0, data: 0xa537 },
    reqPdu: '08 0000 A537',
    resPdu: '08 0000 A537',
  },
  { request: { fc: 11, unit: 1 }, reqPdu: '0B', resPdu: '0B FFFF 0108' },
  {
    request: { fc: 12, unit: 1 },
    reqPdu: '0C',
    resPdu: '0C 08 0000 0108 0121 2000',
  },
];

describe('CRC16', () => {
  it('matches the published frames', () => {
    for (const k of KNOWN) {
      const frame = hex(k.req);
      expect(crcOk(frame), k.name).toBe(true);
      expect(crc16(frame, 0, frame.length - 2)).toBe(frame.at(-2)! | (frame.at(-1)! << 8));
    }
    expect(toHex(withCrc(hex('010300000001')))).toBe('010300000001840a');
  });

  it('detects every single-byte corruption', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (body, at, flip) => {
          const frame = withCrc(body);
          const i = at % frame.length;
          const bad = frame.slice();
          bad[i] = bad[i]! ^ flip;
          return crcOk(frame) && !crcOk(bad);
        },
      ),
    );
  });
});

describe('request and response frames', () => {
  it('encodes and decodes the published frames', () => {
    for (const k of KNOWN) {
      expect(toHex(encodeRequest(k.request)), k.name).toBe(toHex(hex(k.req)));
      const parsed = parseRequest(hex(k.req));
      expect(parsed.kind, k.name).toBe('request');
      if (parsed.kind === 'request') expect(parsed.request, k.name).toEqual(k.request);
      if (!k.res) continue;
      const r = parseResponse(hex(k.res), k.request);
      expect(r.kind, k.name).toBe('response');
      if (r.kind === 'response') expect(toHex(encodeResponse(r.response)), k.name).toBe(toHex(hex(k.res)));
    }
  });

  it('reads the values the references read', () => {
    const fc3 = parseResponse(hex(KNOWN[3]!.res), KNOWN[3]!.request);
    expect(fc3.kind === 'response' && fc3.response.fc === 3 && fc3.response.registers).toEqual([
      0xae41, 0x5652, 0x4340,
    ]);
    const fc1 = parseResponse(hex(KNOWN[1]!.res), KNOWN[1]!.request);
    // coils 20-27 = CD = 1100 1101, LSB first
    expect(fc1.kind === 'response' && fc1.response.fc === 1 && fc1.response.bits.slice(0, 8)).toEqual(
      [1, 0, 1, 1, 0, 0, 1, 1].map(Boolean),
    );
    expect(fc1.kind === 'response' && fc1.response.fc === 1 && fc1.response.bits.length).toBe(37);
  });

  it('follows the PDUs of the application protocol specification', () => {
    for (const s of SPEC_PDUS) {
      const frame = encodeRequest(s.request);
      expect(toHex(frame.slice(1, -2)), `FC${s.request.fc}`).toBe(toHex(hex(s.reqPdu)));
      const res = withCrc(Uint8Array.from([1, ...hex(s.resPdu)]));
      const r = parseResponse(res, s.request);
      expect(r.kind, `FC${s.request.fc}`).toBe('response');
      if (r.kind === 'response') expect(toHex(encodeResponse(r.response))).toBe(toHex(res));
    }
    const fc3 = parseResponse(withCrc(hex('0103 06 022B00000064')), SPEC_PDUS[2]!.request);
    expect(fc3.kind === 'response' && fc3.response.fc === 3 && fc3.response.registers).toEqual([555, 0, 100]);
  });

  it('decodes exception responses with their names', () => {
    // Specification example: read input register 0x04A1 of a slave that has none -> 84 02.
    const req: ModbusRequest = { fc: 4, unit: 1, address: 0x04a1, quantity: 1 };
    const r = parseResponse(encodeException(1, 4, 2), req);
    expect(r).toMatchObject({ kind: 'exception', fc: 4, code: 2, name: 'Illegal data address' });
    expect(toHex(encodeException(1, 4, 2)).slice(0, 6)).toBe('018402');
    for (let code = 1; code <= 11; code++) {
      const e = parseResponse(encodeException(1, 4, code), req);
      expect(e.kind === 'exception' && e.name).toMatch(/\w/);
    }
    expect(parseResponse(encodeException(1, 3, 2), req)).toMatchObject({ kind: 'error', error: 'function' });
  });

  it('checks unit, function, length, CRC and echo', () => {
    const req: ModbusRequest = { fc: 3, unit: 1, address: 0, quantity: 2 };
    const ok = encodeResponse({ fc: 3, unit: 1, registers: [1, 2], data: new Uint8Array() });
    expect(parseResponse(ok, req).kind).toBe('response');
    const other = encodeResponse({ fc: 3, unit: 2, registers: [1, 2], data: new Uint8Array() });
    expect(parseResponse(other, req)).toMatchObject({ error: 'address' });
    const short = encodeResponse({ fc: 3, unit: 1, registers: [1], data: new Uint8Array() });
    expect(parseResponse(short, req)).toMatchObject({ error: 'length' });
    const fc4 = encodeResponse({ fc: 4, unit: 1, registers: [1, 2], data: new Uint8Array() });
    expect(parseResponse(fc4, req)).toMatchObject({ error: 'function' });
    const bad = ok.slice();
    bad[4] = bad[4]! ^ 0x10;
    expect(parseResponse(bad, req)).toMatchObject({ error: 'crc' });
    const w: ModbusRequest = { fc: 6, unit: 1, address: 5, value: 7 };
    expect(parseResponse(encodeResponse({ fc: 6, unit: 1, address: 5, value: 8 }), w)).toMatchObject({
      error: 'mismatch',
    });
    expect(parseResponse(hex('01 63 00'))).toMatchObject({ error: 'function' });
  });

  it('refuses requests the protocol forbids, with a reason', () => {
    const bad: ModbusRequest[] = [
      { fc: 3, unit: 0, address: 0, quantity: 1 },
      { fc: 3, unit: 248, address: 0, quantity: 1 },
      { fc: 3, unit: 1, address: 0, quantity: 126 },
      { fc: 1, unit: 1, address: 0, quantity: 2001 },
      { fc: 3, unit: 1, address: 65535, quantity: 2 },
      { fc: 6, unit: 1, address: 0, value: 65536 },
      { fc: 16, unit: 1, address: 0, values: [] },
      { fc: 9 as 3, unit: 1, address: 0, quantity: 1 },
    ];
    for (const r of bad) expect(() => encodeRequest(r), JSON.stringify(r)).toThrow(ModbusFrameError);
    expect(functionCodeRefusal(9)).toMatch(/not defined/);
    expect(functionCodeRefusal(10)).toMatch(/not defined/);
    expect(functionCodeRefusal(13)).toMatch(/not supported/);
    expect(functionCodeRefusal(7)).toBeUndefined();
    // Broadcast (unit 0) is for writes only.
    expect(toHex(encodeRequest({ fc: 6, unit: 0, address: 1, value: 1 })).slice(0, 4)).toBe('0006');
  });
});

describe('response stream', () => {
  const req: ModbusRequest = { fc: 3, unit: 0x11, address: 0x6b, quantity: 3 };
  const frame = hex('11 03 06 AE 41 56 52 43 40 49 AD');

  it('joins a frame split over packets of any size', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 11 }), (cuts) => {
        const s = new ResponseStream();
        s.expect(req);
        const results = [];
        let at = 0;
        for (const c of [...cuts, frame.length]) {
          if (at >= frame.length) break;
          results.push(...s.push(frame.slice(at, at + c)));
          at += c;
        }
        return results.length === 1 && results[0]!.kind === 'response' && s.pending === 0;
      }),
    );
  });

  it('splits concatenated frames and keeps the rest', () => {
    const s = new ResponseStream();
    s.expect(req);
    const two = new Uint8Array([...frame, ...frame, ...frame.slice(0, 4)]);
    const out = s.push(two);
    expect(out.map((r) => r.kind)).toEqual(['response', 'response']);
    expect(s.pending).toBe(4);
    s.expect(req);
    expect(s.pending).toBe(0);
  });

  it('does not wait forever for a corrupt byte count', () => {
    const s = new ResponseStream();
    s.expect(req);
    const bad = frame.slice();
    bad[2] = 0xf0; // claims 240 bytes
    expect(s.push(bad)).toMatchObject([{ kind: 'error', error: 'crc' }]);
  });

  it('reports a whole but short answer as a length error', () => {
    const s = new ResponseStream();
    s.expect(req);
    const short = encodeResponse({ fc: 3, unit: 0x11, registers: [1], data: new Uint8Array() });
    expect(s.push(short)).toMatchObject([{ kind: 'error', error: 'length' }]);
  });

  it('never throws on random bytes, with or without a request', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }),
        fc.constantFrom<ModbusRequest | undefined>(undefined, req, {
          fc: 1,
          unit: 1,
          address: 0,
          quantity: 9,
        }),
        (chunks, r) => {
          const s = new ResponseStream();
          s.expect(r);
          for (const c of chunks) {
            for (const res of s.push(c)) if (!res.frame) return false;
            parseResponse(c, r);
            parseRequest(c);
          }
          return s.pending <= 300;
        },
      ),
    );
  });
});

describe('request stream (slave side)', () => {
  it('round-trips every request kind, split at random', () => {
    const reqArb: fc.Arbitrary<ModbusRequest> = fc.oneof(
      fc.record({
        fc: fc.constantFrom(1 as const, 2 as const),
        unit: fc.integer({ min: 1, max: 247 }),
        address: fc.integer({ min: 0, max: 60000 }),
        quantity: fc.integer({ min: 1, max: 2000 }),
      }),
      fc.record({
        fc: fc.constantFrom(3 as const, 4 as const),
        unit: fc.integer({ min: 1, max: 247 }),
        address: fc.integer({ min: 0, max: 60000 }),
        quantity: fc.integer({ min: 1, max: 125 }),
      }),
      fc.record({
        fc: fc.constant(5 as const),
        unit: fc.integer({ min: 0, max: 247 }),
        address: fc.nat(65535),
        value: fc.boolean(),
      }),
      fc.record({
        fc: fc.constant(6 as const),
        unit: fc.integer({ min: 0, max: 247 }),
        address: fc.nat(65535),
        value: fc.nat(65535),
      }),
      fc.record({
        fc: fc.constant(15 as const),
        unit: fc.integer({ min: 1, max: 247 }),
        address: fc.nat(60000),
        values: fc.array(fc.boolean(), { minLength: 1, maxLength: 1968 }),
      }),
      fc.record({
        fc: fc.constant(16 as const),
        unit: fc.integer({ min: 1, max: 247 }),
        address: fc.nat(60000),
        values: fc.array(fc.nat(65535), { minLength: 1, maxLength: 123 }),
      }),
      fc.record({
        fc: fc.constantFrom(7 as const, 11 as const, 12 as const),
        unit: fc.integer({ min: 1, max: 247 }),
      }),
      fc.record({
        fc: fc.constant(8 as const),
        unit: fc.integer({ min: 1, max: 247 }),
        subfunction: fc.nat(65535),
        data: fc.nat(65535),
      }),
    );
    fc.assert(
      fc.property(
        fc.array(reqArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 40 }),
        (reqs, step) => {
          const bytes = reqs.flatMap((r) => [...encodeRequest(r)]);
          const s = new RequestStream();
          const got = [];
          for (let i = 0; i < bytes.length; i += step)
            got.push(...s.push(Uint8Array.from(bytes.slice(i, i + step))));
          expect(got.map((g) => (g.kind === 'request' ? g.request : g))).toEqual(reqs);
        },
      ),
      { numRuns: 200 },
    );
  });
});
