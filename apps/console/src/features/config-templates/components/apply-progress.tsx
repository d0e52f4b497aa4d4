import type { ApplyResultStatus, ConfigApply, ConfigApplyResult } from '@cellhub/contract/config-templates';
import { Badge, Empty, Progress, Table, type TableColumnProps } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import styles from '../../../components/run-page.module.css';

const BADGE: Record<ApplyResultStatus, 'processing' | 'success' | 'error'> = {
  pending: 'processing',
  synced: 'success',
  not_found: 'error',
};

export default function ApplyProgress({ apply }: { apply: ConfigApply | undefined }) {
  const t = useLocale(locale);
  if (!apply) return <Empty description={t('configTemplate.progress.empty')} />;
  const columns: TableColumnProps<ConfigApplyResult>[] = [
    { title: t('configTemplate.progress.sn'), dataIndex: 'sn' },
    {
      title: t('configTemplate.progress.status'),
      dataIndex: 'status',
      render: (v: ApplyResultStatus) => <Badge status={BADGE[v]} text={t(`configTemplate.status.${v}`)} />,
    },
    {
      title: t('configTemplate.progress.version'),
      dataIndex: 'version',
      render: (v: number | null) => v ?? '-',
    },
    {
      title: t('configTemplate.progress.reported'),
      dataIndex: 'config_version',
      render: (v: number | null) => v ?? '-',
    },
    {
      title: t('configTemplate.progress.online'),
      dataIndex: 'online',
      render: (v: 0 | 1 | null) =>
        v === null ? (
          '-'
        ) : (
          <Badge
            status={v === 1 ? 'success' : 'default'}
            text={v === 1 ? t('configTemplate.online') : t('configTemplate.offline')}
          />
        ),
    },
    {
      title: t('configTemplate.progress.sent'),
      dataIndex: 'sent',
      render: (v: boolean) => (v ? t('common.yes') : t('common.no')),
    },
  ];
  const applicable = apply.results.filter((r) => r.status !== 'not_found').length;
  return (
    <>
      <div className={styles.summary} data-testid="apply-summary">
        {t('configTemplate.progress.summary', { synced: apply.synced, total: applicable })}
      </div>
      <Progress
        percent={applicable === 0 ? 0 : Math.round((apply.synced / applicable) * 100)}
        status={applicable > 0 && apply.synced === applicable ? 'success' : 'normal'}
        style={{ marginBottom: 16 }}
      />
      <Table<ConfigApplyResult>
        rowKey="sn"
        size="small"
        columns={columns}
        data={apply.results}
        pagination={apply.results.length > 20 ? { pageSize: 20 } : false}
      />
    </>
  );
}
