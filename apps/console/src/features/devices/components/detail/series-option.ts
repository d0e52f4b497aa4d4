/** ECharts option of a property chart: the average line over a min-max band, from the server's buckets. */
import type { PropertySeries } from '@cellhub/contract/property-series';
import type { ChartOption, ChartTheme } from '../../../../components/chart/chart';

export interface SeriesLabels {
  avg: string;
  min: string;
  max: string;
  band: string;
  unit: string;
  /** The property's type (thing model): a bool is charted on a 0..1 axis labelled `off` / `on`. */
  datatype?: 'number' | 'string' | 'bool';
  on?: string;
  off?: string;
  /** The legend name of the event marks. */
  events?: string;
}

/** A thing model event occurrence drawn on the chart: at its time, on the line, in its level's colour. */
export interface EventMark {
  ts: number;
  name: string;
  color: string;
}

/** The average nearest in time to `ts` (marks sit on the line); the first average when there is none. */
function nearest(points: [number, number | null][], ts: number): number | null {
  let best: [number, number | null] | undefined;
  for (const p of points) if (!best || Math.abs(p[0] - ts) < Math.abs(best[0] - ts)) best = p;
  return best ? best[1] : null;
}

export function seriesOption(
  s: PropertySeries,
  labels: SeriesLabels,
  theme: ChartTheme,
  marks: readonly EventMark[] = [],
): ChartOption {
  const numeric = s.buckets.filter((b) => b.avg !== null);
  const t = (b: (typeof numeric)[number]) => new Date(b.ts).getTime();
  const unit = labels.unit ? ` ${labels.unit}` : '';
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const x = xWindow(s, numeric.map(t));
  const few = numeric.length <= 12;
  const bool = labels.datatype === 'bool';
  // A bool's bucket average is the share of reports that were true.
  const format = (v: number) => (bool ? `${Math.round(v * 100)}% ${labels.on ?? '1'}` : `${round(v)}${unit}`);
  const avgPoints = numeric.map((b): [number, number | null] => [t(b), b.avg]);
  const shown = marks.filter((m) => m.ts >= x.min && m.ts <= x.max);
  return {
    animation: false,
    grid: { left: 56, right: 24, top: 36, bottom: 36 },
    legend: {
      data: [labels.avg, labels.band, ...(shown.length > 0 ? [labels.events ?? 'events'] : [])],
      top: 0,
      textStyle: { color: theme.text },
    },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (v) => (typeof v === 'number' ? format(v) : String(v ?? '-')),
    },
    xAxis: {
      type: 'time',
      min: x.min,
      max: x.max,
      axisLabel: { color: theme.subText, hideOverlap: true },
      axisLine: { lineStyle: { color: theme.border } },
    },
    yAxis: {
      type: 'value',
      // The unit of the thing model's property names the axis.
      ...(labels.unit && !bool ? { name: labels.unit, nameTextStyle: { color: theme.subText } } : {}),
      ...(bool
        ? {
            min: 0,
            max: 1,
            interval: 1,
            axisLabel: {
              color: theme.subText,
              formatter: (v: number) => (v >= 1 ? (labels.on ?? '1') : (labels.off ?? '0')),
            },
          }
        : { scale: true, ...yFlat(numeric), axisLabel: { color: theme.subText } }),
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
        // A new device's first readings are dots one can see and hover, not specks at the axis end.
        symbolSize: few ? 8 : 4,
        color: theme.primary,
        data: avgPoints,
      },
      // Event occurrences: pins on the line at their time, named on hover; no line between them.
      ...(shown.length > 0
        ? [
            {
              name: labels.events ?? 'events',
              type: 'line' as const,
              symbol: 'pin',
              symbolSize: 22,
              showSymbol: true,
              lineStyle: { opacity: 0 },
              color: shown[0]!.color,
              tooltip: { show: false },
              label: { show: false },
              emphasis: {
                label: { show: true, formatter: '{b}', color: theme.text, position: 'top' as const },
              },
              data: shown.map((m) => ({
                name: m.name,
                value: [m.ts, nearest(avgPoints, m.ts)],
                itemStyle: { color: m.color },
              })),
            },
          ]
        : []),
    ],
  };
}

/**
 * The time axis: the chosen window, except when the readings fill only its last part (a device that reported
 * for the first time ten minutes ago, on a 24 h chart): then the axis starts a little before the first reading,
 * so a few points spread over the chart instead of piling up at its right edge. It always ends at the window's end,
 * rounded up to a bucket boundary: live readings stretch the end every second, and an axis end that moved with them
 * drew (and the browser shaped and cached) a new end label every second.
 */
export function xWindow(s: Pick<PropertySeries, 'from' | 'to' | 'bucket_seconds'>, times: number[]) {
  const from = new Date(s.from).getTime();
  const width = s.bucket_seconds * 1000;
  const end = new Date(s.to).getTime();
  const to = width > 0 && end > from ? from + Math.ceil((end - from) / width) * width : end;
  const first = times.length ? Math.min(...times) : undefined;
  if (first === undefined || first - from < (to - from) * 0.25) return { min: from, max: to };
  // At least a few buckets of room, so a single point does not sit on the axis line.
  const pad = Math.max(s.bucket_seconds * 1000 * 3, (to - first) * 0.15);
  return { min: Math.max(from, first - pad), max: to };
}

/** When every reading is the same value, a band around it: otherwise the axis shows one tick and no scale. */
export function yFlat(buckets: { min: number | null; max: number | null; avg: number | null }[]) {
  const values = buckets.flatMap((b) => [b.min, b.max, b.avg]).filter((v): v is number => v !== null);
  if (values.length === 0) return {};
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (hi !== lo) return {};
  const pad = Math.max(Math.abs(lo) * 0.1, 1);
  return { min: lo - pad, max: hi + pad };
}

/** "30 min", "2 h": the width of one point, for the chart's caption. */
export function bucketLabel(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
