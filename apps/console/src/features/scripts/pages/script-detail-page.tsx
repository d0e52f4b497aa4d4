import type { ScriptErrorEntry, ScriptVersionItem } from '@cellhub/contract/scripts';
import {
  Button,
  Card,
  Descriptions,
  Message,
  Modal,
  Popconfirm,
  Space,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { ConfirmAction, RowActions } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useBindScript, useRestoreVersion, useScript, useScriptState, useScriptVersions } from '../api';
import { LazyCodeEditor } from '../components/lazy-code-editor';
import locale from '../locale';
import styles from '../components/scripts.module.css';

/** /script/detail/:id — the script, its counters and latest errors, its versions with one-click rollback. */
export default function ScriptDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useScript(isRecordId(id) ? id : undefined);
  // Versions only once the script answered: a missing or foreign one shows its result page, with no toast.
  const versions = useScriptVersions(load.data ? load.data.id : undefined);
  const setState = useScriptState();
  const restore = useRestoreVersion(id);
  const bind = useBindScript(id);
  const [viewing, setViewing] = useState<ScriptVersionItem | undefined>();
  const [bindTo, setBindTo] = useState<string | undefined>();

  const state = recordState(load, {
    badId: !isRecordId(id),
    back: '/script/list',
    backLabel: t('script.back'),
    notFoundTitle: t('script.notFound'),
  });
  if (state) return state;
  const s = load.data!;

  const errorColumns: TableColumnProps<ScriptErrorEntry>[] = [
    { title: t('script.errors.at'), dataIndex: 'at', width: 180, render: (v: string) => formatTime(v) },
    { title: t('script.errors.sn'), dataIndex: 'sn', width: 160 },
    {
      title: t('script.errors.line'),
      dataIndex: 'line',
      width: 80,
      render: (v: number | null) => (v === null ? '-' : <Tag size="small">{v}</Tag>),
    },
    {
      title: t('script.errors.message'),
      dataIndex: 'message',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
  ];

  const versionColumns: TableColumnProps<ScriptVersionItem>[] = [
    {
      title: t('script.versions.version'),
      dataIndex: 'version',
      width: 120,
      render: (v: number) => (
        <Space size={6}>
          <span>v{v}</span>
          {v === s.version && (
            <Tag color="green" size="small">
              {t('script.versions.current')}
            </Tag>
          )}
        </Space>
      ),
    },
    { title: t('script.versions.note'), dataIndex: 'note', render: (v: string) => v || '-' },
    { title: t('script.versions.author'), dataIndex: 'author', width: 140, render: (v: string) => v || '-' },
    {
      title: t('script.versions.at'),
      dataIndex: 'createdat',
      width: 180,
      render: (v: string) => formatTime(v),
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 160,
      render: (_: unknown, row) => (
        <RowActions>
          <Button type="text" size="small" onClick={() => setViewing(row)}>
            {t('script.versions.view')}
          </Button>
          {row.version !== s.version && (
            <ConfirmAction
              title={t('script.versions.rollback.confirm', { version: row.version })}
              onConfirm={() =>
                restore
                  .mutateAsync(row.version)
                  .then((d) => Message.success(t('script.versions.rollback.done', { version: d.version })))
              }
            >
              {t('script.versions.rollback')}
            </ConfirmAction>
          )}
        </RowActions>
      ),
    },
  ];

  const toggle = () =>
    setState
      .mutateAsync({ id: s.id, enabled: !s.enabled })
      .then(() => Message.success(t(s.enabled ? 'script.disable.done' : 'script.enable.done')))
      .catch(() => undefined);

  return (
    <PageContainer>
      <Space direction="vertical" size={16} style={{ width: '100%' }}>
        <Card
          bordered={false}
          title={s.name}
          extra={
            <Space>
              {s.enabled ? (
                <Popconfirm title={t('script.disable.confirm')} onOk={toggle}>
                  <Button status="warning" data-testid="script-toggle">
                    {t('script.disable')}
                  </Button>
                </Popconfirm>
              ) : (
                <Button type="outline" onClick={() => void toggle()} data-testid="script-toggle">
                  {t('script.enable')}
                </Button>
              )}
              <Button type="primary" onClick={() => void navigate(`/script/edit/${s.id}`)}>
                {t('common.edit')}
              </Button>
            </Space>
          }
        >
          <div data-testid="script-info">
            <Descriptions
              column={3}
              data={[
                {
                  label: t('script.col.product'),
                  value: s.shared ? (
                    <Tag color="arcoblue">{t('script.shared')}</Tag>
                  ) : (
                    s.product_name || s.product_key
                  ),
                },
                {
                  label: t('script.col.state'),
                  value: s.enabled ? (
                    <Tag color="green">{t('script.enabled')}</Tag>
                  ) : (
                    <Tag color={s.disabled_reason === 'failures' ? 'red' : 'gray'}>
                      {t(
                        s.disabled_reason === 'failures'
                          ? 'script.disabled.failures'
                          : 'script.disabled.manual',
                      )}
                    </Tag>
                  ),
                },
                { label: t('script.col.version'), value: `v${s.version}` },
                { label: t('script.info.owner'), value: s.owner || '-' },
                {
                  label: t('script.info.functions'),
                  value:
                    [s.has_decode && 'decode()', s.has_encode && 'encode()'].filter(Boolean).join(', ') ||
                    '-',
                },
                {
                  label: t('script.info.bound'),
                  value: s.bound_products.length ? s.bound_products.join(', ') : t('script.info.none'),
                },
                { label: t('script.col.calls'), value: s.calls },
                {
                  label: t('script.col.errors'),
                  value: s.errors > 0 ? <span className={styles.errorText}>{s.errors}</span> : 0,
                },
                { label: t('script.info.consecutive'), value: s.consecutive_errors },
                { label: t('script.info.avg'), value: `${s.avg_ms} ms` },
                {
                  label: t('script.info.keepRaw'),
                  value: s.keep_raw ? t('script.info.keepRaw.on') : t('script.info.keepRaw.off'),
                },
                { label: t('script.col.updated'), value: formatTime(s.updatedat) },
                { label: t('script.info.description'), value: s.description || '-' },
              ]}
            />
          </div>
          {s.shared && (
            <Space style={{ marginTop: 12 }}>
              <ProductSelect
                value={bindTo}
                onChange={(v) => setBindTo(typeof v === 'string' ? v : undefined)}
                placeholder={t('script.bind.placeholder')}
                style={{ width: 260 }}
              />
              <Button
                disabled={!bindTo}
                loading={bind.isPending}
                onClick={() =>
                  void bind
                    .mutateAsync(bindTo!)
                    .then(() => Message.success(t('script.bind.done', { product: bindTo! })))
                    .catch(() => undefined)
                }
              >
                {t('script.bind')}
              </Button>
            </Space>
          )}
        </Card>
        <Card bordered={false} title={t('script.errors')}>
          <Table<ScriptErrorEntry>
            rowKey={(r) => `${r.at}-${r.sn}-${r.message}`}
            columns={errorColumns}
            data={s.recent_errors}
            pagination={false}
            noDataElement={<span style={{ color: 'var(--color-text-3)' }}>{t('script.errors.empty')}</span>}
            data-testid="script-errors"
          />
        </Card>
        <Card bordered={false} title={t('script.versions')}>
          <Table<ScriptVersionItem>
            rowKey="version"
            columns={versionColumns}
            data={versions.data?.data ?? []}
            loading={versions.isLoading}
            pagination={{ pageSize: 10, hideOnSinglePage: true }}
            data-testid="script-versions"
          />
        </Card>
        <Card bordered={false} title={t('script.source')}>
          <LazyCodeEditor loading={t('script.editorLoading')} value={s.source} readOnly height="320px" />
        </Card>
      </Space>
      <Modal
        title={viewing ? `v${viewing.version}` : ''}
        visible={viewing !== undefined}
        footer={null}
        onCancel={() => setViewing(undefined)}
        style={{ width: 760 }}
      >
        {viewing && <pre className={styles.output}>{viewing.source}</pre>}
      </Modal>
    </PageContainer>
  );
}
