import type { OrderDetail } from '@cellhub/contract/sim';
import { Descriptions, Result, Table } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { formatDate, yuan } from '../sim-format';
import styles from '../pages/sim.module.css';
import { OrderKindTag } from './sim-tags';

/** After a payment: what was charged, the balance now and each card's new expiry, as the server answered them. */
export function PayResult({
  order,
  balanceFen,
  extra,
}: {
  order: OrderDetail;
  /** The balance read again after the payment. */
  balanceFen: number | undefined;
  extra?: ReactNode;
}) {
  const t = useLocale(locale);
  return (
    <Result
      status="success"
      title={t('sim.pay.done')}
      subTitle={t('sim.pay.doneSub', { no: order.order_no })}
      extra={extra}
    >
      <div data-testid="sim-pay-result" style={{ maxWidth: 720, margin: '0 auto', textAlign: 'left' }}>
        <Descriptions
          column={2}
          labelStyle={{ color: 'var(--color-text-3)' }}
          data={[
            {
              label: t('sim.pay.paidAmount'),
              value: <span className={styles.money}>{yuan(order.amount_fen)}</span>,
            },
            {
              label: t('sim.pay.newBalance'),
              value: (
                <span className={styles.money} data-testid="sim-new-balance">
                  {balanceFen === undefined ? '-' : yuan(balanceFen)}
                </span>
              ),
            },
            { label: t('sim.col.package'), value: order.package_name },
            { label: t('sim.col.paidAt'), value: formatTime(order.paid_at) },
          ]}
        />
        <Table
          size="small"
          rowKey="iccid"
          pagination={false}
          style={{ marginTop: 12 }}
          data={order.cards}
          columns={[
            {
              title: t('sim.col.iccid'),
              dataIndex: 'iccid',
              render: (v: string) => (
                <Link to={`/card/detail/${v}`} className={`${styles.link} ${styles.mono}`}>
                  {v}
                </Link>
              ),
            },
            {
              title: t('sim.col.kind'),
              dataIndex: 'kind',
              render: (_: unknown, r) => <OrderKindTag kind={r.kind} />,
            },
            {
              title: t('sim.col.expiryBefore'),
              dataIndex: 'expiry_before',
              render: (v: string | null) => (v ? formatDate(v) : '-'),
            },
            {
              title: t('sim.col.expiryAfter'),
              dataIndex: 'expiry_after',
              render: (v: string | null) => (
                <b className={styles.nowrap} data-testid="sim-expiry-after">
                  {v ? formatDate(v) : '-'}
                </b>
              ),
            },
          ]}
        />
      </div>
    </Result>
  );
}
