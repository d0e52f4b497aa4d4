import {
  Alert,
  Button,
  Card,
  Descriptions,
  InputNumber,
  Modal,
  Space,
  Switch,
  Table,
  Tag,
  Tooltip,
  Typography,
} from '@arco-design/web-react';
import type {
  ModbusExchange,
  ModbusStatusList,
  ModbusVariableStatus,
} from '@cellhub/contract/modbus-polling';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocale } from '../../../../lib/i18n';
import { ApiError, http } from '../../../../lib/request';
import { toast } from '../../../../lib/toast';
import { detailKeys } from '../../detail-api';
import locale from './modbus-variables.locale';

const enc = encodeURIComponent;
const spaced = (hex: string) => hex.replace(/(..)(?!$)/g, '$1 ').toUpperCase();
const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' } as const;

type Dialog = { kind: 'read' | 'write'; v: ModbusVariableStatus } | undefined;

/**
 * The device's data-template variables as the platform polls them (docs/modbus-polling.md): last value, read counters
 * and last error per variable, a test read that shows the frames both ways, and writes for writable variables (not
 * offered to view-only shares; the server refuses them anyway). Not shown for a device without a template.
 */
export default function ModbusVariablesCard({ sn, readOnly }: { sn: string; readOnly: boolean }) {
  const t = useLocale(locale);
  const qc = useQueryClient();
  const key = [...detailKeys.all(sn), 'modbus'];
  const status = useQuery({
    queryKey: key,
    queryFn: () => http.get<ModbusStatusList>(`/api/devices/${enc(sn)}/modbus/variables`, { silent: true }),
    retry: false,
    // Fresh counters every 5 s for a device with variables; a device without a template (81004) or without
    // variables is not asked again and again (each refused poll also cost the page a console error).
    refetchInterval: (q) => ((q.state.data?.variables.length ?? 0) > 0 ? 5000 : false),
  });
  const [dialog, setDialog] = useState<Dialog>();
  const [result, setResult] = useState<ModbusExchange | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const [value, setValue] = useState<number | boolean | undefined>();

  const run = useMutation({
    mutationFn: (d: NonNullable<Dialog>) =>
      d.kind === 'read'
        ? http.post<ModbusExchange>(
            `/api/devices/${enc(sn)}/modbus/variables/${enc(d.v.tag)}/read`,
            undefined,
            {
              silent: true,
            },
          )
        : http.post<ModbusExchange>(
            `/api/devices/${enc(sn)}/modbus/variables/${enc(d.v.tag)}/write`,
            { value },
            { silent: true },
          ),
    onSuccess: (r, d) => {
      setResult(r);
      if (d.kind === 'write') toast('success', t('mb.write.ok'));
      void qc.invalidateQueries({ queryKey: key });
    },
    onError: (e) => {
      setResult(undefined);
      if (e instanceof ApiError) {
        const details = e.details as Partial<ModbusExchange> | undefined;
        if (details && typeof details.request === 'string') setResult(details as ModbusExchange);
        setFailure(e.code === 20401 ? t('mb.offline') : e.message);
      } else setFailure(String(e));
    },
  });

  const list = status.data;
  if (!list || list.variables.length === 0) return null;

  const open = (kind: 'read' | 'write', v: ModbusVariableStatus) => {
    setResult(undefined);
    setFailure(undefined);
    setValue(v.register_type === 'coil' || v.data_format === 'bool' ? false : (v.last_value ?? undefined));
    setDialog({ kind, v });
    if (kind === 'read') run.mutate({ kind, v });
  };
  const writable = (v: ModbusVariableStatus) =>
    v.access !== 'r' && (v.register_type === 'coil' || v.register_type === 'holding');
  const isBool = (v: ModbusVariableStatus) => v.register_type === 'coil' || v.data_format === 'bool';

  const columns = [
    {
      title: t('mb.col.variable'),
      dataIndex: 'tag',
      render: (_: unknown, v: ModbusVariableStatus) => (
        <Space direction="vertical" size={0}>
          <Typography.Text>{v.name}</Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {v.tag}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('mb.col.register'),
      dataIndex: 'register_address',
      render: (_: unknown, v: ModbusVariableStatus) => (
        <Space direction="vertical" size={0}>
          <span style={{ whiteSpace: 'nowrap' }}>
            {v.slave_address} / {t(`mb.type.${v.register_type}`)} {v.register_address}
          </span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {v.data_format}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('mb.col.value'),
      dataIndex: 'last_value',
      render: (_: unknown, v: ModbusVariableStatus) =>
        v.last_value === null ? (
          <Typography.Text type="secondary">{t('mb.never')}</Typography.Text>
        ) : (
          <Typography.Text bold>
            {isBool(v) ? String(v.last_value !== 0) : v.last_value}
            {v.unit ? ` ${v.unit}` : ''}
          </Typography.Text>
        ),
    },
    { title: t('mb.col.reads'), dataIndex: 'reads', align: 'right' as const, width: 80 },
    {
      title: t('mb.col.errors'),
      dataIndex: 'timeouts',
      render: (_: unknown, v: ModbusVariableStatus) => {
        const counts = (
          [
            ['timeouts', v.timeouts],
            ['exceptions', v.exceptions],
            ['crc', v.crc_errors],
            ['invalid', v.invalid],
          ] as const
        ).filter(([, n]) => n > 0);
        return (
          <span data-testid={`mb-errors-${v.tag}`}>
            {counts.length === 0 ? (
              <Typography.Text type="secondary">0</Typography.Text>
            ) : (
              <Space size={4} wrap>
                {counts.map(([k, n]) => (
                  <Tag key={k} size="small" color="orange">
                    {t(`mb.err.${k}`)} {n}
                  </Tag>
                ))}
              </Space>
            )}
          </span>
        );
      },
    },
    {
      title: t('mb.col.lastError'),
      dataIndex: 'last_error',
      width: 200,
      ellipsis: true,
      render: (e: string) =>
        e ? (
          <Tooltip content={e}>
            <Typography.Text type="secondary">{e}</Typography.Text>
          </Tooltip>
        ) : (
          '-'
        ),
    },
    ...(readOnly
      ? []
      : [
          {
            title: t('mb.col.actions'),
            dataIndex: 'actions',
            width: 170,
            render: (_: unknown, v: ModbusVariableStatus) => (
              <Space size={4}>
                <Button
                  type="text"
                  size="small"
                  onClick={() => open('read', v)}
                  data-testid={`mb-read-${v.tag}`}
                >
                  {t('mb.read')}
                </Button>
                {writable(v) && (
                  <Button
                    type="text"
                    size="small"
                    onClick={() => open('write', v)}
                    data-testid={`mb-write-${v.tag}`}
                  >
                    {t('mb.write')}
                  </Button>
                )}
              </Space>
            ),
          },
        ]),
  ];

  const v = dialog?.v;
  return (
    <Card
      bordered={false}
      style={{ marginTop: 16 }}
      title={t('mb.title')}
      extra={<Tag color="arcoblue">{t(`mb.mode.${list.collect_mode}`)}</Tag>}
      data-testid="modbus-variables-card"
    >
      <Table
        rowKey="tag"
        columns={columns}
        data={list.variables}
        pagination={false}
        size="small"
        border={false}
      />
      <Modal
        visible={dialog !== undefined}
        title={v ? t(dialog?.kind === 'read' ? 'mb.read.title' : 'mb.write.title', { name: v.name }) : ''}
        onCancel={() => setDialog(undefined)}
        unmountOnExit
        footer={
          dialog?.kind === 'write' ? (
            <Space>
              <Button onClick={() => setDialog(undefined)}>{t('mb.close')}</Button>
              <Button
                type="primary"
                loading={run.isPending}
                disabled={value === undefined}
                onClick={() => {
                  setResult(undefined);
                  setFailure(undefined);
                  if (dialog) run.mutate(dialog);
                }}
                data-testid="mb-write-submit"
              >
                {t('mb.write')}
              </Button>
            </Space>
          ) : (
            <Button onClick={() => setDialog(undefined)}>{t('mb.close')}</Button>
          )
        }
      >
        {v && dialog?.kind === 'write' && (
          <Space direction="vertical" style={{ width: '100%', marginBottom: 16 }}>
            <Typography.Text type="secondary">{t('mb.write.hint')}</Typography.Text>
            <Space>
              <span>{t('mb.write.value')}</span>
              {isBool(v) ? (
                <Switch
                  checked={value === true}
                  onChange={(c) => setValue(c)}
                  data-testid="mb-write-switch"
                />
              ) : (
                <InputNumber
                  style={{ width: 200 }}
                  value={typeof value === 'number' ? value : undefined}
                  onChange={(n) => setValue(typeof n === 'number' && Number.isFinite(n) ? n : undefined)}
                  suffix={v.unit || undefined}
                  data-testid="mb-write-value"
                />
              )}
            </Space>
          </Space>
        )}
        {failure && !result && <Alert type="error" content={failure} />}
        {result && (
          <Space direction="vertical" style={{ width: '100%' }} data-testid="mb-result">
            <Alert
              type={result.outcome === 'response' ? 'success' : 'warning'}
              content={
                result.outcome === 'response'
                  ? t('mb.outcome.response')
                  : `${t(`mb.outcome.${result.outcome}`)}: ${result.message}`
              }
            />
            <Descriptions
              column={1}
              size="small"
              border
              data={[
                { label: t('mb.frame.request'), value: <span style={mono}>{spaced(result.request)}</span> },
                {
                  label: t('mb.frame.response'),
                  value: result.response ? (
                    <span style={mono} data-testid="mb-response-hex">
                      {spaced(result.response)}
                    </span>
                  ) : (
                    <Typography.Text type="secondary">{t('mb.frame.none')}</Typography.Text>
                  ),
                },
                { label: t('mb.result.raw'), value: result.raw === null ? '-' : String(result.raw) },
                {
                  label: t('mb.result.value'),
                  value: (
                    <span data-testid="mb-result-value">
                      {result.value === null ? '-' : `${String(result.value)}${v?.unit ? ` ${v.unit}` : ''}`}
                    </span>
                  ),
                },
                { label: t('mb.result.elapsed'), value: `${Math.round(result.elapsed_ms)} ms` },
              ]}
            />
          </Space>
        )}
      </Modal>
    </Card>
  );
}
