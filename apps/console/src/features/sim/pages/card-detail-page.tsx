import type { SimCardDetail, SimCardOrderItem } from '@cellhub/contract/sim';
import {
  Alert,
  Badge,
  Button,
  Card,
  Descriptions,
  Empty,
  Grid,
  Skeleton,
  Space,
  Table,
  Typography,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconRefresh, IconGift } from '@arco-design/web-react/icon';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination, type PageParams } from '../../../lib/list-pagination';
import { useRole } from '../../../lib/user';
import { SIM_KEY, useCard, useCardOrders } from '../api';
import { RenewModal } from '../components/renew-modal';
import {
  CardFlagTags,
  CardStatusTag,
  ExpiryText,
  OrderKindTag,
  OrderStatusTag,
  UsageBar,
} from '../components/sim-tags';
import { UsageChart } from '../components/usage-chart';
import locale from '../locale';
import { formatDate, formatMb, yuan } from '../sim-format';
import styles from './sim.module.css';
import { ResultPage } from '../../../components/result-page/result-page';

const dash = (v: ReactNode) => (v === null || v === undefined || v === '' ? '-' : v);
const labelStyle = { color: 'var(--color-text-3)', whiteSpace: 'nowrap' as const };

function SwapBanner({ card }: { card: SimCardDetail }) {
  const t = useLocale(locale);
  if (card.swaps.length === 0) return null;
  const latest = card.swaps[0]!;
  const mine = latest.new_iccid === card.iccid;
  return (
    <Alert
      type="warning"
      showIcon
      data-testid="sim-swap-banner"
      title={t('sim.swap.title')}
      content={
        <Space direction="vertical" size={2}>
          <span>
            {t(mine ? 'sim.swap.inserted' : 'sim.swap.removed', {
              sn: latest.sn,
              old: latest.old_iccid,
              new: latest.new_iccid,
              time: formatTime(latest.at),
            })}
          </span>
          {card.swaps.length > 1 && (
            <span className={styles.muted}>{t('sim.swap.more', { count: card.swaps.length - 1 })}</span>
          )}
        </Space>
      }
    />
  );
}

function DeviceCard({ card }: { card: SimCardDetail }) {
  const t = useLocale(locale);
  const d = card.device;
  return (
    <Card bordered={false} title={t('sim.detail.device')} style={{ height: '100%' }}>
      {d ? (
        <Descriptions
          column={1}
          labelStyle={labelStyle}
          data={[
            {
              label: t('sim.field.deviceSn'),
              value: (
                <Link
                  to={`/device/detail/${encodeURIComponent(d.product_key)}/${encodeURIComponent(d.sn)}`}
                  className={`${styles.link} ${styles.mono}`}
                  data-testid="sim-device-link"
                >
                  {d.sn}
                </Link>
              ),
            },
            { label: t('sim.field.deviceName'), value: dash(d.name) },
            { label: t('sim.field.product'), value: <span className={styles.mono}>{d.product_key}</span> },
            {
              label: t('sim.field.online'),
              value:
                d.online === 1 ? (
                  <Badge status="success" text={t('sim.device.online')} />
                ) : (
                  <Badge status="default" text={t('sim.device.offline')} />
                ),
            },
            { label: t('sim.field.lastSeen'), value: dash(formatTime(d.lastcommunicationat)) },
          ]}
        />
      ) : (
        <Empty description={t('sim.detail.noDevice')} />
      )}
    </Card>
  );
}

function PackageHistory({ iccid }: { iccid: string }) {
  const t = useLocale(locale);
  const [params, setParams] = useState<PageParams>({ current: 1, per_page: 5 });
  const { data, isFetching } = useCardOrders(iccid, params);
  const columns: TableColumnProps<SimCardOrderItem>[] = [
    {
      title: t('sim.col.orderNo'),
      dataIndex: 'order_no',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    { title: t('sim.col.package'), dataIndex: 'package_name' },
    {
      title: t('sim.col.kind'),
      dataIndex: 'kind',
      render: (_: unknown, r) => <OrderKindTag kind={r.card.kind} />,
    },
    {
      title: t('sim.col.amount'),
      dataIndex: 'unit_price_fen',
      align: 'right',
      render: (v: number) => <span className={styles.money}>{yuan(v)}</span>,
    },
    {
      title: t('sim.col.status'),
      dataIndex: 'status',
      render: (_: unknown, r) => <OrderStatusTag status={r.status} />,
    },
    {
      title: t('sim.col.validity'),
      dataIndex: 'validity',
      render: (_: unknown, r) =>
        r.card.expiry_after ? (
          <span className={styles.nowrap}>
            {r.card.expiry_before ? formatDate(r.card.expiry_before) : '-'} →{' '}
            {formatDate(r.card.expiry_after)}
            {r.card.reverted && <span className={styles.warning}> ({t('sim.order.reverted.yes')})</span>}
          </span>
        ) : (
          <span className={styles.muted}>-</span>
        ),
    },
    {
      title: t('sim.col.createdAt'),
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
  ];
  return (
    <Table<SimCardOrderItem>
      rowKey="id"
      size="small"
      loading={isFetching && !data}
      columns={columns}
      data={data?.data ?? []}
      noDataElement={<Empty description={t('sim.detail.noHistory')} />}
      pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
    />
  );
}

/** /card/detail/:iccid — one card: figures, usage by day and month, its device, SIM swaps and package history. */
export default function CardDetailPage() {
  const t = useLocale(locale);
  const { iccid = '' } = useParams();
  const qc = useQueryClient();
  const isAdmin = useRole() === 'admin';
  const card = useCard(iccid);
  const [renewing, setRenewing] = useState(false);

  if (card.isError)
    return (
      <ResultPage
        error={card.error}
        back="/card/list"
        backLabel={t('sim.detail.backToList')}
        notFoundTitle={t('sim.detail.notFound')}
        subject={iccid}
        onRetry={() => void card.refetch()}
      />
    );

  const c = card.data;
  if (!c)
    return (
      <PageContainer>
        <Card bordered={false}>
          <Skeleton text={{ rows: 8 }} animation />
        </Card>
      </PageContainer>
    );

  const info = [
    {
      label: t('sim.field.iccid'),
      value: (
        <span className={styles.mono} data-testid="sim-detail-iccid">
          {c.iccid}
        </span>
      ),
    },
    { label: t('sim.field.phone'), value: dash(c.phone) },
    { label: t('sim.field.imsi'), value: dash(c.imsi) },
    { label: t('sim.field.operator'), value: t(`sim.operator.${c.operator}`) },
    { label: t('sim.field.status'), value: <CardStatusTag status={c.status} raw={c.raw_status} /> },
    { label: t('sim.field.activation'), value: dash(formatTime(c.activation_time)) },
    {
      label: t('sim.field.package'),
      value: c.package_name ? (
        <span>
          {c.package_name}
          {c.package_type && (
            <span className={styles.muted}> · {t(`sim.packageType.${c.package_type}`)}</span>
          )}
        </span>
      ) : (
        <span className={styles.muted}>{t('sim.noPackage')}</span>
      ),
    },
    {
      label: t('sim.field.expiry'),
      value: (
        <span data-testid="sim-detail-expiry">
          <ExpiryText expiry={c.expiry} withTime />
        </span>
      ),
    },
    {
      label: t('sim.field.remaining'),
      value: (
        <span
          className={c.remaining_traffic !== null && c.remaining_traffic <= 0 ? styles.danger : undefined}
        >
          {formatMb(c.remaining_traffic)}
        </span>
      ),
    },
    { label: t('sim.field.monthTotal'), value: formatMb(c.month_total) },
    {
      label: t('sim.field.monthUsed'),
      value: <UsageBar used={c.month_used} total={c.month_total} width={180} />,
    },
    { label: t('sim.field.lastSynced'), value: dash(formatTime(c.last_synced_at)) },
    ...(c.operator_expiry
      ? [{ label: t('sim.field.operatorExpiry'), value: formatTime(c.operator_expiry) }]
      : []),
    ...(c.operator_quota
      ? [
          {
            label: t('sim.field.operatorQuota'),
            value: `${formatMb(c.operator_quota.used)} / ${formatMb(c.operator_quota.total)}`,
          },
        ]
      : []),
    ...(isAdmin
      ? [
          { label: t('sim.field.provider'), value: dash(c.provider_name) },
          { label: t('sim.field.assigned'), value: dash(c.username) },
        ]
      : []),
    ...(c.remark ? [{ label: t('sim.field.remark'), value: c.remark }] : []),
  ];

  return (
    <PageContainer>
      <Card bordered={false}>
        <Space style={{ width: '100%', justifyContent: 'space-between' }} align="start">
          <Space direction="vertical" size={4}>
            <Space size={12} align="center">
              <Typography.Title heading={5} style={{ margin: 0 }} className={styles.mono}>
                {c.iccid}
              </Typography.Title>
              <CardStatusTag status={c.status} raw={c.raw_status} />
              <CardFlagTags flags={c.flags} />
            </Space>
            <Typography.Text type="secondary">
              {[c.phone, t(`sim.operator.${c.operator}`), c.package_name].filter(Boolean).join(' · ')}
            </Typography.Text>
          </Space>
          <Space>
            <Button
              icon={<IconRefresh />}
              aria-label={t('sim.refresh')}
              onClick={() => void qc.invalidateQueries({ queryKey: SIM_KEY })}
            />
            <Button type="primary" icon={<IconGift />} onClick={() => setRenewing(true)}>
              {c.package_id ? t('sim.action.renewChange') : t('sim.action.buy')}
            </Button>
          </Space>
        </Space>
        {c.sync_error && (
          <Alert
            type="error"
            style={{ marginTop: 12 }}
            content={t('sim.detail.syncError', { error: c.sync_error })}
          />
        )}
        {c.swaps.length > 0 && (
          <div style={{ marginTop: 12 }}>
            <SwapBanner card={c} />
          </div>
        )}
      </Card>
      <Card bordered={false} title={t('sim.detail.info')}>
        <Descriptions column={{ xs: 1, md: 2, xl: 3 }} labelStyle={labelStyle} data={info} />
      </Card>
      <Grid.Row gutter={16}>
        <Grid.Col span={16}>
          <Card bordered={false} title={t('sim.detail.usage')} style={{ height: '100%' }}>
            <UsageChart iccid={c.iccid} />
          </Card>
        </Grid.Col>
        <Grid.Col span={8}>
          <DeviceCard card={c} />
        </Grid.Col>
      </Grid.Row>
      <Card bordered={false} title={t('sim.detail.history')}>
        <PackageHistory iccid={c.iccid} />
      </Card>
      <RenewModal card={c} visible={renewing} onClose={() => setRenewing(false)} />
    </PageContainer>
  );
}
