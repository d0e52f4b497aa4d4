import { describe, expect, it } from 'vitest';
import { flatten, parseConfigJson } from './config-json';

describe('parseConfigJson', () => {
  it('accepts an empty text and a configuration of the protocol', () => {
    expect(parseConfigJson('')).toEqual({ ok: true, config: {} });
    const r = parseConfigJson('{"mqtt":{"port":1883,"subscribe":[{"topic":"a","qos":1}]}}');
    expect(r.ok).toBe(true);
  });

  it('says whether the text is not JSON or breaks the schema, with the field path', () => {
    expect(parseConfigJson('{mqtt')).toEqual({ ok: false, reason: 'json' });
    const r = parseConfigJson('{"mqtt":{"port":0},"socket":[{},{},{},{},{}]}');
    expect(r.ok).toBe(false);
    if (!r.ok && r.reason === 'schema') {
      expect(r.issues.some((i) => i.startsWith('mqtt.port'))).toBe(true);
      expect(r.issues.some((i) => i.startsWith('socket'))).toBe(true);
    } else {
      throw new Error('expected schema issues');
    }
  });
});

describe('flatten', () => {
  it('lists leaves with dotted paths and indexes', () => {
    expect(flatten({ mqtt: { port: 1, subscribe: [{ topic: 't' }] } })).toEqual([
      ['mqtt.port', '1'],
      ['mqtt.subscribe[0].topic', 't'],
    ]);
  });
});
