/** Per-line results of a create or an import: what happened to each SN (row), and why when it failed. */
import type { DeviceImportLine } from '@cellhub/contract/devices';
import { Table, Tag, type TableColumnProps } from '@arco-design/web-react';
import { errorText } from '@cellhub/contract/errors';
import { useLocaleState, type Translate } from '../../../lib/i18n';

export interface ResultLine {
  row?: number;
  sn: string;
  code: number;
  result: DeviceImportLine['result'];
  message?: string;
}

const COLORS: Record<ResultLine['result'], string> = {
  created: 'green',
  updated: 'arcoblue',
  exists: 'orange',
  wrong_product: 'orange',
  not_found: 'gray',
  invalid: 'red',
};

export function ResultTable({ lines, t, withRow }: { lines: ResultLine[]; t: Translate; withRow?: boolean }) {
  const { locale } = useLocaleState();
  const columns: TableColumnProps<ResultLine>[] = [
    ...(withRow ? [{ title: t('device.result.row'), dataIndex: 'row', width: 80 }] : []),
    { title: t('device.result.sn'), dataIndex: 'sn' },
    {
      title: t('device.result.result'),
      dataIndex: 'result',
      render: (v: ResultLine['result']) => <Tag color={COLORS[v]}>{t(`device.result.${v}`)}</Tag>,
    },
    {
      title: t('device.result.message'),
      dataIndex: 'message',
      render: (_: unknown, r) =>
        r.code === 0 ? '' : [`${r.code}`, r.message ?? errorText(r.code, locale)].filter(Boolean).join(' · '),
    },
  ];
  return (
    <Table<ResultLine>
      rowKey={(r) => `${r.row ?? ''}:${r.sn}`}
      columns={columns}
      data={lines}
      pagination={lines.length > 20 ? { pageSize: 20, size: 'small' } : false}
      size="small"
      border={{ wrapper: true, cell: false }}
    />
  );
}
