/** Per-line results of a device create, import or range: what happened to each SN (row), and why when it failed. */
import type { DeviceImportLine } from '@cellhub/contract/devices';
import { Table, Tag, type TableColumnProps } from '@arco-design/web-react';
import { useLocale, useLocaleState } from '../../lib/i18n';
import { lineReasonText, type LineReason } from './line-reason';
import locale from './locale';

export interface ResultLine extends LineReason {
  sn: string;
  result: DeviceImportLine['result'];
}

const COLORS: Record<ResultLine['result'], string> = {
  created: 'green',
  updated: 'arcoblue',
  exists: 'orange',
  wrong_product: 'orange',
  not_found: 'gray',
  invalid: 'red',
};

export function ResultTable({ lines, withRow }: { lines: ResultLine[]; withRow?: boolean }) {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const columns: TableColumnProps<ResultLine>[] = [
    ...(withRow ? [{ title: t('deviceLines.result.row'), dataIndex: 'row', width: 80 }] : []),
    { title: t('deviceLines.result.sn'), dataIndex: 'sn' },
    {
      title: t('deviceLines.result.result'),
      dataIndex: 'result',
      render: (v: ResultLine['result']) => <Tag color={COLORS[v]}>{t(`deviceLines.result.${v}`)}</Tag>,
    },
    {
      title: t('deviceLines.result.message'),
      dataIndex: 'message',
      // "Line 3: SN must be ..." in the user's language (the row column stays for sorting by eye).
      render: (_: unknown, r) => lineReasonText(r, t, lang),
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
