import type { AccessKeyUse } from '@cellhub/contract/access-keys';
import { errorText } from '@cellhub/contract/errors';
import { Table, Tag, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { useAccessKeyUses } from '../api';
import locale from '../locale';
import styles from './access-keys.module.css';

/** `GET /api/devices` whether the server sent the method inside the route or beside it. */
export const routeText = (use: Pick<AccessKeyUse, 'method' | 'route'>): string =>
  use.route.startsWith(`${use.method} `) ? use.route : `${use.method} ${use.route}`;

/** Every request that named the key, newest first: when, which route, from where, and what it was answered. */
export function UsesTable({ accessKey }: { accessKey: string }) {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const [params, setParams] = useState({ current: 1, per_page: 10 });
  const query = useAccessKeyUses(accessKey, params);

  const columns: TableColumnProps<AccessKeyUse>[] = [
    {
      title: t('accessKey.use.at'),
      dataIndex: 'at',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('accessKey.use.route'),
      dataIndex: 'route',
      render: (_: string, row) => <span className={styles.mono}>{routeText(row)}</span>,
    },
    {
      title: t('accessKey.use.ip'),
      dataIndex: 'ip',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    {
      title: t('accessKey.use.result'),
      dataIndex: 'code',
      render: (code: number, row) =>
        code === 0 ? (
          <Tag size="small" color="green">
            {t('accessKey.use.ok')}
          </Tag>
        ) : (
          <span className={styles.nowrap}>
            <Tag size="small" color="red">
              {code}
            </Tag>{' '}
            {errorText(code, lang) ?? `HTTP ${row.status}`}
          </span>
        ),
    },
  ];

  return (
    <Table<AccessKeyUse>
      data-testid="access-key-uses"
      border={{ wrapper: false, headerCell: false, bodyCell: false }}
      rowKey="id"
      columns={columns}
      data={query.data?.data ?? []}
      loading={query.isFetching && !query.data}
      noDataElement={<span className={styles.muted}>{t('accessKey.detail.uses.empty')}</span>}
      pagination={listPagination(params, setParams, query.data?.total, (total) =>
        t('accessKey.detail.uses.total', { total }),
      )}
    />
  );
}
