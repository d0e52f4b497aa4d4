import { Card, Grid, Table } from '@arco-design/web-react';
import { IconArrowDown, IconArrowUp } from '@arco-design/web-react/icon';
import { useCallback } from 'react';
import { Chart, type ChartTheme } from '../../../components/chart/chart';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';
import { sampleSeries } from '../sample-data';
import styles from './demo.module.css';

const HOURS = Array.from({ length: 12 }, (_, i) => `${String(i * 2).padStart(2, '0')}:00`);
const TILES = [
  { key: 'visits', value: 373_500, delta: 12.4, color: 'primary' },
  { key: 'published', value: 36_800, delta: -2.1, color: 'green' },
  { key: 'comments', value: 8_874, delta: 5.8, color: 'cyan' },
  { key: 'shares', value: 2_863, delta: 1.2, color: 'purple' },
] as const;
const AUTHORS = ['Lin', 'Chen', 'Wang', 'Zhao', 'Liu', 'Yang', 'Huang'].map((author, i) => ({
  rank: i + 1,
  author,
  volume: 9000 - i * 830,
  clicks: 41000 - i * 3900,
}));

export default function DataAnalysisPage() {
  const t = useLocale(locale);
  const axis = (theme: ChartTheme) => ({
    axisLabel: { color: theme.subText },
    axisLine: { lineStyle: { color: theme.border } },
    splitLine: { lineStyle: { color: theme.border, type: 'dashed' as const } },
  });

  const rateOption = useCallback(
    (theme: ChartTheme) => ({
      color: [theme.primary, '#14C9C9', '#F7BA1E'],
      legend: { top: 0, textStyle: { color: theme.text } },
      tooltip: { trigger: 'axis' as const },
      grid: { left: 40, right: 16, top: 40, bottom: 24 },
      xAxis: { type: 'category' as const, data: HOURS, ...axis(theme) },
      yAxis: { type: 'value' as const, ...axis(theme) },
      series: (['text', 'image', 'video'] as const).map((k, i) => ({
        name: t(`analysis.${k}`),
        type: 'bar' as const,
        stack: 'all',
        barWidth: 16,
        data: sampleSeries(12, i + 2, 30, 20),
      })),
    }),
    [t],
  );

  const periodOption = useCallback(
    (theme: ChartTheme) => ({
      color: [theme.primary, '#14C9C9', '#F7BA1E'],
      legend: { top: 0, textStyle: { color: theme.text } },
      tooltip: { trigger: 'axis' as const },
      grid: { left: 40, right: 16, top: 40, bottom: 24 },
      xAxis: { type: 'category' as const, data: HOURS, boundaryGap: false, ...axis(theme) },
      yAxis: { type: 'value' as const, ...axis(theme) },
      series: (['text', 'image', 'video'] as const).map((k, i) => ({
        name: t(`analysis.${k}`),
        type: 'line' as const,
        smooth: true,
        showSymbol: false,
        data: sampleSeries(12, i * 3 + 1, 50, 35),
      })),
    }),
    [t],
  );

  return (
    <PageContainer>
      <DemoNotice />
      <Card bordered={false} title={t('analysis.title')}>
        <div className={styles.statTiles}>
          {TILES.map((tile) => (
            <div
              key={tile.key}
              className={styles.statTile}
              style={{ background: `rgb(var(--${tile.color}-1))` }}
            >
              <div className={styles.muted}>{t(`analysis.${tile.key}`)}</div>
              <div className={styles.statTileValue}>{tile.value.toLocaleString()}</div>
              <div className={styles.muted}>
                {t('analysis.yesterday')}{' '}
                <span className={tile.delta >= 0 ? styles.up : styles.down}>
                  {Math.abs(tile.delta)}% {tile.delta >= 0 ? <IconArrowUp /> : <IconArrowDown />}
                </span>
              </div>
            </div>
          ))}
        </div>
      </Card>
      <Grid.Row gutter={16}>
        <Grid.Col span={15}>
          <Card bordered={false} title={t('analysis.rate')}>
            <Chart option={rateOption} height={320} />
          </Card>
        </Grid.Col>
        <Grid.Col span={9}>
          <Card bordered={false} title={t('analysis.authors')} style={{ height: '100%' }}>
            <Table
              rowKey="rank"
              size="small"
              pagination={false}
              data={AUTHORS}
              columns={[
                { title: t('analysis.rank'), dataIndex: 'rank' },
                { title: t('analysis.author'), dataIndex: 'author' },
                { title: t('analysis.volume'), dataIndex: 'volume' },
                { title: t('analysis.clicks'), dataIndex: 'clicks' },
              ]}
            />
          </Card>
        </Grid.Col>
      </Grid.Row>
      <Card bordered={false} title={t('analysis.period')}>
        <Chart option={periodOption} height={320} />
      </Card>
    </PageContainer>
  );
}
