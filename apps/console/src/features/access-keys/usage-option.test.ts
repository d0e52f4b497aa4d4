import { describe, expect, it } from 'vitest';
import { usageOption, usageTotals } from './usage-option';

const theme = { dark: false, text: '#111', subText: '#666', border: '#ddd', bg: '#fff', primary: '#165dff' };
const days = [
  { day: '2026-11-25', ok: 3, refused: 1 },
  { day: '2026-11-26', ok: 0, refused: 2 },
];

describe('usage chart', () => {
  it('stacks ok and refused per day, labelled MM-DD', () => {
    const option = usageOption(days, { ok: 'OK', refused: 'Refused' }, theme) as {
      xAxis: { data: string[] };
      series: { name: string; stack: string; data: number[] }[];
    };
    expect(option.xAxis.data).toEqual(['11-25', '11-26']);
    expect(option.series.map((s) => [s.name, s.stack, s.data])).toEqual([
      ['OK', 'uses', [3, 0]],
      ['Refused', 'uses', [1, 2]],
    ]);
  });

  it('adds up the range', () => {
    expect(usageTotals(days)).toEqual({ ok: 3, refused: 3 });
    expect(usageTotals([])).toEqual({ ok: 0, refused: 0 });
  });
});
