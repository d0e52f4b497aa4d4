import type { CommandGroupItem } from '@cellhub/contract/command-groups';
import { Form, Input, type TableColumnProps } from '@arco-design/web-react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import ProductSelect from '../../../components/product-select';
import { EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { type CommandGroupListParams, useCommandGroupList, useDeleteCommandGroup } from '../api';
import locale from '../locale';

/** /product/command_group — every product's command groups (admin). */
export default function CommandGroupListPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<
    CommandGroupListParams,
    { keyword?: string; product_key?: string }
  >();
  const query = useCommandGroupList(params);
  const remove = useDeleteCommandGroup();

  const columns: TableColumnProps<CommandGroupItem>[] = [
    {
      title: t('cmdGroup.col.name'),
      dataIndex: 'name',
      render: (v: string, row) => <RowLink to={`/product/command_group/detail/${row.id}`}>{v}</RowLink>,
    },
    {
      title: t('cmdGroup.col.product'),
      dataIndex: 'product_name',
      render: (v: string, row) => v || row.product_key,
    },
    { title: t('cmdGroup.col.description'), dataIndex: 'description', render: (v: string) => v || '-' },
    { title: t('cmdGroup.col.commands'), dataIndex: 'command_count', width: 100 },
    {
      title: t('cmdGroup.col.updated'),
      dataIndex: 'updatedat',
      width: 180,
      render: (v: string) => <span style={{ whiteSpace: 'nowrap' }}>{formatTime(v)}</span>,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 200,
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={`/product/command_group/edit/${row.id}`}
          confirm={t('cmdGroup.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/product/command_group/detail/${row.id}`}>{t('cmdGroup.detail')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<CommandGroupItem, CommandGroupListParams>
      title={t('cmdGroup.title')}
      help={t('cmdGroup.help')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('cmdGroup.product')} field="product_key">
            <ProductSelect
              allowClear
              labels="name"
              placeholder={t('cmdGroup.product.placeholder')}
              style={{ width: 220 }}
            />
          </Form.Item>
          <Form.Item label={t('cmdGroup.keyword')} field="keyword">
            <Input
              placeholder={t('cmdGroup.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 220 }}
            />
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('cmdGroup.create'), to: '/product/command_group/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('cmdGroup.total', { total })}
    />
  );
}
