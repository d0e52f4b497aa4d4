import type { ProductionDeviceItem } from '@cellhub/contract/production';
import { Badge, Tag, type TableColumnProps } from '@arco-design/web-react';
import { RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import type { Translate } from '../../../lib/i18n';

const TESTED = { untested: 'default', ok: 'success', failed: 'error' } as const;

/** The columns of a produced-devices table; `withTask` adds the task column (the records list). */
export function producedColumns(t: Translate, withTask: boolean): TableColumnProps<ProductionDeviceItem>[] {
  return [
    {
      title: t('prod.device.sn'),
      dataIndex: 'sn',
      render: (sn: string, r: ProductionDeviceItem) => (
        <RowLink to={`/device/detail/${r.product_key}/${encodeURIComponent(sn)}`}>{sn}</RowLink>
      ),
    },
    ...(withTask
      ? [
          {
            title: t('prod.device.task'),
            dataIndex: 'task_name',
            render: (v: string, r: ProductionDeviceItem) => (
              <RowLink to={`/product/productive/task/${r.task_id}`}>{v}</RowLink>
            ),
          },
        ]
      : []),
    {
      title: t('prod.device.tested'),
      dataIndex: 'tested',
      render: (v: ProductionDeviceItem['tested']) => (
        <Badge status={TESTED[v]} text={t(`prod.device.tested.${v}`)} />
      ),
    },
    {
      title: t('prod.device.mismatch'),
      dataIndex: 'mismatch',
      render: (v: string[]) =>
        v.length ? (
          <Tag color="orangered" size="small">
            {t('prod.device.mismatch.yes')}: {v.map((f) => t(`prod.field.${f}`)).join(', ')}
          </Tag>
        ) : (
          <span style={{ color: 'var(--color-text-3)' }}>{t('prod.device.mismatch.no')}</span>
        ),
    },
    {
      title: t('prod.device.shipped'),
      dataIndex: 'uid',
      render: (v: number | null) =>
        v === null ? (
          <Tag size="small">{t('prod.device.shipped.no')}</Tag>
        ) : (
          <Tag size="small" color="arcoblue">
            {t('prod.device.shipped.yes')}
          </Tag>
        ),
    },
    {
      title: t('prod.device.testedAt'),
      dataIndex: 'tested_at',
      render: (v: string | null) => (v ? formatTime(v) : '-'),
    },
  ];
}
