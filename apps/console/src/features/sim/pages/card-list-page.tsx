import type { SimCardItem } from '@cellhub/contract/sim';
import {
  Button,
  Card,
  Divider,
  Empty,
  Form,
  Message,
  Result,
  Space,
  Table,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconDownload, IconGift } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { downloadCardExport, useCardList, type CardListParams } from '../api';
import { CardFilters, filterFromValues, type CardFilterValues } from '../components/card-filters';
import { CardFlagTags, CardStatusTag, ExpiryText, UsageBar } from '../components/sim-tags';
import locale from '../locale';
import { formatDate, formatMb } from '../sim-format';
import styles from './sim.module.css';

/** /card/list: the caller's SIM cards (through their devices' ICCIDs, or assigned to them) with their traffic. */
export default function CardListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<CardFilterValues>();
  const [params, setParams] = useState<CardListParams>({ current: 1, per_page: 10 });
  const { data, isFetching, isError, refetch } = useCardList(params);
  const [exporting, setExporting] = useState(false);

  const search = () =>
    setParams((p) => ({ current: 1, per_page: p.per_page, ...filterFromValues(form.getFieldsValue()) }));

  const runExport = async () => {
    setExporting(true);
    try {
      const { current: _c, per_page: _p, ...filter } = params;
      await downloadCardExport(filter, 'mine');
      Message.success(t('sim.export.done'));
    } catch (e) {
      Message.error((e as Error).message);
    } finally {
      setExporting(false);
    }
  };

  const buyFor = (iccids: string[]) => void navigate(`/card/package?iccids=${iccids.join(',')}`);

  const columns: TableColumnProps<SimCardItem>[] = [
    {
      title: t('sim.col.iccidPhone'),
      dataIndex: 'iccid',
      render: (_: unknown, r) => (
        <div className={styles.stack}>
          <Link to={`/card/detail/${r.iccid}`} className={`${styles.link} ${styles.mono}`}>
            {r.iccid}
          </Link>
          <span className={`${styles.muted} ${styles.small} ${styles.mono}`}>{r.phone || '-'}</span>
        </div>
      ),
    },
    {
      title: t('sim.col.status'),
      dataIndex: 'status',
      render: (_: unknown, r) => (
        <Space size={4} wrap style={{ maxWidth: 84 }}>
          <CardStatusTag status={r.status} raw={r.raw_status} />
          <CardFlagTags flags={r.flags} omit={['expiring', 'expired']} />
        </Space>
      ),
    },
    {
      title: t('sim.col.remaining'),
      dataIndex: 'remaining_traffic',
      render: (v: number | null, r) =>
        v === null ? (
          <span className={styles.muted}>{t('sim.noPackage')}</span>
        ) : (
          <Tooltip content={r.package_name ?? ''} disabled={!r.package_name}>
            <span className={`${styles.nowrap} ${v <= 0 ? styles.danger : ''}`}>{formatMb(v)}</span>
          </Tooltip>
        ),
    },
    {
      // Month used over month total, as a bar: the two figures of the seed in one cell, so the row fits 1280 px.
      title: t('sim.col.monthUsedTotal'),
      dataIndex: 'month_used',
      render: (_: unknown, r) => <UsageBar used={r.month_used} total={r.month_total} width={100} />,
    },
    {
      title: t('sim.col.activation'),
      dataIndex: 'activation_time',
      render: (v: string | null) =>
        v ? (
          <Tooltip content={formatTime(v)} mini>
            <span className={styles.nowrap}>{formatDate(v)}</span>
          </Tooltip>
        ) : (
          <span className={styles.muted}>-</span>
        ),
    },
    {
      title: t('sim.col.expiry'),
      dataIndex: 'expiry',
      render: (v: string | null) => <ExpiryText expiry={v} stacked />,
    },
    {
      title: t('sim.col.device'),
      dataIndex: 'device_sn',
      render: (v: string | null) =>
        v ? (
          <span className={`${styles.mono} ${styles.clip}`} style={{ maxWidth: 80 }} title={v}>
            {v}
          </span>
        ) : (
          <span className={styles.muted}>-</span>
        ),
    },
    {
      title: t('sim.col.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, r) => (
        <Button type="text" size="small" onClick={() => buyFor([r.iccid])}>
          {r.package_id ? t('sim.action.renew') : t('sim.action.buyShort')}
        </Button>
      ),
    },
  ];

  const filtered = Object.entries(params).some(
    ([k, v]) => k !== 'current' && k !== 'per_page' && v !== undefined,
  );
  const empty = (
    <Empty
      description={
        filtered ? (
          t('sim.card.emptyFiltered')
        ) : (
          <Space direction="vertical" size={4}>
            <span>{t('sim.card.empty')}</span>
            <span className={styles.muted}>{t('sim.card.empty.hint')}</span>
          </Space>
        )
      }
    />
  );

  return (
    <PageContainer>
      <Card bordered={false} title={t('sim.card.title')}>
        <CardFilters form={form} onSearch={search} />
        <Divider style={{ marginTop: 0 }} />
        <div className={styles.toolbar}>
          <Button type="primary" icon={<IconGift />} onClick={() => void navigate('/card/package')}>
            {t('sim.action.buy')}
          </Button>
          <Button icon={<IconDownload />} loading={exporting} onClick={() => void runExport()}>
            {t('sim.export')}
          </Button>
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
          <Table<SimCardItem>
            rowKey="iccid"
            loading={isFetching && !data}
            columns={columns}
            data={data?.data ?? []}
            noDataElement={empty}
            scroll={{ x: 'max-content' }}
            pagination={listPagination(params, setParams, data?.total, (total) => t('sim.total', { total }))}
          />
        )}
      </Card>
    </PageContainer>
  );
}
