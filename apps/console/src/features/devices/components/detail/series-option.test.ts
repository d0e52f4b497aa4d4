import type { PropertySeries } from '@cellhub/contract/property-series';
import { describe, expect, it } from 'vitest';
import type { ChartTheme } from '../../../../components/chart/chart';
import { seriesOption, xWindow, yFlat } from './series-option';

const theme: ChartTheme = {
  dark: false,
  text: '#4e5969',
  subText: '#86909c',
  border: '#e5e6eb',
  bg: '#fff',
  primary: '#165dff',
};
const labels = { avg: 'Average', min: 'Min', max: 'Max', band: 'Range', unit: '°C' };
const to = Date.parse('2026-01-02T00:00:00Z');
const H = 3_600_000;

function series(points: [number, number][], spanH = 24, bucket = 300): PropertySeries {
  return {
    key: 'temperature',
    from: new Date(to - spanH * H).toISOString(),
    to: new Date(to).toISOString(),
    bucket_seconds: bucket,
    buckets: points.map(([ts, v]) => ({ ts: new Date(ts).toISOString(), avg: v, min: v, max: v, count: 1 })),
  } as PropertySeries;
}

describe('device property chart', () => {
  it("spreads a new device's few points over the chart instead of the last pixels of 24 h", () => {
    const s = series([
      [to - 10 * 60_000, 20],
      [to - 5 * 60_000, 21],
      [to - 60_000, 22],
    ]);
    const option = seriesOption(s, labels, theme);
    const x = option.xAxis as { min: number; max: number };
    expect(x.max).toBe(to);
    // The axis starts shortly before the first reading, not 24 h back.
    expect(x.min).toBeGreaterThan(to - H);
    expect(x.min).toBeLessThan(to - 10 * 60_000);
    const avg = (option.series as { name: string; symbolSize?: number; showSymbol?: boolean }[]).find(
      (x) => x.name === 'Average',
    );
    expect(avg).toMatchObject({ showSymbol: true, symbolSize: 8 });
  });

  it('keeps the whole window when readings cover it', () => {
    const s = series([
      [to - 20 * H, 20],
      [to - H, 22],
    ]);
    expect(xWindow(s, [to - 20 * H, to - H])).toEqual({ min: to - 24 * H, max: to });
    expect(xWindow(s, [])).toEqual({ min: to - 24 * H, max: to });
  });

  it('ends the axis on a bucket boundary while live readings stretch the window', () => {
    const s = series([[to - H, 20]]);
    const width = s.bucket_seconds * 1000;
    const at = (stretch: number) => xWindow({ ...s, to: new Date(to + stretch).toISOString() }, [to - H]).max;
    expect(at(0)).toBe(to);
    // Readings 1 s and most of a bucket past the end: the same axis end, one bucket on.
    expect(at(1000)).toBe(to + width);
    expect(at(width - 1000)).toBe(to + width);
    expect(at(width + 1000)).toBe(to + 2 * width);
  });

  it('gives one repeated value a scale around it', () => {
    expect(yFlat([{ min: 30.5, max: 30.5, avg: 30.5 }])).toEqual({ min: 27.45, max: 33.55 });
    expect(yFlat([{ min: 0, max: 0, avg: 0 }])).toEqual({ min: -1, max: 1 });
    expect(yFlat([{ min: 1, max: 2, avg: 1.5 }])).toEqual({});
  });

  it("names the value axis with the thing model's unit and formats the tooltip with it", () => {
    const option = seriesOption(series([[to - H, 21.5]]), labels, theme);
    expect(option.yAxis).toMatchObject({ name: '°C', scale: true });
    const fmt = (option.tooltip as { valueFormatter: (v: unknown) => string }).valueFormatter;
    expect(fmt(21.5)).toBe('21.5 °C');
    const bare = seriesOption(series([[to - H, 3]]), { ...labels, unit: '' }, theme);
    expect((bare.yAxis as { name?: string }).name).toBeUndefined();
  });

  it('charts a bool property on a 0..1 axis labelled by state', () => {
    const option = seriesOption(
      series([
        [to - 2 * H, 0],
        [to - H, 1],
      ]),
      { ...labels, unit: '', datatype: 'bool', on: 'Yes', off: 'No' },
      theme,
    );
    const y = option.yAxis as {
      min: number;
      max: number;
      interval: number;
      axisLabel: { formatter: (v: number) => string };
    };
    expect([y.min, y.max, y.interval]).toEqual([0, 1, 1]);
    expect([y.axisLabel.formatter(0), y.axisLabel.formatter(1)]).toEqual(['No', 'Yes']);
    const fmt = (option.tooltip as { valueFormatter: (v: unknown) => string }).valueFormatter;
    expect(fmt(0.25)).toBe('25% Yes');
  });

  it('pins event occurrences in the window on the line, in their colour, and leaves out the others', () => {
    const option = seriesOption(
      series([
        [to - 3 * H, 10],
        [to - H, 30],
      ]),
      { ...labels, events: 'Events' },
      theme,
      [
        { ts: to - H + 60_000, name: 'Overheat', color: '#F53F3F' },
        { ts: to - 3 * H - 60_000, name: 'Boot', color: '#165DFF' },
        { ts: to + 10 * H, name: 'Later', color: '#165DFF' },
      ],
    );
    const list = option.series as {
      name: string;
      data: { name: string; value: number[]; itemStyle: object }[];
    }[];
    const marks = list.find((x) => x.name === 'Events')!;
    expect(marks.data.map((d) => [d.name, d.value[1], d.itemStyle])).toEqual([
      ['Overheat', 30, { color: '#F53F3F' }],
      ['Boot', 10, { color: '#165DFF' }],
    ]);
    expect((option.legend as { data: string[] }).data).toContain('Events');
    const none = seriesOption(series([[to - H, 1]]), labels, theme);
    expect((none.series as { name: string }[]).map((x) => x.name)).not.toContain('Events');
  });
});
