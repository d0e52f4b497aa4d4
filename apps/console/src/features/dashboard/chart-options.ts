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

/**
 * Online devices and messages received per day; with no figures yet the axes stay and say so. Both are whole
 * counts of separate days: online devices as bars, messages as a straight line through marked points. A smoothed
 * curve would draw rises between days that never happened.
 */
export function trendOption({ days, online, messages, labels }: TrendInput, theme: ChartTheme): ChartOption {
  const empty = ![...online, ...messages].some((v) => v !== null);
  const axisLabel = { color: theme.subText };
  const splitLine = { lineStyle: { color: theme.border, type: 'dashed' as const } };
  return {
    color: [theme.primary, '#14C9C9'],
    grid: { left: 48, right: 48, top: 40, bottom: 28 },
    legend: { top: 0, right: 0, textStyle: { color: theme.text }, itemWidth: 12, itemHeight: 8 },
    tooltip: { trigger: 'axis', show: !empty },
    xAxis: {
      type: 'category',
      data: days,
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
      { name: labels.online, type: 'bar', barMaxWidth: 24, data: online },
      {
        name: labels.messages,
        type: 'line',
        smooth: false,
        showSymbol: true,
        symbolSize: 6,
        data: messages,
        yAxisIndex: 1,
      },
    ],
    graphic: empty ? [emptyText(theme, labels.empty)] : [],
  };
}

export interface ShareInput {
  items: { name: string; value: number }[];
  empty: string;
}

/**
 * A donut of shares; with nothing counted it shows the empty ring and says so. The legend names every share with
 * its count ("Mobile 10"), so the figures never stand without saying what they count.
 */
export function donutOption({ items, empty }: ShareInput, theme: ChartTheme): ChartOption {
  const isEmpty = items.every((i) => i.value === 0);
  const count = new Map(items.map((i) => [i.name, i.value]));
  return {
    color: [theme.primary, '#14C9C9', '#F7BA1E', '#722ED1', '#F77234', '#86909C'],
    legend: {
      type: 'scroll',
      bottom: 0,
      left: 'center',
      textStyle: { color: theme.text },
      pageTextStyle: { color: theme.subText },
      icon: 'circle',
      itemWidth: 8,
      itemGap: 12,
      data: items.map((i) => i.name),
      formatter: (name: string) => `${name} ${count.get(name) ?? 0}`,
    },
    tooltip: { trigger: 'item', show: !isEmpty, formatter: '{b}: {c} ({d}%)' },
    series: [
      {
        type: 'pie',
        radius: ['45%', '65%'],
        center: ['50%', '44%'],
        showEmptyCircle: true,
        emptyCircleStyle: { color: theme.border },
        label: { show: false },
        itemStyle: { borderColor: theme.bg, borderWidth: 2 },
        data: isEmpty ? [] : items,
      },
    ],
    graphic: isEmpty ? [{ ...emptyText(theme, empty), top: '40%' }] : [],
  };
}
