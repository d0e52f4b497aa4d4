import { Radio } from '@arco-design/web-react';
import { useCallback, useMemo, useState } from 'react';
import { Chart, type ChartTheme } from '../../../components/chart/chart';
import { useLocale } from '../../../lib/i18n';
import { lastDays, trendOption } from '../chart-options';
import locale from '../locale';
import styles from '../pages/workplace-page.module.css';

const RANGES = [7, 15, 30] as const;

/** Daily online devices and data usage. The figures come with the device and SIM issues; now the axes only. */
export default function TrendSection() {
  const t = useLocale(locale);
  const [range, setRange] = useState<(typeof RANGES)[number]>(7);
  const days = useMemo(() => lastDays(range), [range]);
  const option = useCallback(
    (theme: ChartTheme) =>
      trendOption(
        {
          days,
          online: days.map(() => null),
          traffic: days.map(() => null),
          labels: {
            online: t('workplace.series.online'),
            traffic: t('workplace.series.traffic'),
            empty: t('workplace.noData'),
          },
        },
        theme,
      ),
    [days, t],
  );

  return (
    <div>
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
