import type { AccessKeyUsageDay } from '@cellhub/contract/access-keys';
import type { ChartOption, ChartTheme } from '../../components/chart/chart';

/**
 * The per-day chart of a key: requests let through and refused, stacked bars per UTC day (the server sends every
 * day of the range, zeros included). Counts, so no fractional ticks.
 */
export function usageOption(
  days: readonly AccessKeyUsageDay[],
  labels: { ok: string; refused: string },
  theme: ChartTheme,
): ChartOption {
  const axisLabel = { color: theme.subText };
  return {
    animation: false,
    color: ['#00B42A', '#F53F3F'],
    grid: { left: 48, right: 16, top: 36, bottom: 28 },
    legend: { top: 0, right: 8, textStyle: { color: theme.text }, itemWidth: 12, itemHeight: 8 },
    tooltip: { trigger: 'axis' },
    xAxis: {
      type: 'category',
      data: days.map((d) => d.day.slice(5, 10)),
      axisLabel: { ...axisLabel, hideOverlap: true },
      axisLine: { lineStyle: { color: theme.border } },
      axisTick: { show: false },
    },
    yAxis: {
      type: 'value',
      min: 0,
      minInterval: 1,
      axisLabel,
      splitLine: { lineStyle: { color: theme.border, type: 'dashed' } },
    },
    series: [
      { name: labels.ok, type: 'bar', stack: 'uses', barMaxWidth: 18, data: days.map((d) => d.ok) },
      { name: labels.refused, type: 'bar', stack: 'uses', barMaxWidth: 18, data: days.map((d) => d.refused) },
    ],
  };
}

/** The totals of the range, for the line above the chart. */
export function usageTotals(days: readonly AccessKeyUsageDay[]): { ok: number; refused: number } {
  return days.reduce((s, d) => ({ ok: s.ok + d.ok, refused: s.refused + d.refused }), { ok: 0, refused: 0 });
}
