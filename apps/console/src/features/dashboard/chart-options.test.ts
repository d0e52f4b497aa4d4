import { describe, expect, it } from 'vitest';
import type { ChartTheme } from '../../components/chart/chart';
import { donutOption, lastDays, trendOption } from './chart-options';

const theme: ChartTheme = {
  dark: false,
  text: '#4e5969',
  subText: '#86909c',
  border: '#e5e6eb',
  bg: '#fff',
  primary: '#165dff',
};

describe('workplace charts', () => {
  it('lists the last N days ending today', () => {
    expect(lastDays(3, new Date(2024, 2, 1))).toEqual(['02-28', '02-29', '03-01']);
    expect(lastDays(30)).toHaveLength(30);
  });

  it('says there is no data instead of drawing invented figures', () => {
    const option = trendOption(
      {
        days: lastDays(7),
        online: Array(7).fill(null),
        messages: Array(7).fill(null),
        labels: { online: 'Online', messages: 'Traffic', empty: 'No data' },
      },
      theme,
    );
    expect(JSON.stringify(option.graphic)).toContain('No data');
    expect(JSON.stringify(option.series)).not.toMatch(/\d+,\d+/);
  });

  it('draws real figures without the empty note', () => {
    const option = trendOption(
      {
        days: ['01-01'],
        online: [3],
        messages: [null],
        labels: { online: 'a', messages: 'b', empty: 'No data' },
      },
      theme,
    );
    expect(option.graphic).toEqual([]);
  });

  it('shows the empty ring for all-zero shares', () => {
    const option = donutOption({ items: [{ name: 'a', value: 0 }], empty: 'No data' }, theme);
    expect(JSON.stringify(option.graphic)).toContain('No data');
  });

  it('draws whole numbers on both count axes', () => {
    const option = trendOption(
      {
        days: lastDays(2),
        online: [0, 1],
        messages: [0, 1],
        labels: { online: 'Online', messages: 'Messages', empty: 'No data' },
      },
      theme,
    );
    const axes = option.yAxis as { minInterval?: number }[];
    expect(axes.map((a) => a.minInterval)).toEqual([1, 1]);
  });
});

describe('workplace charts say what they count (issue 13)', () => {
  const input = {
    days: ['01-01', '01-02', '01-03'],
    online: [2, 0, 2],
    messages: [10, 0, 10],
    labels: { online: 'Online', messages: 'Messages', empty: 'No data' },
  };

  it('draws daily counts as bars and straight lines, never a smoothed curve', () => {
    const series = trendOption(input, theme).series as {
      type: string;
      smooth?: boolean;
      showSymbol?: boolean;
    }[];
    expect(series.map((s) => s.type)).toEqual(['bar', 'line']);
    for (const s of series) expect(s.smooth ?? false).toBe(false);
    // Each day's figure is a visible point, not a bend in a curve.
    expect(series[1]?.showSymbol).toBe(true);
  });

  it('names every share with its count in the legend, empty shares too', () => {
    const option = donutOption(
      {
        items: [
          { name: 'Mobile', value: 10 },
          { name: 'Unicom', value: 2 },
          { name: 'Telecom', value: 0 },
        ],
        empty: 'No data',
      },
      theme,
    );
    const legend = option.legend as { data: string[]; formatter: (n: string) => string; type: string };
    expect(legend.data).toEqual(['Mobile', 'Unicom', 'Telecom']);
    expect(legend.data.map(legend.formatter)).toEqual(['Mobile 10', 'Unicom 2', 'Telecom 0']);
    // Many shares page inside the card instead of running past its edge.
    expect(legend.type).toBe('scroll');
  });
});
