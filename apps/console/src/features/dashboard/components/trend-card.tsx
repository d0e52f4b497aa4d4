import { Radio } from '@arco-design/web-react';
import { useCallback, useMemo, useState } from 'react';
import { Chart, type ChartTheme } from '../../../components/chart/chart';
import { useLocale } from '../../../lib/i18n';
import { useTrend } from '../api';
import { lastDays, trendOption } from '../chart-options';
import locale from '../locale';
import styles from '../pages/workplace-page.module.css';

const RANGES = [7, 15, 30] as const;

/** Daily online devices and messages received (device_daily_stats on the server). */
export default function TrendSection() {
  const t = useLocale(locale);
  const [range, setRange] = useState<(typeof RANGES)[number]>(7);
  const { data } = useTrend(range);
  const placeholder = useMemo(() => lastDays(range), [range]);
  const option = useCallback(
    (theme: ChartTheme) => {
      // Until the figures arrive the axes show the range, with no invented values.
      const days = data && data.range === range ? data.days : undefined;
      return trendOption(
        {
          days: days ? days.map((d) => d.day.slice(5)) : placeholder,
          online: days ? days.map((d) => d.online) : placeholder.map(() => null),
          messages: days ? days.map((d) => d.messages) : placeholder.map(() => null),
          labels: {
            online: t('workplace.series.online'),
            messages: t('workplace.series.messages'),
            empty: t('workplace.noData'),
          },
        },
        theme,
      );
    },
    [data, range, placeholder, t],
  );

  return (
    <div data-testid="workplace-trend">
      <div className={styles.sectionHead}>
        <span className={styles.sectionTitle}>{t('workplace.trend')}</span>
        <Radio.Group type="button" size="small" value={range} onChange={setRange}>
          {RANGES.map((r) => (
            <Radio key={r} value={r}>
              {t(`workplace.range.${r}`)}
            </Radio>
          ))}
        </Radio.Group>
      </div>
      <Chart option={option} height={300} />
    </div>
  );
}
