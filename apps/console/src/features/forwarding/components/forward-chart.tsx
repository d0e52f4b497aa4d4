import type { ForwardStats } from '@cellhub/contract/forwarding';
import { useCallback } from 'react';
import { Chart, type ChartOption, type ChartTheme } from '../../../components/chart/chart';

/** Delivered, failed attempts and dead letters per step of the range, stacked bars. */
export function forwardOption(
  stats: ForwardStats | undefined,
  labels: { delivered: string; failed: string; dead: string },
  theme: ChartTheme,
): ChartOption {
  const points = stats?.points ?? [];
  const axisLabel = { color: theme.subText };
  const label = (at: string) => {
    const d = new Date(at);
    const p = (n: number) => String(n).padStart(2, '0');
    return (stats?.step ?? 60) >= 21_600
      ? `${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}h`
      : `${p(d.getHours())}:${p(d.getMinutes())}`;
  };
  return {
    animation: false,
    color: ['#00B42A', '#FF7D00', '#F53F3F'],
    grid: { left: 48, right: 16, top: 36, bottom: 28 },
    legend: { top: 0, right: 8, textStyle: { color: theme.text }, itemWidth: 12, itemHeight: 8 },
    tooltip: { trigger: 'axis' },
    xAxis: {
      type: 'category',
      data: points.map((p) => label(p.at)),
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
      {
        name: labels.delivered,
        type: 'bar',
        stack: 'n',
        barMaxWidth: 14,
        data: points.map((p) => p.delivered),
      },
      { name: labels.failed, type: 'bar', stack: 'n', barMaxWidth: 14, data: points.map((p) => p.failed) },
      { name: labels.dead, type: 'bar', stack: 'n', barMaxWidth: 14, data: points.map((p) => p.dead) },
    ],
  };
}

export function ForwardChart({
  stats,
  labels,
}: {
  stats: ForwardStats | undefined;
  labels: { delivered: string; failed: string; dead: string };
}) {
  const option = useCallback((theme: ChartTheme) => forwardOption(stats, labels, theme), [stats, labels]);
  return <Chart option={option} height={260} />;
}
