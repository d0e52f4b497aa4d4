import { OTA_DEVICE_STATUSES, type OtaDeviceItem, type OtaTaskDetail } from '@cellhub/contract/ota';
import type { OtaTaskEvent } from '@cellhub/contract/realtime';
import {
  Alert,
  Badge,
  Button,
  Card,
  Descriptions,
  Grid,
  Input,
  Progress,
  Result,
  Select,
  Space,
  Spin,
  Table,
  Tag,
  Tooltip,
  type TableColumnProps,
} from '@arco-design/web-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { formatTime } from '../../../lib/format-time';
import { useLocale, type Translate } from '../../../lib/i18n';
import { useOtaTaskEvents } from '../../../lib/realtime';
import { deviceLogKey, taskKey, useDeviceLog, useTask, type DeviceLogParams } from '../api';
import { TaskHeaderExtra } from '../components/task-header-extra';
import { DeviceStatusTag, TaskStatusTag } from '../components/task-status-tag';
import locale from '../locale';
import {
  DEVICE_STATUS_COLOR,
  endedCount,
  formatSize,
  patchTask,
  PHASE_BADGE,
  policyRows,
  progressPercent,
  shortTime,
  resultText,
  targetsText,
  toMB,
} from '../ota-format';
import styles from './ota.module.css';
import { ResultPage } from '../../../components/result-page/result-page';

/** How often, at most, a stream of live messages reads the task and its log again. */
const REFRESH_MS = 1500;

/** /ota/task/:id: the task, its policy, its progress by status, and the per-device upgrade log, all live. */
export default function OtaTaskDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const { data: task, isLoading, error, refetch } = useTask(id);
  const [log, setLog] = useState<DeviceLogParams>({ current: 1, per_page: 10 });
  const queryClient = useQueryClient();

  // Counts come in the message; statuses 0-6, waves and the log rows are read again, at most every REFRESH_MS.
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refresh = () => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      void queryClient.invalidateQueries({ queryKey: taskKey(id) });
      void queryClient.invalidateQueries({ queryKey: deviceLogKey(id) });
    }, REFRESH_MS);
  };
  useEffect(() => () => clearTimeout(timer.current), []);
  const live = useOtaTaskEvents((e: OtaTaskEvent) => {
    if (e.id !== id) return;
    if (e.deleted) {
      void navigate('/ota/task');
      return;
    }
    queryClient.setQueryData(taskKey(id), (old: OtaTaskDetail | undefined) =>
      old ? patchTask(old, e) : old,
    );
    refresh();
  });

  // What changed before the socket was listening is read once it is; without live updates a running task polls.
  useEffect(() => {
    if (live === 'open') refresh();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [live]);
  const active = task?.status === 'running' || task?.status === 'paused';
  useEffect(() => {
    if (!active || live === 'open') return;
    const poll = setInterval(refresh, 5000);
    return () => clearInterval(poll);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active, live]);

  const badId = !Number.isInteger(id) || id <= 0;
  if (badId || (error && !task))
    return (
      <ResultPage
        error={error}
        problem={badId ? 'notFound' : undefined}
        back="/ota/task"
        backLabel={t('ota.detail.back')}
        notFoundTitle={t('ota.detail.notFound')}
        onRetry={() => void refetch()}
      />
    );

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={
          task ? (
            <span className={styles.headerTitle}>
              <span data-testid="ota-task-name">{task.name}</span>
              <TaskStatusTag status={task.status} pauseReason={task.pause_reason} />
            </span>
          ) : (
            t('ota.detail.info')
          )
        }
        extra={
          task && (
            <TaskHeaderExtra
              task={task}
              live={live}
              downloadBytes={task.download_bytes}
              onDeleted={() => void navigate('/ota/task')}
            />
          )
        }
      >
        <Spin loading={isLoading} style={{ display: 'block', minHeight: isLoading ? 120 : undefined }}>
          {task && <TaskInfo t={t} task={task} />}
        </Spin>
      </Card>
      {task && (
        <Grid.Row gutter={16}>
          <Grid.Col span={14}>
            <Card bordered={false} title={t('ota.detail.progress')} style={{ height: '100%' }}>
              <TaskProgress
                t={t}
                task={task}
                status={log.status}
                onStatus={(status) => setLog((p) => ({ ...p, current: 1, status }))}
              />
            </Card>
          </Grid.Col>
          <Grid.Col span={10}>
            <Card bordered={false} title={t('ota.detail.policy')} style={{ height: '100%' }}>
              <Descriptions
                column={1}
                size="small"
                labelStyle={{ width: 120 }}
                data={policyRows(task.policy, t)}
              />
            </Card>
          </Grid.Col>
        </Grid.Row>
      )}
      {task && <DeviceLog t={t} id={id} params={log} setParams={setLog} />}
    </PageContainer>
  );
}

function TaskInfo({ t, task }: { t: Translate; task: OtaTaskDetail }) {
  const time = (v: string | null, fallback = '-') => (v ? formatTime(v) : fallback);
  return (
    <>
      {task.status === 'paused' && task.pause_reason === 'failure_threshold' && (
        <Alert type="warning" style={{ marginBottom: 16 }} content={t('ota.pauseReason.failure_threshold')} />
      )}
      <Descriptions
        column={3}
        labelStyle={{ width: 110 }}
        data={[
          { label: t('ota.col.product'), value: task.product_name || task.product_key },
          {
            label: t('ota.detail.firmware'),
            value: (
              <span>
                {task.firmware_name} <span className={styles.mono}>{task.version}</span>
              </span>
            ),
          },
          { label: t('ota.detail.size'), value: formatSize(task.size) },
          { label: t('ota.detail.targets'), value: targetsText(task.targets, t) },
          {
            label: t('ota.detail.volume'),
            value: <span data-testid="ota-task-volume">{toMB(task.download_bytes)} MB</span>,
          },
          { label: t('ota.detail.downloads'), value: task.downloads },
          { label: t('ota.col.planTime'), value: time(task.plan_time, t('ota.planManual')) },
          { label: t('ota.col.startTime'), value: time(task.start_time) },
          { label: t('ota.col.endTime'), value: time(task.end_time) },
          { label: t('ota.detail.windowEnd'), value: time(task.window_end) },
          {
            label: t('ota.detail.currentWave'),
            value:
              task.wave_count > 0 ? (
                <Space size={8}>
                  <span>{t('ota.detail.wave', { current: task.current_wave, total: task.wave_count })}</span>
                  {task.next_wave_at && (
                    <span className={styles.muted}>
                      {t('ota.detail.nextWave', { time: formatTime(task.next_wave_at) })}
                    </span>
                  )}
                </Space>
              ) : (
                '-'
              ),
          },
          { label: t('ota.detail.owner'), value: task.owner ?? '-' },
          { label: t('ota.detail.createdat'), value: time(task.createdat) },
          { label: t('ota.detail.description'), value: task.description || '-', span: 2 },
        ]}
      />
    </>
  );
}

function TaskProgress({
  t,
  task,
  status,
  onStatus,
}: {
  t: Translate;
  task: OtaTaskDetail;
  status: number | undefined;
  onStatus: (status: number | undefined) => void;
}) {
  const counts: [string, number, string?][] = [
    ['ota.count.device', task.device_count],
    ['ota.count.success', task.success_count, styles.success],
    ['ota.count.fail', task.fail_count, styles.danger],
    ['ota.count.upgrading', task.upgrading_count],
    ['ota.count.pending', task.pending_count],
    ['ota.count.skipped', task.skipped_count],
    ['ota.count.cancelled', task.cancelled_count],
  ];
  return (
    <>
      <div className={styles.summary} style={{ marginBottom: 8 }} data-testid="ota-progress-summary">
        {t('ota.detail.progress.summary', { ended: endedCount(task), total: task.device_count })}
      </div>
      <Progress
        percent={progressPercent(task)}
        status={task.fail_count > 0 ? 'warning' : task.status === 'done' ? 'success' : 'normal'}
        style={{ marginBottom: 16 }}
      />
      <div className={`${styles.statRow} ${styles.countGrid}`} data-testid="ota-counts">
        {counts.map(([key, n, cls]) => (
          <div className={styles.stat} key={key}>
            <div className={styles.statLabel}>{t(key)}</div>
            <div
              className={[styles.statValue, n > 0 ? cls : undefined].filter(Boolean).join(' ')}
              data-testid={key}
            >
              {n}
            </div>
          </div>
        ))}
      </div>
      <div className={styles.statLabel}>{t('ota.detail.byStatus')}</div>
      <div className={styles.statusChips} data-testid="ota-status-counts">
        {OTA_DEVICE_STATUSES.map((s) => {
          const n = task.status_counts[String(s)] ?? 0;
          const on = status === s;
          return (
            <button
              type="button"
              key={s}
              className={[styles.chip, on ? styles.chipActive : undefined].filter(Boolean).join(' ')}
              onClick={() => onStatus(on ? undefined : s)}
              aria-pressed={on}
            >
              <Tag size="small" color={DEVICE_STATUS_COLOR[s]}>
                {n}
              </Tag>
              {t(`ota.deviceStatus.${s}`)}
            </button>
          );
        })}
      </div>
    </>
  );
}

function DeviceLog({
  t,
  id,
  params,
  setParams,
}: {
  t: Translate;
  id: number;
  params: DeviceLogParams;
  setParams: Dispatch<SetStateAction<DeviceLogParams>>;
}) {
  const { data, isFetching, isError, refetch } = useDeviceLog(id, params);
  // The three timestamps share one cell (label + time per line) so the log fits a 1280 px window.
  const times = (r: OtaDeviceItem) => {
    const lines = (
      [
        ['ota.log.dispatched', r.dispatched_at],
        ['ota.log.reported', r.reported_at],
        ['ota.log.finished', r.finished_at],
      ] as const
    ).filter(([, v]) => v !== null);
    if (lines.length === 0) return <span className={styles.muted}>-</span>;
    return (
      <div className={styles.stack}>
        {lines.map(([key, v]) => (
          <Tooltip key={key} content={formatTime(v)} mini>
            <span className={styles.nowrap}>
              <span className={`${styles.muted} ${styles.small}`}>{t(key)}</span>{' '}
              {shortTime(v!, undefined, true)}
            </span>
          </Tooltip>
        ))}
      </div>
    );
  };
  const columns: TableColumnProps<OtaDeviceItem>[] = [
    {
      title: t('ota.log.device'),
      dataIndex: 'devicekey',
      render: (v: string, r) => (
        <div className={styles.stack}>
          <Link
            to={`/device/detail/${encodeURIComponent(r.product_key)}/${encodeURIComponent(v)}`}
            className={[styles.link, styles.mono].join(' ')}
          >
            {v}
          </Link>
          {r.devicename && (
            <span className={`${styles.muted} ${styles.small} ${styles.clip}`} title={r.devicename}>
              {r.devicename}
            </span>
          )}
        </div>
      ),
    },
    {
      title: t('ota.log.status'),
      dataIndex: 'status',
      render: (v: number) => <DeviceStatusTag status={v} />,
    },
    {
      title: t('ota.log.phase'),
      dataIndex: 'phase',
      render: (_: unknown, r) => (
        <Space size={6} className={styles.nowrap}>
          <Badge status={PHASE_BADGE[r.phase]} text={t(`ota.phase.${r.phase}`)} />
          {r.progress !== null && r.phase === 'dispatched' && (
            <span className={styles.muted}>{r.progress}%</span>
          )}
          {r.timed_out && (
            <Tag size="small" color="orange">
              {t('ota.log.timedOut')}
            </Tag>
          )}
        </Space>
      ),
    },
    {
      title: t('ota.log.result'),
      dataIndex: 'result',
      render: (_: string, r) => {
        const v = resultText(t, r);
        return v ? (
          <Tooltip content={v}>
            <span className={styles.resultText}>{v}</span>
          </Tooltip>
        ) : (
          <span className={styles.muted}>-</span>
        );
      },
    },
    { title: t('ota.log.retries'), dataIndex: 'retries', align: 'right' },
    { title: t('ota.log.wave'), dataIndex: 'wave', align: 'right' },
    { title: t('ota.log.time'), dataIndex: 'dispatched_at', render: (_: unknown, r) => times(r) },
  ];

  return (
    <Card
      bordered={false}
      title={t('ota.detail.log')}
      extra={
        <Space>
          <Input.Search
            allowClear
            placeholder={t('ota.log.keyword.placeholder')}
            style={{ width: 220 }}
            onSearch={(v) => setParams((p) => ({ ...p, current: 1, keyword: v.trim() || undefined }))}
          />
          <Select
            allowClear
            placeholder={t('ota.log.status')}
            style={{ width: 200 }}
            value={params.status}
            onChange={(v: number | undefined) => setParams((p) => ({ ...p, current: 1, status: v }))}
            options={OTA_DEVICE_STATUSES.map((s) => ({ label: t(`ota.deviceStatus.${s}`), value: s }))}
            data-testid="ota-log-status"
          />
        </Space>
      }
    >
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
        <Table<OtaDeviceItem>
          rowKey="id"
          size="small"
          loading={isFetching && !data}
          columns={columns}
          data={data?.data ?? []}
          scroll={{ x: 'max-content' }}
          noDataElement={<span className={styles.muted}>{t('ota.log.empty')}</span>}
          pagination={{
            current: params.current,
            pageSize: params.per_page,
            total: data?.total ?? 0,
            sizeCanChange: true,
            showTotal: (total: number) => t('ota.total', { total }),
            onChange: (current: number, per_page: number) => setParams((p) => ({ ...p, current, per_page })),
          }}
        />
      )}
    </Card>
  );
}
