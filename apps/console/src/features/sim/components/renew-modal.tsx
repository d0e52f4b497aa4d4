import type { OrderDetail, SimCardDetail } from '@cellhub/contract/sim';
import { Button, Grid, Modal, Spin } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { useBalance, usePackageList } from '../api';
import locale from '../locale';
import { OrderSummary } from './order-summary';
import { PackageCards } from './package-cards';
import { PayResult } from './pay-result';

/**
 * Renew or change the package of one card from its detail page: the packages of its operator (its current one
 * first and preselected), the order summary with the new expiry, and the payment from the balance.
 */
export function RenewModal({
  card,
  visible,
  onClose,
}: {
  card: SimCardDetail;
  visible: boolean;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const packages = usePackageList({ current: 1, per_page: 100, operator: card.operator });
  const balance = useBalance();
  const [packageId, setPackageId] = useState<number | undefined>(card.package_id ?? undefined);
  const [paid, setPaid] = useState<OrderDetail>();

  useEffect(() => {
    if (visible) {
      setPaid(undefined);
      setPackageId(card.package_id ?? undefined);
    }
  }, [visible, card.package_id]);

  const list = [...(packages.data?.data ?? [])].sort(
    (a, b) => Number(b.id === card.package_id) - Number(a.id === card.package_id),
  );
  const pkg = list.find((p) => p.id === packageId);

  return (
    <Modal
      title={t('sim.renew.title', { iccid: card.iccid })}
      visible={visible}
      onCancel={onClose}
      footer={
        paid ? (
          <Button type="primary" onClick={onClose}>
            {t('sim.close')}
          </Button>
        ) : null
      }
      style={{ width: 960, maxWidth: 'calc(100vw - 48px)' }}
      unmountOnExit
    >
      {paid ? (
        <PayResult order={paid} balanceFen={balance.data?.balance_fen} />
      ) : packages.isLoading ? (
        <Spin style={{ display: 'block', margin: 32 }} />
      ) : (
        <Grid.Row gutter={24}>
          <Grid.Col span={15}>
            <PackageCards
              packages={list}
              value={packageId}
              onChange={setPackageId}
              currentIds={new Set(card.package_id ? [card.package_id] : [])}
            />
          </Grid.Col>
          <Grid.Col span={9}>
            <OrderSummary
              pkg={pkg}
              cards={[card]}
              balance={balance.data}
              onPaid={async (order) => {
                await balance.refetch();
                setPaid(order);
              }}
            />
          </Grid.Col>
        </Grid.Row>
      )}
    </Modal>
  );
}
