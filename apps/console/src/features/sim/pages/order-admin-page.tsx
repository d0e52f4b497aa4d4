import type { BalanceAccountItem } from '@cellhub/contract/sim';
import {
  Button,
  Card,
  Divider,
  Drawer,
  Empty,
  Form,
  Grid,
  Input,
  Result,
  Space,
  Table,
  Tabs,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlusCircle } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { ListSearchBar } from '../../../components/list-search-bar';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination, type PageParams } from '../../../lib/list-pagination';
import { useBalanceAccounts } from '../api';
import { LedgerTable } from '../components/ledger-table';
import { OrdersTable } from '../components/orders-table';
import { TopupModal } from '../components/topup-modal';
import locale from '../locale';
import { yuan } from '../sim-format';
import styles from './sim.module.css';

type Topup = { uid?: number; username?: string; balanceFen?: number };

/** Users with their balance; top up one (with a note) or read their ledger. */
function BalancesPanel({ onTopup }: { onTopup: (t: Topup) => void }) {
  const t = useLocale(locale);
  const [form] = Form.useForm<{ keyword?: string }>();
  const [params, setParams] = useState<PageParams & { keyword?: string }>({ current: 1, per_page: 10 });
  const { data, isFetching, isError, refetch } = useBalanceAccounts(params);
  const [ledgerOf, setLedgerOf] = useState<BalanceAccountItem>();

  const columns: TableColumnProps<BalanceAccountItem>[] = [
    { title: t('sim.col.user'), dataIndex: 'username' },
    { title: 'UID', dataIndex: 'uid', align: 'right' },
    {
      title: t('sim.col.balance'),
      dataIndex: 'balance_fen',
      align: 'right',
      render: (v: number) => <b className={styles.money}>{yuan(v)}</b>,
    },
    {
      title: t('sim.col.updatedAt'),
      dataIndex: 'updatedat',
      render: (v: string | null) =>
        v ? <span className={styles.nowrap}>{formatTime(v)}</span> : <span className={styles.muted}>-</span>,
    },
    {
      title: t('sim.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, r) => (
        <Space size={0}>
          <Button
            type="text"
            size="small"
            onClick={() => onTopup({ uid: r.uid, username: r.username, balanceFen: r.balance_fen })}
          >
            {t('sim.topup.action')}
          </Button>
          <Button type="text" size="small" onClick={() => setLedgerOf(r)}>
            {t('sim.balance.ledger')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="sim-balances">
      <ListSearchBar
        form={form}
        labelAlign="left"
        onSearch={() =>
          setParams((p) => ({
            current: 1,
            per_page: p.per_page,
            keyword: form.getFieldsValue().keyword?.trim() || undefined,
          }))
        }
      >
        <Grid.Row gutter={24}>
          <Grid.Col span={12}>
            <Form.Item label={t('sim.col.user')} field="keyword">
              <Input allowClear maxLength={64} placeholder={t('sim.balance.keyword.placeholder')} />
            </Form.Item>
          </Grid.Col>
        </Grid.Row>
      </ListSearchBar>
      <Divider style={{ marginTop: 0 }} />
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
        <Table<BalanceAccountItem>
          rowKey="uid"
          loading={isFetching && !data}
          columns={columns}
          data={data?.data ?? []}
          noDataElement={<Empty description={t('sim.balance.noAccounts')} />}
          pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
        />
      )}
      <Drawer
        width={820}
        title={
          ledgerOf
            ? t('sim.balance.ledgerOf', { user: ledgerOf.username, balance: yuan(ledgerOf.balance_fen) })
            : ''
        }
        visible={!!ledgerOf}
        onCancel={() => setLedgerOf(undefined)}
        footer={null}
        unmountOnExit
      >
        {ledgerOf && <LedgerTable uid={ledgerOf.uid} />}
      </Drawer>
    </div>
  );
}

/** /card/order (admin): every order with filters, refunds and manual completion; balances and top-ups. */
export default function OrderAdminPage() {
  const t = useLocale(locale);
  const [search, setSearch] = useSearchParams();
  const tab = search.get('tab') === 'balances' ? 'balances' : 'orders';
  const [topup, setTopup] = useState<Topup>();

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={t('sim.order.adminTitle')}
        extra={
          <Button type="primary" icon={<IconPlusCircle />} onClick={() => setTopup({})}>
            {t('sim.topup.title')}
          </Button>
        }
      >
        <Tabs
          activeTab={tab}
          headerPadding={false}
          onChange={(k) => setSearch(k === 'balances' ? { tab: 'balances' } : {}, { replace: true })}
        >
          <Tabs.TabPane key="orders" title={t('sim.tab.allOrders')}>
            <OrdersTable admin />
          </Tabs.TabPane>
          <Tabs.TabPane key="balances" title={t('sim.tab.balances')}>
            <BalancesPanel onTopup={setTopup} />
          </Tabs.TabPane>
        </Tabs>
      </Card>
      <TopupModal
        visible={!!topup}
        onClose={() => setTopup(undefined)}
        uid={topup?.uid}
        username={topup?.username}
        balanceFen={topup?.balanceFen}
      />
    </PageContainer>
  );
}
