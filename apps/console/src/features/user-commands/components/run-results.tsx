import type { RunResultStatus, UserCommandResult, UserCommandRun } from '@cellhub/contract/user-commands';
import { Badge, type BadgeProps, Empty, Table, type TableColumnProps } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { describeTally, tallyRun } from '../run-tally';
import styles from '../../../components/run-page.module.css';

// A device command queued for an offline device (pending, expired, cancelled) has the device history's colours.
const BADGE: Record<RunResultStatus, Pick<BadgeProps, 'status' | 'color'>> = {
  sent: { status: 'processing' },
  replied: { status: 'success' },
  timeout: { status: 'warning' },
  offline: { status: 'default' },
  failed: { status: 'error' },
  not_found: { status: 'error' },
  pending: { color: 'purple' },
  expired: { color: 'gold' },
  cancelled: { color: 'gray' },
};

export default function RunResults({ run }: { run: UserCommandRun | undefined }) {
  const t = useLocale(locale);
  const columns: TableColumnProps<UserCommandResult>[] = [
    { title: t('userCommand.result.sn'), dataIndex: 'sn' },
    {
      title: t('userCommand.result.status'),
      dataIndex: 'status',
      render: (v: RunResultStatus) => <Badge {...BADGE[v]} text={t(`userCommand.result.${v}`)} />,
    },
    {
      title: t('userCommand.result.code'),
      dataIndex: 'code',
      render: (v: number | null) => (v === null ? '-' : v),
    },
    {
      title: t('userCommand.result.reply'),
      dataIndex: 'reply',
      render: (v: string | null) =>
        v === null ? <span className={styles.muted}>-</span> : <span className={styles.mono}>{v}</span>,
    },
    {
      title: t('userCommand.result.latency'),
      dataIndex: 'latency_ms',
      render: (v: number | null) => (v === null ? '-' : `${v} ms`),
    },
  ];
  if (!run) return <Empty description={t('userCommand.detail.results.empty')} />;
  return (
    <>
      <div className={styles.summary} data-testid="run-summary">
        {describeTally(tallyRun(run.results), t)}
      </div>
      <Table<UserCommandResult>
        rowKey="sn"
        size="small"
        columns={columns}
        data={run.results}
        pagination={run.results.length > 20 ? { pageSize: 20 } : false}
      />
    </>
  );
}
