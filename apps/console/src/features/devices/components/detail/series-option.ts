/** ECharts option of a property chart: the average line over a min-max band, from the server's buckets. */
import type { PropertySeries } from '@cellhub/contract/property-series';
import type { ChartOption, ChartTheme } from '../../../../components/chart/chart';

export interface SeriesLabels {
  avg: string;
  min: string;
  max: string;
  band: string;
  unit: string;
}

export function seriesOption(s: PropertySeries, labels: SeriesLabels, theme: ChartTheme): ChartOption {
  const numeric = s.buckets.filter((b) => b.avg !== null);
  const t = (b: (typeof numeric)[number]) => new Date(b.ts).getTime();
  const unit = labels.unit ? ` ${labels.unit}` : '';
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    animation: false,
    grid: { left: 56, right: 24, top: 36, bottom: 36 },
    legend: { data: [labels.avg, labels.band], top: 0, textStyle: { color: theme.text } },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (v) => (typeof v === 'number' ? `${round(v)}${unit}` : String(v ?? '-')),
    },
    xAxis: {
      type: 'time',
      min: new Date(s.from).getTime(),
      max: new Date(s.to).getTime(),
      axisLabel: { color: theme.subText, hideOverlap: true },
      axisLine: { lineStyle: { color: theme.border } },
    },
    yAxis: {
      type: 'value',
      scale: true,
      axisLabel: { color: theme.subText },
      splitLine: { lineStyle: { color: theme.border, type: 'dashed' } },
    },
    series: [
      // The band: an invisible line at the minimum, with the max-min spread stacked on it and filled.
      {
        name: labels.min,
        type: 'line',
        stack: 'band',
        symbol: 'none',
        lineStyle: { opacity: 0 },
        tooltip: { show: false },
        data: numeric.map((b) => [t(b), b.min]),
      },
      {
        name: labels.band,
        type: 'line',
        stack: 'band',
        symbol: 'none',
        lineStyle: { opacity: 0 },
        areaStyle: { color: theme.primary, opacity: 0.15 },
        color: theme.primary,
        data: numeric.map((b) => [t(b), (b.max ?? 0) - (b.min ?? 0)]),
      },
      {
        name: labels.avg,
        type: 'line',
        showSymbol: numeric.length < 60,
        color: theme.primary,
        data: numeric.map((b) => [t(b), b.avg]),
      },
    ],
  };
}

/** "30 min", "2 h": the width of one point, for the chart's caption. */
export function bucketLabel(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
