import { Card, Grid, Statistic } from '@arco-design/web-react';
import { useCallback } from 'react';
import { Chart, type ChartTheme } from '../../../components/chart/chart';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';
import { sampleSeries } from '../sample-data';

const DAYS = Array.from({ length: 14 }, (_, i) => `05-${String(i + 1).padStart(2, '0')}`);
const KEYS = ['content', 'clicks', 'exposure', 'users'] as const;
const TOTALS = { content: 1902, clicks: 2445, exposure: 3034, users: 1275 };

export default function MultiDimensionPage() {
  const t = useLocale(locale);
  const axis = (theme: ChartTheme) => ({
    axisLabel: { color: theme.subText },
    axisLine: { lineStyle: { color: theme.border } },
    splitLine: { lineStyle: { color: theme.border, type: 'dashed' as const } },
  });

  const overview = useCallback(
    (theme: ChartTheme) => ({
      color: [theme.primary, '#14C9C9', '#F7BA1E', '#722ED1'],
      legend: { top: 0, textStyle: { color: theme.text } },
      tooltip: { trigger: 'axis' as const },
      grid: { left: 40, right: 16, top: 40, bottom: 24 },
      xAxis: { type: 'category' as const, data: DAYS, boundaryGap: false, ...axis(theme) },
      yAxis: { type: 'value' as const, ...axis(theme) },
      series: KEYS.map((k, i) => ({
        name: t(`multi.${k}`),
        type: 'line' as const,
        smooth: true,
        showSymbol: false,
        areaStyle: { opacity: 0.06 },
        data: sampleSeries(14, i * 2 + 1, 60 + i * 10, 25),
      })),
    }),
    [t],
  );

  const likes = useCallback(
    (theme: ChartTheme) => ({
      color: [theme.primary],
      grid: { left: 60, right: 16, top: 8, bottom: 24 },
      xAxis: { type: 'value' as const, ...axis(theme) },
      yAxis: {
        type: 'category' as const,
        data: [t('analysis.text'), t('analysis.image'), t('analysis.video')],
        ...axis(theme),
      },
      series: [{ type: 'bar' as const, barWidth: 14, data: [420, 680, 910] }],
    }),
    [t],
  );

  const source = useCallback(
    (theme: ChartTheme) => ({
      color: [theme.primary, '#14C9C9', '#F7BA1E'],
      legend: { bottom: 0, textStyle: { color: theme.text } },
      tooltip: { trigger: 'item' as const },
      series: [
        {
          type: 'pie' as const,
          radius: ['45%', '65%'],
          center: ['50%', '45%'],
          label: { show: false },
          itemStyle: { borderColor: theme.bg, borderWidth: 2 },
          data: [
            { name: t('analysis.text'), value: 32 },
            { name: t('analysis.image'), value: 41 },
            { name: t('analysis.video'), value: 27 },
          ],
        },
      ],
    }),
    [t],
  );

  return (
    <PageContainer>
      <DemoNotice />
      <Grid.Row gutter={16}>
        <Grid.Col span={16}>
          <Card bordered={false} title={t('multi.overview')}>
            <Grid.Row>
              {KEYS.map((k) => (
                <Grid.Col span={6} key={k}>
                  <Statistic title={t(`multi.${k}`)} value={TOTALS[k]} groupSeparator />
                </Grid.Col>
              ))}
            </Grid.Row>
            <Chart option={overview} height={300} style={{ marginTop: 16 }} />
          </Card>
        </Grid.Col>
        <Grid.Col span={8}>
          <Card bordered={false} title={t('multi.likes')}>
            <Chart option={likes} height={160} />
          </Card>
          <Card bordered={false} title={t('multi.source')} style={{ marginTop: 16 }}>
            <Chart option={source} height={200} />
          </Card>
        </Grid.Col>
      </Grid.Row>
    </PageContainer>
  );
}
