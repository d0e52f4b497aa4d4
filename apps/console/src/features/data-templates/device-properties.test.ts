import type { DeviceTemplateInfo } from '@cellhub/contract/data-templates';
import type { ProductProperty } from '@cellhub/contract/products';
import { describe, expect, it } from 'vitest';
import { withTemplateProperties } from './device-properties';

const product: ProductProperty[] = [
  {
    key: 'temp',
    name: '温度',
    name_us: 'Temperature',
    unit: '°C',
    datatype: 'number',
    charttype: 'line',
    cycles: 0,
  },
];
const template: DeviceTemplateInfo = {
  template_id: 1,
  name: 'Boiler',
  collect_mode: 'dtu',
  source: 'device',
  properties: [
    { key: 'temp', name: 'Boiler temp', name_us: '', unit: 'K', datatype: 'number' },
    { key: 'pump_on', name: 'Pump', name_us: '', unit: '', datatype: 'bool' },
  ],
};

describe('template variables as device properties', () => {
  it("adds the template's variables after the product's, the product keeping its own names", () => {
    const merged = withTemplateProperties(product, template)!;
    expect(merged.map((p) => [p.key, p.name])).toEqual([
      ['temp', '温度'],
      ['pump_on', 'Pump'],
    ]);
    // A bool variable is shown, not charted as a line.
    expect(merged[1]).toMatchObject({ datatype: 'bool', charttype: 'none' });
  });

  it('leaves the product alone without a template, and works before the product answered', () => {
    expect(withTemplateProperties(product, undefined)).toEqual(product);
    expect(withTemplateProperties(undefined, template)!.map((p) => p.key)).toEqual(['temp', 'pump_on']);
  });
});
