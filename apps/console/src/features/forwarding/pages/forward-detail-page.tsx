import {
  FORWARD_KINDS,
  type ForwardDeadItem,
  type ForwardKind,
  type ForwardTestResult,
} from '@cellhub/contract/forwarding';
import {
  Alert,
  Button,
  Card,
  Descriptions,
  Empty,
  Grid,
  Message,
  Modal,
  Popconfirm,
  Radio,
  Select,
  Space,
  Statistic,
  Switch,
  Table,
  Tag,
  Typography,
  type TableColumnProps,
} from '@arco-design/web-react';
import { useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { SecretField } from '../../../components/secret-field';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import {
  useDeadLetters,
  useForwardEnabled,
  useForwardRule,
  useForwardStats,
  useReplay,
  useRotateSecret,
  useTestSend,
} from '../api';
import { ForwardChart } from '../components/forward-chart';
import { KIND_KEYS, STATUS_COLORS, targetText } from '../components/labels';
import locale from '../locale';

const pre = {
  margin: 0,
  padding: 8,
  maxHeight: 200,
  overflow: 'auto',
  fontSize: 12,
  background: 'var(--color-fill-2)',
  color: 'var(--color-text-1)',
  borderRadius: 4,
  whiteSpace: 'pre-wrap' as const,
  wordBreak: 'break-all' as const,
};

function TestPanel({ id }: { id: number }) {
  const t = useLocale(locale);
  const send = useTestSend();
  const [kind, setKind] = useState<ForwardKind>('property');
  const [result, setResult] = useState<ForwardTestResult | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const run = async () => {
    setFailure(undefined);
    setResult(undefined);
    try {
      setResult(await send.mutateAsync({ id, kind }));
    } catch (e) {
      if (e instanceof ApiError) {
        const d = Array.isArray(e.details) ? (e.details as { message?: string }[])[0]?.message : undefined;
        setFailure(d ? `${e.message}: ${d}` : e.message);
      } else setFailure(String(e));
    }
  };
  return (
    <Card bordered={false} title={t('forward.test.title')} data-testid="forward-test">
      <Space style={{ marginBottom: 12 }}>
        <Select value={kind} onChange={setKind} style={{ width: 140 }}>
          {FORWARD_KINDS.map((k) => (
            <Select.Option key={k} value={k}>
              {t(KIND_KEYS[k])}
            </Select.Option>
          ))}
        </Select>
        <Button type="primary" loading={send.isPending} onClick={() => void run()}>
          {t('forward.test.send')}
        </Button>
      </Space>
      {failure && <Alert type="error" title={t('forward.test.noAnswer')} content={failure} />}
      {result && (
        <Space direction="vertical" style={{ width: '100%' }}>
          <Alert
            type={result.ok ? 'success' : 'warning'}
            content={`${result.ok ? t('forward.test.ok') : t('forward.test.notOk')} · ${t('forward.test.status')} ${
              result.status ?? '-'
            } · ${t('forward.test.duration')} ${result.duration_ms} ms`}
          />
          <Typography.Text type="secondary">{t('forward.test.headers')}</Typography.Text>
          <pre style={pre}>
            {Object.entries(result.headers)
              .map(([k, v]) => `${k}: ${v}`)
              .join('\n') || '-'}
          </pre>
          <Typography.Text type="secondary">{t('forward.test.body')}</Typography.Text>
          <pre style={pre}>{result.body_excerpt || '-'}</pre>
          <Typography.Text type="secondary">{t('forward.test.request')}</Typography.Text>
          <pre style={pre}>{result.request_body}</pre>
        </Space>
      )}
    </Card>
  );
}

function DeadLetters({ id }: { id: number }) {
  const t = useLocale(locale);
  const [current, setCurrent] = useState(1);
  const list = useDeadLetters(id, current);
  const replay = useReplay();
  const doReplay = async (ids?: number[]) => {
    const r = await replay.mutateAsync({ id, ids });
    Message.success(t('forward.dead.replayed', { count: r.replayed }));
  };
  const columns: TableColumnProps<ForwardDeadItem>[] = [
    {
      title: t('forward.dead.col.time'),
      dataIndex: 'died_at',
      width: 170,
      render: (v: string) => formatTime(v),
    },
    { title: t('forward.dead.col.sn'), dataIndex: 'sn', width: 150 },
    {
      title: t('forward.dead.col.kind'),
      dataIndex: 'kind',
      width: 90,
      render: (v: ForwardKind) => t(KIND_KEYS[v]),
    },
    { title: t('forward.dead.col.attempts'), dataIndex: 'attempts', width: 90 },
    { title: t('forward.dead.col.error'), dataIndex: 'last_error', ellipsis: true },
    {
      title: t('common.operations'),
      dataIndex: 'op',
      width: 100,
      render: (_: unknown, row) => (
        <Button type="text" size="small" onClick={() => void doReplay([row.id])}>
          {t('forward.dead.replay')}
        </Button>
      ),
    },
  ];
  const total = list.data?.total ?? 0;
  return (
    <Card
      bordered={false}
      title={t('forward.dead.title')}
      extra={
        <Popconfirm
          content={t('forward.dead.replayAllConfirm')}
          onOk={() => doReplay()}
          disabled={total === 0}
        >
          <Button size="small" disabled={total === 0} loading={replay.isPending}>
            {t('forward.dead.replayAll')}
          </Button>
        </Popconfirm>
      }
    >
      <Table<ForwardDeadItem>
        rowKey="id"
        size="small"
        columns={columns}
        data={list.data?.data ?? []}
        loading={list.isLoading}
        noDataElement={
          <Empty description={list.isError ? t('forward.loadFailed') : t('forward.dead.empty')} />
        }
        pagination={{ current, pageSize: 10, total, onChange: setCurrent, hideOnSinglePage: true }}
        expandedRowRender={(row) => <pre style={pre}>{JSON.stringify(row.message, null, 2)}</pre>}
      />
    </Card>
  );
}

/** /data-transmit/forward/detail/:id — counters, chart, test send and dead letters of a rule. */
export default function ForwardDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const id = Number(params.id);
  const ok = isRecordId(id);
  const load = useForwardRule(ok ? id : undefined);
  const [range, setRange] = useState<'1h' | '24h' | '7d'>('24h');
  const stats = useForwardStats(ok && load.data ? id : undefined, range);
  const enable = useForwardEnabled();
  const rotate = useRotateSecret();
  const [secret, setSecret] = useState<string | undefined>();
  const labels = useMemo(
    () => ({
      delivered: t('forward.counters.delivered'),
      failed: t('forward.counters.failed'),
      dead: t('forward.counters.dead'),
    }),
    [t],
  );

  const state = recordState(load, {
    badId: !ok,
    back: '/data-transmit/forward/list',
    backLabel: t('forward.back'),
    notFoundTitle: t('forward.notFound'),
  });
  if (state) return state;
  const rule = load.data!;
  const counters = stats.data?.counters ?? rule.counters;

  return (
    <PageContainer>
      <Space direction="vertical" size={16} style={{ width: '100%' }}>
        <Card
          bordered={false}
          title={
            <Space>
              {rule.name}
              <Tag color={STATUS_COLORS[rule.status]}>{t(`forward.status.${rule.status}`)}</Tag>
            </Space>
          }
          extra={
            <Space>
              <Switch
                checked={rule.enabled}
                aria-label={t('forward.col.enabled')}
                loading={enable.isPending}
                onChange={(enabled) => enable.mutate({ id, enabled })}
              />
              <Popconfirm
                content={t('forward.secret.rotateConfirm')}
                onOk={async () => setSecret((await rotate.mutateAsync(id)).secret)}
              >
                <Button>{t('forward.secret.rotate')}</Button>
              </Popconfirm>
              <Button type="primary" onClick={() => void navigate(`/data-transmit/forward/edit/${id}`)}>
                {t('forward.detail.edit')}
              </Button>
            </Space>
          }
        >
          {rule.status === 'paused' && (
            <Alert
              type="warning"
              style={{ marginBottom: 12 }}
              content={t('forward.detail.pausedAlert', { reason: rule.paused_reason ?? '' })}
            />
          )}
          <Descriptions
            column={2}
            border
            data={[
              { label: t('forward.detail.target'), value: targetText(rule.target) },
              { label: t('forward.form.kinds'), value: rule.kinds.map((k) => t(KIND_KEYS[k])).join(', ') },
              { label: t('forward.form.product'), value: rule.product_key ?? t('forward.form.product.any') },
              {
                label: t('forward.form.sns'),
                value: rule.sns.length > 0 ? rule.sns.join(', ') : t('forward.detail.allDevices'),
              },
              { label: t('forward.detail.lastError'), value: rule.last_error ?? '-' },
              { label: t('forward.col.updated'), value: formatTime(rule.updated_at) },
            ]}
          />
        </Card>
        <Card
          bordered={false}
          title={t('forward.chart.title')}
          extra={
            <Radio.Group type="button" size="small" value={range} onChange={setRange}>
              <Radio value="1h">{t('forward.range.1h')}</Radio>
              <Radio value="24h">{t('forward.range.24h')}</Radio>
              <Radio value="7d">{t('forward.range.7d')}</Radio>
            </Radio.Group>
          }
        >
          <Grid.Row gutter={16} style={{ marginBottom: 12 }}>
            {(['delivered', 'failed', 'dead', 'pending'] as const).map((k) => (
              <Grid.Col span={6} key={k}>
                <Statistic title={t(`forward.counters.${k}`)} value={counters[k]} groupSeparator />
              </Grid.Col>
            ))}
          </Grid.Row>
          {stats.data?.avg_ms !== null && stats.data?.avg_ms !== undefined && (
            <Typography.Text type="secondary">
              {t('forward.chart.latency', { avg: stats.data.avg_ms, max: stats.data.max_ms ?? 0 })}
            </Typography.Text>
          )}
          <ForwardChart stats={stats.data} labels={labels} />
        </Card>
        <DeadLetters id={id} />
        <TestPanel id={id} />
      </Space>
      <Modal
        title={t('forward.secret.title')}
        visible={secret !== undefined}
        closable={false}
        maskClosable={false}
        footer={
          <Button type="primary" onClick={() => setSecret(undefined)}>
            {t('forward.secret.done')}
          </Button>
        }
      >
        <Alert type="warning" content={t('forward.secret.once')} style={{ marginBottom: 12 }} />
        {secret && <SecretField secret={secret} testId="forward-secret" />}
      </Modal>
    </PageContainer>
  );
}
