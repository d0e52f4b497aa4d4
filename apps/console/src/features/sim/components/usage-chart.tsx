import type { SimUsageSeries } from '@cellhub/contract/sim';
import { Button, Empty, Radio, Result, Space, Spin } from '@arco-design/web-react';
import { useCallback, useState } from 'react';
import { Chart, type ChartOption, type ChartTheme } from '../../../components/chart/chart';
import { useLocale } from '../../../lib/i18n';
import { useCardUsage } from '../api';
import locale from '../locale';
import { formatMb } from '../sim-format';

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Every period of the window, oldest first, with 0 where the server has no figure (it sends only periods with
 * usage): the last 30 days or the last 12 months, in UTC like the server's periods.
 */
export function fillPeriods(series: SimUsageSeries, now = new Date()): { period: string; used: number }[] {
  const byPeriod = new Map(series.points.map((p) => [p.period, p.used]));
  const out: { period: string; used: number }[] = [];
  if (series.granularity === 'day') {
    for (let i = 29; i >= 0; i--) {
      const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - i));
      const key = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
      out.push({ period: key, used: byPeriod.get(key) ?? 0 });
    }
  } else {
    for (let i = 11; i >= 0; i--) {
      const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
      const key = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
      out.push({ period: key, used: byPeriod.get(key) ?? 0 });
    }
  }
  // Figures outside the default window (imports of older days) are not dropped.
  const keys = new Set(out.map((p) => p.period));
  const older = series.points.filter((p) => !keys.has(p.period));
  return [...older, ...out].sort((a, b) => a.period.localeCompare(b.period));
}

export function usageOption(
  points: { period: string; used: number }[],
  label: string,
  theme: ChartTheme,
): ChartOption {
  return {
    animation: false,
    grid: { left: 64, right: 16, top: 24, bottom: 32 },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (v) => (typeof v === 'number' ? formatMb(v) : String(v ?? '-')),
    },
    xAxis: {
      type: 'category',
      data: points.map((p) => (p.period.length === 10 ? p.period.slice(5) : p.period)),
      axisLabel: { color: theme.subText, hideOverlap: true },
      axisLine: { lineStyle: { color: theme.border } },
    },
    yAxis: {
      type: 'value',
      axisLabel: { color: theme.subText, formatter: (v: number) => formatMb(v) },
      splitLine: { lineStyle: { color: theme.border, type: 'dashed' } },
    },
    series: [
      {
        name: label,
        type: 'bar',
        barMaxWidth: 24,
        color: theme.primary,
        data: points.map((p) => p.used),
      },
    ],
  };
}

/** Traffic used per day (last 30 days) or per month (last 12 months), the chart component of the device detail. */
export function UsageChart({ iccid }: { iccid: string }) {
  const t = useLocale(locale);
  const [granularity, setGranularity] = useState<'day' | 'month'>('day');
  const usage = useCardUsage(iccid, granularity);
  const series = usage.data;
  const label = t('sim.usage.used');
  const option = useCallback(
    (theme: ChartTheme) => usageOption(series ? fillPeriods(series) : [], label, theme),
    [series, label],
  );
  const total = series ? series.points.reduce((s, p) => s + p.used, 0) : 0;

  return (
    <div data-testid="sim-usage-chart">
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 8 }}>
        <Radio.Group type="button" size="small" value={granularity} onChange={setGranularity}>
          <Radio value="day">{t('sim.usage.byDay')}</Radio>
          <Radio value="month">{t('sim.usage.byMonth')}</Radio>
        </Radio.Group>
        {series && (
          <span style={{ color: 'var(--color-text-3)', fontSize: 12 }}>
            {t(granularity === 'day' ? 'sim.usage.total30d' : 'sim.usage.total12m', {
              total: formatMb(total),
            })}
          </span>
        )}
      </Space>
      {usage.isError && !series ? (
        <Result
          status="error"
          title={t('sim.loadError')}
          extra={<Button onClick={() => void usage.refetch()}>{t('sim.retry')}</Button>}
        />
      ) : !series ? (
        <div style={{ height: 260, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
          <Spin />
        </div>
      ) : series.points.length === 0 ? (
        <div style={{ height: 260, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
          <Empty description={t('sim.usage.empty')} />
        </div>
      ) : (
        <Chart option={option} height={260} />
      )}
    </div>
  );
}
