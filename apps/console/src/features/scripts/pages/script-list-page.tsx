import type { ScriptItem } from '@cellhub/contract/scripts';
import { Form, Input, Select, Space, Tag, Tooltip, type TableColumnProps } from '@arco-design/web-react';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import ProductSelect from '../../../components/product-select';
import { EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { type ScriptListParams, useDeleteScript, useScriptList } from '../api';
import locale from '../locale';
import styles from '../components/scripts.module.css';

type Filters = Pick<ScriptListParams, 'keyword' | 'product_key' | 'state' | 'scope'>;

/** /script/list — the caller's products' scripts and the shared ones (admins: every script). */
export default function ScriptListPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<ScriptListParams, Filters>();
  const query = useScriptList(params);
  const remove = useDeleteScript();

  const columns: TableColumnProps<ScriptItem>[] = [
    {
      title: t('script.col.name'),
      dataIndex: 'name',
      width: 200,
      render: (v: string, row) => <RowLink to={`/script/detail/${row.id}`}>{v}</RowLink>,
    },
    {
      title: t('script.col.product'),
      dataIndex: 'product_name',
      width: 180,
      render: (v: string | null, row) =>
        row.shared ? <Tag color="arcoblue">{t('script.shared')}</Tag> : v || row.product_key,
    },
    {
      title: t('script.col.state'),
      dataIndex: 'enabled',
      width: 110,
      render: (v: boolean, row) =>
        v ? (
          <Tag color="green">{t('script.enabled')}</Tag>
        ) : (
          <Tooltip
            content={t(
              row.disabled_reason === 'failures' ? 'script.disabled.failures' : 'script.disabled.manual',
            )}
          >
            <Tag color={row.disabled_reason === 'failures' ? 'red' : 'gray'}>{t('script.disabled')}</Tag>
          </Tooltip>
        ),
    },
    { title: t('script.col.version'), dataIndex: 'version', width: 80, render: (v: number) => `v${v}` },
    { title: t('script.col.calls'), dataIndex: 'calls', width: 90 },
    {
      title: t('script.col.errors'),
      dataIndex: 'errors',
      width: 90,
      render: (v: number) => (v > 0 ? <span className={styles.errorText}>{v}</span> : v),
    },
    {
      title: t('script.col.lastError'),
      dataIndex: 'last_error',
      ellipsis: true,
      width: 220,
      render: (_: unknown, row) =>
        row.last_error ? (
          <Tooltip
            content={`${formatTime(row.last_error.at)} ${row.last_error.sn}: ${row.last_error.message}`}
          >
            <Space size={4}>
              {row.last_error.line !== null && (
                <Tag size="small">{t('script.line', { line: row.last_error.line })}</Tag>
              )}
              <span>{row.last_error.message}</span>
            </Space>
          </Tooltip>
        ) : (
          '-'
        ),
    },
    {
      title: t('script.col.updated'),
      dataIndex: 'updatedat',
      width: 180,
      render: (v: string) => <span style={{ whiteSpace: 'nowrap' }}>{formatTime(v)}</span>,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 200,
      fixed: 'right',
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={`/script/edit/${row.id}`}
          confirm={t('script.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/script/detail/${row.id}`}>{t('script.detail')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<ScriptItem, ScriptListParams>
      title={t('script.title')}
      help={t('script.help')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('script.keyword')} field="keyword">
            <Input
              placeholder={t('script.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 200 }}
            />
          </Form.Item>
          <Form.Item label={t('script.product')} field="product_key">
            <ProductSelect
              allowClear
              labels="name"
              placeholder={t('script.product.placeholder')}
              style={{ width: 200 }}
            />
          </Form.Item>
          <Form.Item label={t('script.state')} field="state">
            <Select
              allowClear
              placeholder={t('script.state.placeholder')}
              style={{ width: 140 }}
              data-testid="script-state-filter"
            >
              <Select.Option value="enabled">{t('script.enabled')}</Select.Option>
              <Select.Option value="disabled">{t('script.disabled')}</Select.Option>
            </Select>
          </Form.Item>
          <Form.Item label={t('script.scope')} field="scope">
            <Select allowClear placeholder={t('script.scope.placeholder')} style={{ width: 140 }}>
              <Select.Option value="product">{t('script.scope.product')}</Select.Option>
              <Select.Option value="shared">{t('script.scope.shared')}</Select.Option>
            </Select>
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('script.create'), to: '/script/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('script.total', { total })}
      tableProps={{ scroll: { x: 1380 } }}
      empty={<ListEmpty text={t('script.empty')} hint={t('script.empty.hint')} />}
    />
  );
}
