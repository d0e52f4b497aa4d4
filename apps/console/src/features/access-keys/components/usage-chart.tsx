import { Button, Empty, Result, Spin } from '@arco-design/web-react';
import { useCallback } from 'react';
import { Chart, type ChartTheme } from '../../../components/chart/chart';
import { useLocale } from '../../../lib/i18n';
import { useAccessKeyUsage } from '../api';
import locale from '../locale';
import { usageOption, usageTotals } from '../usage-option';
import styles from './access-keys.module.css';

const HEIGHT = 260;
const center = { height: HEIGHT, display: 'flex', alignItems: 'center', justifyContent: 'center' } as const;

/** Requests signed with the key per day, ok vs refused, last 30 days; ECharts loads after the page paints. */
export function UsageChart({ accessKey }: { accessKey: string }) {
  const t = useLocale(locale);
  const usage = useAccessKeyUsage(accessKey);
  const days = usage.data;
  const ok = t('accessKey.detail.usage.ok');
  const refused = t('accessKey.detail.usage.refused');
  const option = useCallback(
    (theme: ChartTheme) => usageOption(days ?? [], { ok, refused }, theme),
    [days, ok, refused],
  );
  if (usage.isError && !days)
    return (
      <Result
        status="error"
        title={t('accessKey.loadFailed')}
        extra={<Button onClick={() => void usage.refetch()}>{t('accessKey.retry')}</Button>}
      />
    );
  if (!days)
    return (
      <div style={center}>
        <Spin />
      </div>
    );
  const totals = usageTotals(days);
  return (
    <div data-testid="access-key-usage-chart">
      <div className={styles.muted} data-testid="access-key-usage-total">
        {t('accessKey.detail.usage.total', totals)}
      </div>
      {totals.ok + totals.refused === 0 ? (
        <div style={center}>
          <Empty description={t('accessKey.detail.usage.empty')} />
        </div>
      ) : (
        <Chart option={option} height={HEIGHT} />
      )}
    </div>
  );
}
