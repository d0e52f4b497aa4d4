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
