import { describe, expect, it } from 'vitest';
import { DtuPolledValues, polledVariables } from './dtu-polled';

const config = {
  modbus: {
    template_id: 1,
    type: 'modbus_rtu',
    slaves: [
      {
        name: 'meter',
        address: 1,
        port: 'rs485',
        variables: [
          { tag: 'boiler_temp', format: 'int16', decimals: 1, access: 'r' },
          { tag: 'pump_on', format: 'bool', decimals: 0, access: 'rw' },
          { tag: 'setpoint', format: 'uint16', decimals: 0, access: 'w' },
        ],
      },
    ],
  },
};

describe('a DTU polling its own slaves', () => {
  it('reports the readable variables of the pushed template by tag, nothing without one', () => {
    expect(polledVariables({}).length).toBe(0);
    expect(polledVariables({ modbus: { slaves: 'x' } }).length).toBe(0);
    const dtu = new DtuPolledValues('SN1');
    const first = dtu.sample(config);
    expect(Object.keys(first).sort()).toEqual(['boiler_temp', 'pump_on']);
    expect(typeof first.boiler_temp).toBe('number');
    expect(typeof first.pump_on).toBe('boolean');
    // One decimal, as the template says, and values that move over time.
    const seen = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const v = dtu.sample(config).boiler_temp as number;
      expect(Math.round(v * 10)).toBeCloseTo(v * 10, 6);
      seen.add(v);
    }
    expect(seen.size).toBeGreaterThan(1);
    expect(dtu.sample({})).toEqual({});
  });
});
