import type { DeviceItem } from '@cellhub/contract/devices';
import { Badge, Button, Empty, Table, type TableColumnProps } from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { formatTime } from '../../../lib/format-time';
import type { Translate } from '../../../lib/i18n';
import { useProductDevices } from '../api';
import styles from '../pages/product.module.css';

/** The product's devices, each linking to its detail page. */
export default function DevicesTab({ productKey, t }: { productKey: string; t: Translate }) {
  const navigate = useNavigate();
  const [page, setPage] = useState({ current: 1, per_page: 10 });
  const { data, isFetching } = useProductDevices(productKey, page);
  const columns: TableColumnProps<DeviceItem>[] = [
    {
      title: t('product.devices.sn'),
      dataIndex: 'sn',
      render: (v: string) => (
        <Link to={`/device/detail/${productKey}/${encodeURIComponent(v)}`} className={styles.mono}>
          {v}
        </Link>
      ),
    },
    { title: t('product.devices.name'), dataIndex: 'name' },
    {
      title: t('product.devices.online'),
      dataIndex: 'online',
      render: (v: number) => (
        <Badge
          status={v === 1 ? 'success' : 'default'}
          text={t(`product.devices.online.${v === 1 ? 1 : 0}`)}
        />
      ),
    },
    {
      title: t('product.devices.lastSeen'),
      dataIndex: 'lastcommunicationat',
      render: (v: string | null) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
  ];
  return (
    <>
      <div className={styles.toolbar}>
        <Button icon={<IconPlus />} onClick={() => void navigate(`/device/create?product_key=${productKey}`)}>
          {t('product.devices.add')}
        </Button>
      </div>
      <Table<DeviceItem>
        rowKey="sn"
        loading={isFetching}
        columns={columns}
        data={data?.data ?? []}
        noDataElement={<Empty description={t('product.devices.empty')} />}
        pagination={{
          current: page.current,
          pageSize: page.per_page,
          total: data?.total ?? 0,
          onChange: (current: number, per_page: number) => setPage({ current, per_page }),
        }}
      />
    </>
  );
}
