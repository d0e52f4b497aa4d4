import { OTA_TASK_STATUSES, type OtaTaskItem, type OtaTaskStatus } from '@cellhub/contract/ota';
import type { OtaTaskEvent } from '@cellhub/contract/realtime';
import {
  Badge,
  Button,
  Card,
  Divider,
  Empty,
  Form,
  Grid,
  Progress,
  Result,
  Select,
  Space,
  Table,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { useOtaTaskEvents } from '../../../lib/realtime';
import type { ListResult } from '../../../lib/request';
import { taskListKey, useProductOptions, useTaskList, type TaskListParams } from '../api';
import { TaskActions } from '../components/task-actions';
import { TaskStatusTag } from '../components/task-status-tag';
import locale from '../locale';
import { applyTaskEvent, progressPercent, shortTime } from '../ota-format';
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
  const [form] = Form.useForm<Filter>();
  const [params, setParams] = useState<TaskListParams>({ current: 1, per_page: 10 });
  const { data, isFetching, isError, refetch } = useTaskList(params);
  const products = useProductOptions();
  const queryClient = useQueryClient();

  // Counts change many times a second during a rollout; the row is patched from the message. A change of state
  // (start and end times come with it) or a deletion reads the page again, at most once a second.
  const refetchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refetchTimer.current), []);
  const live = useOtaTaskEvents((e: OtaTaskEvent) => {
    let again = false;
    queryClient.setQueryData(taskListKey(params), (old: ListResult<OtaTaskItem> | undefined) => {
      const next = applyTaskEvent(old, e);
      again = next.refetch;
      return next.list;
    });
    if (again && refetchTimer.current === undefined) {
      refetchTimer.current = setTimeout(() => {
        refetchTimer.current = undefined;
        void queryClient.invalidateQueries({ queryKey: taskListKey(params) });
      }, 1000);
    }
  });

  const search = () => {
    const v = form.getFieldsValue();
    setParams((p) => ({
      ...p,
      current: 1,
      keyword: v.keyword?.trim() || undefined,
      status: v.status || undefined,
      product_key: v.product_key || undefined,
    }));
  };

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
          <Link to={`/ota/task/${r.id}`} className={`${styles.link} ${styles.clip}`} title={v}>
            {v}
          </Link>
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
  const empty = (
    <Empty
      description={
        filtered ? (
          t('ota.empty')
        ) : (
          <Space direction="vertical" size={8}>
            <span>{t('ota.empty')}</span>
            <span className={styles.muted}>{t('ota.empty.hint')}</span>
            <Button type="primary" size="small" onClick={() => void navigate('/ota/task/create')}>
              {t('ota.create')}
            </Button>
          </Space>
        )
      }
    />
  );

  return (
    <PageContainer>
      <Card bordered={false} title={t('ota.list.title')}>
        <ListSearchBar form={form} labelAlign="left" onSearch={search}>
          <Grid.Row gutter={24}>
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
            <Grid.Col span={8}>
              <Form.Item label={t('ota.filter.product')} field="product_key">
                <Select
                  placeholder={t('ota.filter.all')}
                  allowClear
                  showSearch
                  loading={products.isLoading}
                  options={products.data ?? []}
                  filterOption={(input, option) =>
                    String((option.props as { children?: unknown }).children ?? '')
                      .toLowerCase()
                      .includes(input.toLowerCase())
                  }
                />
              </Form.Item>
            </Grid.Col>
          </Grid.Row>
        </ListSearchBar>
        <Divider style={{ marginTop: 0 }} />
        <div className={styles.toolbar}>
          <Button type="primary" icon={<IconPlus />} onClick={() => void navigate('/ota/task/create')}>
            {t('ota.create')}
          </Button>
          {live === 'open' ? (
            <Badge status="processing" text={t('ota.live.open')} />
          ) : live === 'reconnecting' ? (
            <Badge status="warning" text={t('ota.live.off')} />
          ) : null}
        </div>
        {isError && !data ? (
          <Result
            status="error"
            title={t('ota.loadError')}
            extra={
              <Button type="primary" onClick={() => void refetch()}>
                {t('ota.retry')}
              </Button>
            }
          />
        ) : (
          <Table<OtaTaskItem>
            rowKey="id"
            loading={isFetching && !data}
            columns={columns}
            data={data?.data ?? []}
            noDataElement={empty}
            scroll={{ x: 'max-content' }}
            pagination={listPagination(params, setParams, data?.total, (total) => t('ota.total', { total }))}
          />
        )}
      </Card>
    </PageContainer>
  );
}
