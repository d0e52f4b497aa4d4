import { configTemplateBody } from '@cellhub/contract/config-templates';
import { describe, expect, it } from 'vitest';
import { CONFIG_FIELDS, defaultValue, fromConfig, toConfig } from './config-fields';

describe('template fields', () => {
  it('cover every group with unique keys, 8+8 MQTT topic slots and 4 sockets', () => {
    const keys = CONFIG_FIELDS.map((f) => f.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(CONFIG_FIELDS.map((f) => f.group))).toEqual(
      new Set(['global', 'mqtt', 'serial', 'socket', 'aliyun']),
    );
    expect(keys).toContain('mqtt.subscribe.7.topic');
    expect(keys).toContain('mqtt.publish.7.qos');
    expect(keys).toContain('socket.3.backup_port');
    expect(keys).not.toContain('socket.4.server');
  });

  it('builds only the chosen fields, with {} in skipped slots, and the contract accepts it', () => {
    const config = toConfig({
      'global.apn.name': 'cmiot',
      'socket.1.server': 'tcp.example',
      'socket.1.port': 9000,
      'mqtt.subscribe.2.topic': 'cmd/#',
    });
    expect(config).toEqual({
      global: { apn: { name: 'cmiot' } },
      socket: [{}, { server: 'tcp.example', port: 9000 }],
      mqtt: { subscribe: [{}, {}, { topic: 'cmd/#' }] },
    });
    expect(configTemplateBody.safeParse({ name: 'x', config }).success).toBe(true);
  });

  it('round-trips a saved template and keeps what the form does not edit', () => {
    const saved = {
      global: { apn: { name: 'a' }, advanced: { log_level: 3 } },
      serial: { rs485: { baud: 9600, parity: 'even' as const } },
    };
    const state = fromConfig(saved);
    expect(state).toEqual({
      'global.apn.name': 'a',
      'serial.rs485.baud': 9600,
      'serial.rs485.parity': 'even',
    });
    delete state['serial.rs485.parity'];
    expect(toConfig(state, saved)).toEqual({
      global: { apn: { name: 'a' }, advanced: { log_level: 3 } },
      serial: { rs485: { baud: 9600 } },
    });
  });

  it('has a valid default for every field', () => {
    for (const f of CONFIG_FIELDS) {
      const config = toConfig({ [f.key]: defaultValue(f) });
      const ok = configTemplateBody.safeParse({ name: 'x', config }).success;
      // Empty text is a valid value too; ports start at their minimum.
      expect(ok, f.key).toBe(true);
    }
  });
});
