import { OTA_TASK_STATUSES, type OtaTaskItem, type OtaTaskStatus } from '@cellhub/contract/ota';
import { Button, Progress, Tooltip, type TableColumnProps } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { ProductFilter } from '../../../components/product-select';
import { RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useTaskList, type TaskListParams } from '../api';
import { TaskActions } from '../components/task-actions';
import { TaskStatusTag } from '../components/task-status-tag';
import { useLiveTaskList } from '../live-task-list';
import locale from '../locale';
import { progressPercent, shortTime } from '../ota-format';
import styles from './ota.module.css';

interface Filter {
  keyword?: string;
  status?: OtaTaskStatus;
  product_key?: string;
}

/** /ota/task: the seed's task list, with counts that move while tasks run. */
export default function OtaTaskListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<TaskListParams, Filter>();
  const query = useTaskList(params);
  const live = useLiveTaskList(params);

  const time = (v: string | null, fallback?: string) =>
    v ? (
      <Tooltip content={formatTime(v)} mini>
        <span className={styles.nowrap}>{shortTime(v)}</span>
      </Tooltip>
    ) : (
      <span className={styles.muted}>{fallback ?? '-'}</span>
    );

  // Seven columns fit a 1280 px window: counts share a cell with their progress bar, start and end one cell.
  const columns: TableColumnProps<OtaTaskItem>[] = [
    {
      // The product model rides under the name: eight columns would not fit a 1280 px window with it apart.
      title: t('ota.col.nameProduct'),
      dataIndex: 'name',
      render: (v: string, r) => (
        <div className={styles.stack}>
          <RowLink to={`/ota/task/${r.id}`} className={styles.clip} title={v}>
            {v}
          </RowLink>
          <span
            className={`${styles.muted} ${styles.small} ${styles.clip}`}
            title={r.product_name || r.product_key}
          >
            {r.product_name || r.product_key}
          </span>
        </div>
      ),
    },
    {
      title: t('ota.col.firmware'),
      dataIndex: 'version',
      render: (v: string, r) => (
        <div className={styles.stack}>
          <span className={styles.mono}>{v}</span>
          <span className={`${styles.muted} ${styles.small} ${styles.clip}`} title={r.firmware_name}>
            {r.firmware_name}
          </span>
        </div>
      ),
    },
    {
      title: t('ota.col.status'),
      dataIndex: 'status',
      render: (_: unknown, r) => <TaskStatusTag status={r.status} pauseReason={r.pause_reason} />,
    },
    {
      title: t('ota.col.counts'),
      dataIndex: 'device_count',
      render: (_: unknown, r) => (
        <div className={styles.stack} data-testid="ota-row-counts">
          <span className={styles.counts}>
            <span>{r.device_count}</span>/
            <span className={r.success_count > 0 ? styles.success : undefined}>{r.success_count}</span>/
            <span className={r.fail_count > 0 ? styles.danger : undefined}>{r.fail_count}</span>
          </span>
          <Progress
            size="small"
            showText={false}
            percent={progressPercent(r)}
            status={r.fail_count > 0 ? 'warning' : r.status === 'done' ? 'success' : 'normal'}
            style={{ width: 110 }}
          />
        </div>
      ),
    },
    {
      title: t('ota.col.planTime'),
      dataIndex: 'plan_time',
      render: (v: string | null) => time(v, t('ota.planManual')),
    },
    {
      title: t('ota.col.startEnd'),
      dataIndex: 'start_time',
      render: (_: unknown, r) => (
        <div className={styles.stack}>
          {time(r.start_time)}
          {time(r.end_time)}
        </div>
      ),
    },
    {
      title: t('ota.col.operations'),
      dataIndex: 'operations',
      fixed: 'right',
      render: (_: unknown, r) => <TaskActions task={r} text />,
    },
  ];

  const filtered = !!(params.keyword || params.status || params.product_key);

  return (
    <ListPage<OtaTaskItem, TaskListParams>
      title={t('ota.list.title')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter
            label={t('ota.filter.keyword')}
            placeholder={t('ota.filter.keyword.placeholder')}
            onSearch={search}
          />
          <ChoiceFilter
            label={t('ota.filter.status')}
            field="status"
            placeholder={t('ota.filter.all')}
            options={OTA_TASK_STATUSES.map((s) => ({ label: t(`ota.status.${s}`), value: s }))}
          />
          <ProductFilter label={t('ota.filter.product')} placeholder={t('ota.filter.all')} />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('ota.create'), to: '/ota/task/create' }}
      live={{ status: live, open: t('ota.live.open'), off: t('ota.live.off') }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      quietRefetch
      total={(total) => t('ota.total', { total })}
      empty={
        filtered ? (
          <ListEmpty text={t('ota.empty')} />
        ) : (
          <ListEmpty
            text={t('ota.empty')}
            hint={t('ota.empty.hint')}
            actions={
              <Button type="primary" size="small" onClick={() => void navigate('/ota/task/create')}>
                {t('ota.create')}
              </Button>
            }
          />
        )
      }
      tableProps={{ scroll: { x: 'max-content' } }}
    />
  );
}
