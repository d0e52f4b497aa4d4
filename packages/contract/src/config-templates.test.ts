import { describe, expect, it } from 'vitest';
import { configTemplateBody, mergeConfig, mergeDeviceConfig } from './config-templates';

describe('mergeConfig', () => {
  it('sets only what the template sets and keeps the rest of the device configuration', () => {
    const device = {
      global: { apn: { name: 'cmnet', username: 'u' }, ntp: { enable: true, server: 'ntp1' } },
      mqtt: { server: 'old.example', port: 1883 },
    };
    const template = { global: { apn: { name: 'iot.apn' } }, mqtt: { port: 8883 } };
    expect(mergeDeviceConfig(device, template)).toEqual({
      global: { apn: { name: 'iot.apn', username: 'u' }, ntp: { enable: true, server: 'ntp1' } },
      mqtt: { server: 'old.example', port: 8883 },
    });
    // The inputs are left untouched.
    expect(device.mqtt.port).toBe(1883);
  });

  it('merges arrays slot by slot; an empty slot leaves the device slot alone', () => {
    const device = {
      socket: [
        { server: 'a', port: 1 },
        { server: 'b', port: 2 },
      ],
    };
    const merged = mergeConfig(device, { socket: [{}, { port: 9 }, { server: 'c', port: 3 }] });
    expect(merged).toEqual({
      socket: [
        { server: 'a', port: 1 },
        { server: 'b', port: 9 },
        { server: 'c', port: 3 },
      ],
    });
  });

  it('fills a skipped slot past the end with an empty entry, never a hole', () => {
    const merged = mergeConfig({}, { mqtt: { subscribe: [undefined, { topic: 't', qos: 1 }] } }) as {
      mqtt: { subscribe: unknown[] };
    };
    expect(merged.mqtt.subscribe).toEqual([{}, { topic: 't', qos: 1 }]);
  });

  it('replaces scalars and creates missing groups', () => {
    expect(
      mergeConfig(
        { aliyun: { mode: 'off' } },
        { aliyun: { mode: 'direct' }, serial: { rs485: { baud: 9600 } } },
      ),
    ).toEqual({
      aliyun: { mode: 'direct' },
      serial: { rs485: { baud: 9600 } },
    });
  });
});

describe('configTemplateBody', () => {
  it('needs a name and at least one configuration field, and checks the fields', () => {
    expect(
      configTemplateBody.safeParse({ name: 'apn', config: { global: { apn: { name: 'x' } } } }).success,
    ).toBe(true);
    expect(configTemplateBody.safeParse({ name: 'empty', config: {} }).success).toBe(false);
    expect(configTemplateBody.safeParse({ name: 'bad', config: { mqtt: { port: 0 } } }).success).toBe(false);
    expect(configTemplateBody.safeParse({ name: '', config: { mqtt: { port: 1 } } }).success).toBe(false);
  });
});
