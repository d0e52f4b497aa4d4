import { Card, Divider, Grid } from '@arco-design/web-react';
import { useMemo } from 'react';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { useUserInfo } from '../../../lib/user';
import { useOverview, useWorkplace } from '../api';
import { useLiveWorkplace } from '../live-workplace';
import DonutCard from '../components/donut-card';
import { AlertsBlock, OfflineBlock, OtaBlock, SimBlock } from '../components/ops-cards';
import OverviewStats from '../components/overview-stats';
import { AnnouncementsCard, DocsCard, ShortcutsCard } from '../components/side-cards';
import TrendSection from '../components/trend-card';
import locale from '../locale';
import styles from './workplace-page.module.css';

export default function WorkplacePage() {
  const t = useLocale(locale);
  const { data: me } = useUserInfo();
  const name = me ? me.nickname || me.username : '';

  const { data: overview } = useOverview();
  const workplace = useWorkplace();
  useLiveWorkplace();
  const ops = {
    data: workplace.data,
    isLoading: workplace.isLoading,
    isError: workplace.isError,
    refetch: () => void workplace.refetch(),
  };
  const productShares = useMemo(
    () => (overview?.by_product ?? []).map((p) => ({ name: p.product_name, value: p.total })),
    [overview],
  );
  const sim = overview?.sim;
  const simCount = (op: string) => sim?.cards_by_operator.find((o) => o.operator === op)?.total ?? 0;
  const operatorShares = useMemo(
    () =>
      [
        { name: t('workplace.operator.cmcc'), value: simCount('china_mobile') },
        { name: t('workplace.operator.cucc'), value: simCount('china_unicom') },
        { name: t('workplace.operator.ctcc'), value: simCount('china_telecom') },
        { name: t('workplace.operator.other'), value: simCount('other') },
      ].filter((s, i) => i < 3 || s.value > 0),
    // simCount reads `sim`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [t, sim],
  );

  return (
    <PageContainer className={styles.layout}>
      <div className={styles.main}>
        <Card bordered={false}>
          <div className={styles.welcome}>{t('workplace.welcome', { name })}</div>
          <div className={styles.hint}>{t('workplace.overviewHint')}</div>
          <Divider />
          <OverviewStats
            data={
              overview
                ? {
                    deviceTotal: overview.device_total,
                    deviceOnline: overview.device_online,
                    deviceOffline: overview.device_offline,
                    balanceFen: overview.sim.balance_fen,
                    pendingOrders: overview.sim.orders_pending,
                    renewalOrders: overview.sim.orders_renewal,
                    simTotal: overview.sim.cards_total,
                    simExpiring: overview.sim.cards_expiring_30d,
                    simByOperator: {
                      cmcc: simCount('china_mobile'),
                      cucc: simCount('china_unicom'),
                      ctcc: simCount('china_telecom'),
                    },
                  }
                : {}
            }
          />
          <Divider />
          <TrendSection />
        </Card>
        <div className={styles.ops}>
          <AlertsBlock state={ops} />
          <OtaBlock state={ops} />
          <SimBlock state={ops} />
          <OfflineBlock state={ops} />
        </div>
        <Grid.Row gutter={16} className={styles.row} align="stretch">
          <Grid.Col span={12}>
            <DonutCard
              title={t('workplace.deviceStatus')}
              items={productShares}
              empty={t('workplace.noData')}
            />
          </Grid.Col>
          <Grid.Col span={12}>
            <DonutCard
              title={t('workplace.simOperators')}
              items={operatorShares}
              empty={t('workplace.noData')}
            />
          </Grid.Col>
        </Grid.Row>
      </div>
      <div className={styles.side}>
        <ShortcutsCard />
        <AnnouncementsCard />
        <DocsCard />
      </div>
    </PageContainer>
  );
}
