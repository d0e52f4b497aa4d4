import { LEDGER_KINDS, type LedgerItem, type LedgerKind } from '@cellhub/contract/sim';
import { Empty, Radio, Result, Button, Table, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { useLedger, type LedgerParams } from '../api';
import locale from '../locale';
import { yuan } from '../sim-format';
import styles from '../pages/sim.module.css';
import { LedgerKindTag } from './sim-tags';

/** Every change of a balance, newest first: kind, signed amount, the balance after it, the order and the note. */
export function LedgerTable({ uid }: { uid?: number }) {
  const t = useLocale(locale);
  const [params, setParams] = useState<LedgerParams>({ current: 1, per_page: 10, uid });
  const { data, isFetching, isError, refetch } = useLedger(params);

  const columns: TableColumnProps<LedgerItem>[] = [
    {
      title: t('sim.col.time'),
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('sim.col.ledgerKind'),
      dataIndex: 'kind',
      render: (v: LedgerKind) => <LedgerKindTag kind={v} />,
    },
    {
      title: t('sim.col.amount'),
      dataIndex: 'amount_fen',
      align: 'right',
      render: (v: number) => (
        <span className={v > 0 ? styles.amountIn : styles.amountOut} data-testid="sim-ledger-amount">
          {v > 0 ? `+${yuan(v)}` : `-${yuan(-v)}`}
        </span>
      ),
    },
    {
      title: t('sim.col.balanceAfter'),
      dataIndex: 'balance_after_fen',
      align: 'right',
      render: (v: number) => <span className={styles.money}>{yuan(v)}</span>,
    },
    {
      title: t('sim.col.orderNo'),
      dataIndex: 'order_no',
      render: (v: string | null) =>
        v ? <span className={styles.mono}>{v}</span> : <span className={styles.muted}>-</span>,
    },
    {
      title: t('sim.col.note'),
      dataIndex: 'note',
      ellipsis: true,
      render: (v: string) => v || <span className={styles.muted}>-</span>,
    },
  ];

  return (
    <div data-testid="sim-ledger">
      <div className={styles.toolbar}>
        <Radio.Group
          type="button"
          value={params.kind ?? ''}
          onChange={(v: LedgerKind | '') => setParams((p) => ({ ...p, current: 1, kind: v || undefined }))}
        >
          <Radio value="">{t('sim.filter.all')}</Radio>
          {LEDGER_KINDS.map((k) => (
            <Radio key={k} value={k}>
              {t(`sim.ledgerKind.${k}`)}
            </Radio>
          ))}
        </Radio.Group>
      </div>
      {isError && !data ? (
        <Result
          status="error"
          title={t('sim.loadError')}
          extra={
            <Button type="primary" onClick={() => void refetch()}>
              {t('sim.retry')}
            </Button>
          }
        />
      ) : (
        <Table<LedgerItem>
          rowKey="id"
          loading={isFetching && !data}
          columns={columns}
          data={data?.data ?? []}
          noDataElement={<Empty description={t('sim.ledger.empty')} />}
          pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
        />
      )}
    </div>
  );
}
