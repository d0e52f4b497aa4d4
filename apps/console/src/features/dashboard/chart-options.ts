import type { ChartOption, ChartTheme } from '../../components/chart/chart';

/** The last `days` calendar days as MM-DD, oldest first, ending today. */
export function lastDays(days: number, today = new Date()): string[] {
  const out: string[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(today.getFullYear(), today.getMonth(), today.getDate() - i);
    out.push(`${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`);
  }
  return out;
}

const emptyText = (theme: ChartTheme, text: string) => ({
  type: 'text' as const,
  left: 'center',
  top: 'middle',
  silent: true,
  style: { text, fill: theme.subText, fontSize: 14 },
});

export interface TrendInput {
  days: string[];
  online: (number | null)[];
  messages: (number | null)[];
  labels: { online: string; messages: string; empty: string };
}

/** Online devices and messages received per day; with no figures yet the axes stay and say so. */
export function trendOption({ days, online, messages, labels }: TrendInput, theme: ChartTheme): ChartOption {
  const empty = ![...online, ...messages].some((v) => v !== null);
  const axisLabel = { color: theme.subText };
  const splitLine = { lineStyle: { color: theme.border, type: 'dashed' as const } };
  return {
    color: [theme.primary, '#14C9C9'],
    grid: { left: 48, right: 48, top: 40, bottom: 28 },
    legend: { top: 0, right: 0, textStyle: { color: theme.text }, icon: 'circle', itemWidth: 8 },
    tooltip: { trigger: 'axis', show: !empty },
    xAxis: {
      type: 'category',
      data: days,
      boundaryGap: false,
      axisLabel,
      axisLine: { lineStyle: { color: theme.border } },
      axisTick: { show: false },
    },
    yAxis: [
      // Devices and messages are counts: no 0.2-device ticks.
      { type: 'value', min: 0, minInterval: 1, max: empty ? 100 : undefined, axisLabel, splitLine },
      // With nothing to show, one scale is enough to draw the grid.
      {
        type: 'value',
        min: 0,
        minInterval: 1,
        axisLabel: { ...axisLabel, show: !empty },
        splitLine: { show: false },
      },
    ],
    series: [
      {
        name: labels.online,
        type: 'line',
        smooth: true,
        showSymbol: false,
        data: online,
        areaStyle: { opacity: 0.08 },
      },
      { name: labels.messages, type: 'line', smooth: true, showSymbol: false, data: messages, yAxisIndex: 1 },
    ],
    graphic: empty ? [emptyText(theme, labels.empty)] : [],
  };
}

export interface ShareInput {
  items: { name: string; value: number }[];
  empty: string;
}

/** A donut of shares; with nothing counted it shows the empty ring and says so. */
export function donutOption({ items, empty }: ShareInput, theme: ChartTheme): ChartOption {
  const isEmpty = items.every((i) => i.value === 0);
  return {
    color: [theme.primary, '#14C9C9', '#F7BA1E', '#722ED1', '#F77234', '#86909C'],
    legend: { bottom: 0, textStyle: { color: theme.text }, icon: 'circle', itemWidth: 8 },
    tooltip: { trigger: 'item', show: !isEmpty },
    series: [
      {
        type: 'pie',
        radius: ['48%', '68%'],
        center: ['50%', '45%'],
        showEmptyCircle: true,
        emptyCircleStyle: { color: theme.border },
        label: { show: false },
        itemStyle: { borderColor: theme.bg, borderWidth: 2 },
        data: isEmpty ? [] : items,
      },
    ],
    graphic: isEmpty ? [{ ...emptyText(theme, empty), top: '42%' }] : [],
  };
}
