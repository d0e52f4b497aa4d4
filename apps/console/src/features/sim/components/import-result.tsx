import type { SimImportFailure } from '@cellhub/contract/sim';
import { Collapse, Empty, Table, Tag } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import styles from '../pages/sim.module.css';

/** Rows of a batch file that were not created: line, ICCID, the reason in words and the server's detail. */
export function FailuresTable({ failures }: { failures: SimImportFailure[] }) {
  const t = useLocale(locale);
  return (
    <Table
      size="small"
      rowKey={(r: SimImportFailure) => `${r.row}-${r.iccid}`}
      data={failures}
      pagination={failures.length > 10 ? { pageSize: 10, size: 'small' } : false}
      noDataElement={<Empty description={t('sim.batch.noFailures')} />}
      data-testid="sim-batch-failures"
      columns={[
        { title: t('sim.col.row'), dataIndex: 'row', width: 80 },
        {
          title: t('sim.col.iccid'),
          dataIndex: 'iccid',
          render: (v: string) =>
            v ? <span className={styles.mono}>{v}</span> : <span className={styles.muted}>-</span>,
        },
        {
          title: t('sim.col.reason'),
          dataIndex: 'reason',
          render: (v: string) => (
            <Tag size="small" color="red">
              {t(`sim.importReason.${v}`)}
            </Tag>
          ),
        },
        {
          title: t('sim.col.detail'),
          dataIndex: 'message',
          render: (v: string) => <span className={styles.muted}>{v}</span>,
        },
      ]}
    />
  );
}

export function CreatedIccids({ iccids }: { iccids: string[] }) {
  const t = useLocale(locale);
  if (iccids.length === 0) return null;
  return (
    <Collapse bordered={false}>
      <Collapse.Item name="created" header={t('sim.batch.createdList', { count: iccids.length })}>
        <div className={styles.mono} style={{ whiteSpace: 'normal', lineHeight: '22px' }}>
          {iccids.join('  ')}
        </div>
      </Collapse.Item>
    </Collapse>
  );
}
