import { describe, expect, it } from 'vitest';
import { diffConfig } from './config-diff';
import { configIssues, fieldIssue, fieldName, fromFormValues, pathOf, toFormValues } from './config-model';

describe('config form validation (contract schema)', () => {
  it('accepts a full, valid configuration', () => {
    expect(
      configIssues({
        global: { apn: { name: 'cmnet' }, ntp: { enable: true, server: 'ntp.aliyun.com', interval: 3600 } },
        mqtt: {
          server: 'mqtt.example.com',
          port: 1883,
          keepalive: 60,
          subscribe: [{ topic: 'a/b', qos: 1 }],
        },
        serial: { rs485: { baud: 9600, data_bits: 8, stop_bits: 1, parity: 'none', flow_control: 'none' } },
        socket: [{ enable: true, protocol: 'tcp', server: '1.2.3.4', port: 502, backup_port: 503 }],
        aliyun: { mode: 'off' },
      }),
    ).toEqual({});
  });

  it('names each bad field with a message key and its bounds', () => {
    const issues = configIssues({
      mqtt: { port: 0, keepalive: 1.5, subscribe: [{}, { topic: 'x'.repeat(257), qos: 3 }] },
      serial: { rs232: { baud: 100, parity: 'x' } },
      socket: [{ backup_port: 70000 }],
    });
    expect(issues['mqtt.port']).toEqual({ key: 'deviceDetail.config.err.min', vars: { min: 1 } });
    expect(issues['mqtt.keepalive']).toEqual({ key: 'deviceDetail.config.err.int' });
    expect(issues['mqtt.subscribe[1].topic']).toEqual({
      key: 'deviceDetail.config.err.tooLong',
      vars: { max: 256 },
    });
    expect(issues['mqtt.subscribe[1].qos']).toEqual({ key: 'deviceDetail.config.err.choice' });
    expect(issues['serial.rs232.baud']).toEqual({ key: 'deviceDetail.config.err.min', vars: { min: 300 } });
    expect(issues['serial.rs232.parity']?.key).toBe('deviceDetail.config.err.oneOf');
    expect(issues['socket[0].backup_port']).toEqual({
      key: 'deviceDetail.config.err.max',
      vars: { max: 65535 },
    });
    expect(Object.keys(issues)).toHaveLength(7);
  });

  it('checks one field on its own, at its slot', () => {
    expect(fieldIssue('socket[3].port', 0)).toEqual({ key: 'deviceDetail.config.err.min', vars: { min: 1 } });
    expect(fieldIssue('socket[3].port', 8080)).toBeUndefined();
    expect(fieldIssue('mqtt.publish[7].topic', 't'.repeat(300))?.key).toBe('deviceDetail.config.err.tooLong');
    expect(fieldIssue('mqtt.will.qos', 2)).toBeUndefined();
    expect(fieldIssue('mqtt.will.qos', 5)?.key).toBe('deviceDetail.config.err.choice');
    expect(fieldIssue('serial.rs485.stop_bits', 1.5)).toBeUndefined();
    expect(fieldIssue('mqtt.port', undefined)).toBeUndefined();
  });

  it('turns field names into paths and back', () => {
    expect(pathOf('mqtt.subscribe[0].topic')).toEqual(['mqtt', 'subscribe', 0, 'topic']);
    expect(pathOf('socket[2].heartbeat.data')).toEqual(['socket', 2, 'heartbeat', 'data']);
    expect(fieldName(['socket', 2, 'heartbeat', 'data'])).toBe('socket[2].heartbeat.data');
  });
});

describe('form values', () => {
  it('shows 8 topic slots, 4 sockets and the advanced group as JSON', () => {
    const v = toFormValues({ mqtt: { subscribe: [{ topic: 'a', qos: 1 }] }, global: { advanced: { x: 1 } } });
    const mqtt = v.mqtt as { subscribe: unknown[]; publish: unknown[] };
    expect(mqtt.subscribe).toHaveLength(8);
    expect(mqtt.subscribe[0]).toEqual({ topic: 'a', qos: 1 });
    expect(mqtt.publish).toHaveLength(8);
    expect(v.socket).toHaveLength(4);
    expect(JSON.parse(v._advanced!)).toEqual({ x: 1 });
  });

  it('saves the edits over the original, keeping fields the form does not know and trimming empty slots', () => {
    const base = {
      mqtt: { server: 'old', port: 1883, vendor_flag: 7, subscribe: [{ topic: 'a', qos: 1 as const }] },
      firmware_extra: { on: true },
    };
    const v = toFormValues(base);
    const mqtt = v.mqtt as Record<string, unknown> & { subscribe: Record<string, unknown>[] };
    mqtt.server = 'new.example.com';
    mqtt.port = undefined; // cleared
    mqtt.subscribe[2] = { topic: 'c', qos: 0 };
    v._advanced = '{"led": "off"}';
    expect(fromFormValues(v, base)).toEqual({
      mqtt: {
        server: 'new.example.com',
        vendor_flag: 7,
        subscribe: [{ topic: 'a', qos: 1 }, {}, { topic: 'c', qos: 0 }],
      },
      global: { advanced: { led: 'off' } },
      firmware_extra: { on: true },
    });
  });

  it('round-trips a configuration without edits', () => {
    const base = {
      global: { apn: { name: 'cmiot' } },
      socket: [{ enable: true, protocol: 'udp' as const, port: 9000 }],
    };
    const out = fromFormValues(toFormValues(base), base);
    expect(out).toEqual(base);
    expect(diffConfig(base, out)).toEqual([]);
    expect(fromFormValues(toFormValues(undefined), undefined)).toEqual({});
  });
});

describe('expected vs reported diff', () => {
  it('lists changed, missing and extra fields in path order', () => {
    const rows = diffConfig(
      { mqtt: { server: 'a', port: 1883, subscribe: [{ topic: 't1', qos: 1 }] }, socket: [{ port: 10 }] },
      { mqtt: { server: 'b', port: 1883, subscribe: [{ topic: 't1', qos: 0 }], extra: true } },
    );
    expect(rows).toEqual([
      { path: 'mqtt.extra', expected: undefined, reported: true, kind: 'only_reported' },
      { path: 'mqtt.server', expected: 'a', reported: 'b', kind: 'changed' },
      { path: 'mqtt.subscribe[0].qos', expected: 1, reported: 0, kind: 'changed' },
      { path: 'socket[0].port', expected: 10, reported: undefined, kind: 'not_reported' },
    ]);
  });

  it('is empty when both sides hold the same values, whatever the key order and empty slots', () => {
    expect(diffConfig({ a: { x: 1, y: [1, {}] }, b: {} }, { a: { y: [1, {}], x: 1 } })).toEqual([]);
  });

  it('orders slots numerically', () => {
    const e = { socket: Array.from({ length: 11 }, (_, i) => ({ port: i + 1 })) };
    expect(
      diffConfig(e, {})
        .map((r) => r.path)
        .slice(0, 3),
    ).toEqual(['socket[0].port', 'socket[1].port', 'socket[2].port']);
  });
});
