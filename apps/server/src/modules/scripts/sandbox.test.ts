import { afterAll, describe, expect, it } from 'vitest';
import { quickjsModule, ScriptCallError, ScriptError, ScriptSandbox } from './sandbox';
import { checkDecodeOutput, checkEncodeOutput, runDecode, runEncode } from './script-io';

const boxes: ScriptSandbox[] = [];
async function box(source: string, limits: Parameters<typeof ScriptSandbox.create>[1] = {}) {
  const b = await ScriptSandbox.create(source, limits);
  boxes.push(b);
  return b;
}
afterAll(() => {
  for (const b of boxes) b.dispose();
});

function failure(fn: () => unknown): ScriptCallError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ScriptCallError);
    return err as ScriptCallError;
  }
  throw new Error('expected the call to fail');
}

const DEVICE = { sn: 'SN-1', productKey: 'prod1', ts: 1700000000000 };

const DECODER = `// temperature and humidity frame: 01 <int16 temp*10> <uint8 hum>
function decode(bytes, ctx) {
  log('frame', ctx.hex, bytes.length);
  if (bytes[0] !== 1) throw new Error('unknown frame type ' + bytes[0]);
  var t = (bytes[1] << 8) | bytes[2];
  if (t & 0x8000) t -= 0x10000;
  return { properties: { temp: t / 10, hum: bytes[3], ok: true }, events: bytes[3] > 90 ? [{ identifier: 'wet', params: { hum: bytes[3] } }] : [] };
}
function encode(command, ctx) {
  return command.type === 'hex' ? command.data : [0x02].concat(command.data.split('').map(function (c) { return c.charCodeAt(0); }));
}`;

describe('script sandbox', () => {
  it('decodes bytes into properties and events, keeps log lines, encodes commands', async () => {
    const b = await box(DECODER);
    const out = runDecode(b, Buffer.from('01ff9c5f', 'hex'), DEVICE);
    expect(out.properties).toEqual({ temp: -10, hum: 95, ok: true });
    expect(out.events).toEqual([{ identifier: 'wet', params: { hum: 95 } }]);
    expect(out.logs).toEqual(['frame 01ff9c5f 4']);
    expect(runEncode(b, { id: 'x', type: 'hex', data: 'A0B1' }, DEVICE).bytes.toString('hex')).toBe('a0b1');
    expect(runEncode(b, { id: 'x', type: 'string', data: 'on' }, DEVICE).bytes).toEqual(
      Buffer.from([2, 111, 110]),
    );
    // The context is reused: a second call is cheap and sees nothing of the first call's logs.
    const again = runDecode(b, Buffer.from('0100fa10', 'hex'), DEVICE);
    expect(again.properties.temp).toBe(25);
    expect(again.logs).toEqual(['frame 0100fa10 4']);
    expect(b.builds).toBe(1);
  });

  it('reports errors with the line of the source, and the log lines written before them', async () => {
    const b = await box(DECODER);
    const e = failure(() => runDecode(b, Buffer.from('07', 'hex'), DEVICE));
    expect(e.kind).toBe('runtime');
    expect(e.code).toBe(82001);
    expect(e.message).toContain('unknown frame type 7');
    expect(e.line).toBe(4);
    expect(e.logs).toEqual(['frame 07 1']);
    const syntax = await ScriptSandbox.create('function decode(b) {\n  var x = 1;\n  return {;\n}').catch(
      (err: unknown) => err,
    );
    expect(syntax).toBeInstanceOf(ScriptError);
    expect((syntax as ScriptError).kind).toBe('syntax');
    expect((syntax as ScriptError).code).toBe(82005);
    expect((syntax as ScriptError).line).toBe(3);
    const badOutput = failure(() => runEncode(b, { id: '1', type: 'hex', data: 'zz' }, DEVICE).bytes);
    expect(badOutput.kind).toBe('output');
    const none = await box('function decode() { return {} }');
    expect(failure(() => none.call('encode', [{}, {}])).message).toContain('no function encode()');
  });

  it('stops an endless loop within 100 ms of its time limit, and the sandbox works afterwards', async () => {
    const limit = 150;
    const b = await box(
      'function decode(bytes) { if (bytes[0] === 1) { while (true) {} } return { properties: { n: 1 } }; }',
      {
        timeMs: limit,
      },
    );
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const e = failure(() => b.call('decode', [[1], {}]));
      const elapsed = performance.now() - started;
      expect(e.kind).toBe('timeout');
      expect(e.code).toBe(82002);
      expect(elapsed).toBeGreaterThanOrEqual(limit - 5);
      expect(elapsed - limit, `stopped ${Math.round(elapsed - limit)} ms after its limit`).toBeLessThan(100);
    }
    // The deadline is per call: a quick call after the loops runs fine (in a rebuilt runtime).
    expect(runDecode(b, Buffer.from([0]), DEVICE).properties).toEqual({ n: 1 });
  });

  it('holds the memory cap and rebuilds the runtime after running out of memory', async () => {
    const b = await box(
      `var kept = [];
function decode(bytes) {
  if (bytes[0] === 1) { var a = []; while (true) a.push({ i: a.length, s: 'v' + a.length }); }
  if (bytes[0] === 2) { function deep(n) { return deep(n + 1) + 1; } return deep(0); }
  kept.push(bytes[0]);
  return { properties: { kept: kept.length } };
}`,
      { memoryBytes: 4 * 1024 * 1024, timeMs: 5000 },
    );
    expect(runDecode(b, Buffer.from([0]), DEVICE).properties).toEqual({ kept: 1 });
    const heapBefore = process.memoryUsage().rss;
    const oom = failure(() => b.call('decode', [[1], {}]));
    expect(oom.kind).toBe('memory');
    expect(oom.code).toBe(82003);
    // The host did not grow by anything near what an unbounded loop would take.
    expect(process.memoryUsage().rss - heapBefore).toBeLessThan(64 * 1024 * 1024);
    const stack = failure(() => b.call('decode', [[2], {}]));
    expect(stack.kind).toBe('memory');
    // Rebuilt from the source: the script's top-level state starts again.
    expect(runDecode(b, Buffer.from([0]), DEVICE).properties).toEqual({ kept: 1 });
    expect(b.builds).toBeGreaterThanOrEqual(2);
  });

  it('gives the script no way to the host', async () => {
    const b = await box(`function decode() {
  var found = {};
  found.process = typeof process;
  found.require = typeof require;
  found.fetch = typeof fetch;
  found.setTimeout = typeof setTimeout;
  found.std = typeof std + typeof os + typeof scriptArgs;
  found.viaFunction = (function () { try { var g = Function('return this')(); return typeof g.process + typeof g.require; } catch (e) { return 'threw'; } })();
  found.viaConstructor = (function () { try { var g = (function(){}).constructor('return globalThis')(); return typeof g.process; } catch (e) { return 'threw'; } })();
  found.viaProto = (function () { try { return typeof ({}).constructor.constructor('return process')(); } catch (e) { return 'threw'; } })();
  found.importFn = (function () { try { import('fs'); return 'import'; } catch (e) { return 'threw'; } })();
  found.keys = Object.getOwnPropertyNames(globalThis).filter(function (k) { return /^(process|require|module|Buffer|fetch|setTimeout|setInterval|std|os)$/.test(k); }).join(',');
  return { properties: { report: JSON.stringify(found) } };
}`);
    const found = JSON.parse(String(runDecode(b, Buffer.alloc(0), DEVICE).properties.report)) as Record<
      string,
      string
    >;
    expect(found).toEqual({
      process: 'undefined',
      require: 'undefined',
      fetch: 'undefined',
      setTimeout: 'undefined',
      std: 'undefinedundefinedundefined',
      viaFunction: 'undefinedundefined',
      viaConstructor: 'undefined',
      viaProto: 'threw',
      importFn: expect.stringMatching(/import|threw/) as unknown as string,
      keys: '',
    });
  });

  it('keeps prototype pollution inside the script that did it', async () => {
    const polluter = await box(`function decode() {
  Object.prototype.polluted = 'yes';
  Array.prototype.push = function () { return 0; };
  JSON.stringify = function () { return '{"properties":{"forged":1}}'; };
  return { properties: { done: 1 } };
}`);
    const clean = await box(`function decode() { return { properties: { seen: String(({}).polluted) } }; }`);
    const out = runDecode(polluter, Buffer.alloc(0), DEVICE);
    // The result crossed as JSON written by the sandbox's own copy of JSON, not the script's replacement.
    expect(out.properties).toEqual({ done: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    expect(runDecode(clean, Buffer.alloc(0), DEVICE).properties).toEqual({ seen: 'undefined' });
    // A second call in the polluted context still answers (the script only harmed itself).
    expect(runDecode(polluter, Buffer.alloc(0), DEVICE).properties).toEqual({ done: 1 });
  });

  it('bounds the log lines of a call', async () => {
    const b = await box(
      `function decode() { for (var i = 0; i < 1000; i++) log('line', i, 'x'.repeat(2000)); return {}; }`,
      {
        logLines: 5,
        logLineChars: 20,
      },
    );
    const out = runDecode(b, Buffer.alloc(0), DEVICE);
    expect(out.logs).toHaveLength(6);
    expect(out.logs[0]!.length).toBeLessThanOrEqual(21);
    expect(out.logs[5]).toBe('… 995 more line(s) dropped');
  });

  it('checks outputs: finite numbers, strings and booleans; property keys; bytes', () => {
    expect(() => checkDecodeOutput({ properties: { t: Infinity } })).toThrow(/finite/);
    expect(() => checkDecodeOutput({ properties: { t: null } })).toThrow(/number, string or boolean/);
    expect(() => checkDecodeOutput({ properties: { 'bad key': 1 } })).toThrow(/invalid key/);
    expect(() => checkDecodeOutput({ properties: { s: 'a\u0000b' } })).toThrow(/NUL/);
    expect(() => checkDecodeOutput([1])).toThrow(/must return an object/);
    expect(() => checkDecodeOutput({ properties: {}, events: [{ params: {} }] })).toThrow(/identifier/);
    expect(checkDecodeOutput({ properties: { a: 1, b: 'x', c: false } }).properties).toEqual({
      a: 1,
      b: 'x',
      c: false,
    });
    expect(() => checkEncodeOutput([256])).toThrow(/0-255/);
    expect(() => checkEncodeOutput('abc')).toThrow(/not hex/);
    expect(() => checkEncodeOutput({})).toThrow(/array of bytes/);
    expect(checkEncodeOutput('0a 0b').toString('hex')).toBe('0a0b');
  });

  it('loads the WASM module once', async () => {
    expect(await quickjsModule()).toBe(await quickjsModule());
  });
});
