import { PLATFORM_CONFIG_SCHEMAS, PLATFORM_TYPES } from '@cellhub/contract/platforms';
import { describe, expect, it } from 'vitest';
import { configFor, initialConfig, PLATFORM_FIELDS } from './platform-fields';

describe('platform form fields', () => {
  it.each(PLATFORM_TYPES)('%s: lists exactly the fields of the contract schema', (type) => {
    expect(PLATFORM_FIELDS[type].map((f) => f.name).sort()).toEqual(
      Object.keys(PLATFORM_CONFIG_SCHEMAS[type].shape).sort(),
    );
  });

  it.each(PLATFORM_TYPES)('%s: shows the defaults the server applies', (type) => {
    const required = Object.fromEntries(
      PLATFORM_FIELDS[type]
        .filter((f) => f.required)
        .map((f) => [f.name, f.name === 'region_id' ? 'cn-shanghai' : 'h.example.com']),
    );
    const server = PLATFORM_CONFIG_SCHEMAS[type].parse(required) as Record<string, unknown>;
    for (const [k, v] of Object.entries(initialConfig(type))) expect(server[k], k).toEqual(v);
  });

  it('drops empty optional texts and fields of other types, keeps an emptied secret', () => {
    expect(
      configFor('mqtt', { host: ' b.example.com ', username: '', password: '', region_id: 'x' }),
    ).toEqual({
      host: 'b.example.com',
      password: '',
    });
  });
});
