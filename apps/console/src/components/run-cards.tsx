import { Badge, Button, Card, Table, type TableColumnProps } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import DevicePicker from './device-picker';
import styles from './run-page.module.css';

/**
 * The three cards of a page that runs something on chosen devices (config templates, user commands): pick the
 * targets and run, follow the latest run live, and page through earlier runs.
 */
export function TargetsCard({
  title,
  hint,
  targets,
  onTargets,
  placeholder,
  onlineText,
  offlineText,
  action,
}: {
  title: ReactNode;
  hint?: ReactNode;
  targets: string[];
  onTargets: (sns: string[]) => void;
  placeholder: string;
  onlineText: string;
  offlineText: string;
  action: { label: ReactNode; icon: ReactNode; loading: boolean; onRun: () => void };
}) {
  return (
    <Card bordered={false} title={title}>
      {hint}
      <div className={styles.sendRow}>
        <div className={styles.sendPicker}>
          <DevicePicker
            value={targets}
            onChange={onTargets}
            placeholder={placeholder}
            onlineText={onlineText}
            offlineText={offlineText}
          />
        </div>
        <Button type="primary" icon={action.icon} loading={action.loading} onClick={action.onRun}>
          {action.label}
        </Button>
      </div>
    </Card>
  );
}

/** The latest run; while it may still change, a badge says whether live updates are flowing. */
export function LiveRunCard({
  title,
  following,
  live,
  liveText,
  children,
}: {
  title: ReactNode;
  following: boolean;
  live: boolean;
  liveText: string;
  children: ReactNode;
}) {
  return (
    <Card
      bordered={false}
      title={title}
      extra={following && <Badge status={live ? 'processing' : 'default'} text={liveText} />}
    >
      {children}
    </Card>
  );
}

/** Earlier runs, ten to a page. */
export function RunHistoryCard<T>({
  title,
  columns,
  data,
  total,
  page,
  onPage,
}: {
  title: ReactNode;
  columns: TableColumnProps<T>[];
  data: T[];
  total: number;
  page: number;
  onPage: (page: number) => void;
}) {
  return (
    <Card bordered={false} title={title}>
      <Table<T>
        rowKey="id"
        size="small"
        columns={columns}
        data={data}
        pagination={{ current: page, pageSize: 10, total, onChange: (current: number) => onPage(current) }}
      />
    </Card>
  );
}
