/** The keyword-filtered list page the alert configuration and contact lists share. */
import { Form, type FormInstance, Grid, Input, type TableColumnProps } from '@arco-design/web-react';
import { ListPage, useKeywordList, type ListQuery } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions } from '../../../components/row-actions';
import type { Translate } from '../../../lib/i18n';
import type { SimpleListParams } from '../api';

function KeywordSearchRow({
  t,
  form,
  onSearch,
  placeholder,
}: {
  t: Translate;
  form: FormInstance<{ keyword?: string }>;
  onSearch: () => void;
  placeholder: string;
}) {
  return (
    <ListSearchBar
      form={form}
      labelCol={{ span: 5 }}
      wrapperCol={{ span: 19 }}
      labelAlign="left"
      onSearch={onSearch}
    >
      <Grid.Row gutter={24}>
        <Grid.Col span={12}>
          <Form.Item label={t('alert.keyword')} field="keyword">
            <Input placeholder={placeholder} allowClear maxLength={64} />
          </Form.Item>
        </Grid.Col>
      </Grid.Row>
    </ListSearchBar>
  );
}

/**
 * `/alert/<kind>/list`: title, keyword row, create button, the kind's columns and an Edit/Delete column, all named
 * by the `alert.<kind>.*` texts.
 */
export function AlertListPage<T extends { id: number }>({
  t,
  kind,
  help,
  columns,
  useList,
  remove,
}: {
  t: Translate;
  kind: 'config' | 'contact';
  help?: string;
  columns: TableColumnProps<T>[];
  useList: (params: SimpleListParams) => ListQuery<T>;
  remove: (id: number) => Promise<unknown>;
}) {
  const { form, params, setParams, search } = useKeywordList<SimpleListParams>();
  const query = useList(params);
  const operations: TableColumnProps<T> = {
    title: t('alert.col.operations'),
    dataIndex: 'operations',
    render: (_: unknown, row: T) => (
      <EditDeleteActions
        confirm={t('alert.delete.confirm')}
        deleted={t('alert.deleted')}
        edit={`/alert/${kind}/edit/${row.id}`}
        onDelete={() => remove(row.id)}
      />
    ),
  };
  return (
    <ListPage<T, SimpleListParams>
      title={t(`alert.${kind}.title`)}
      help={help}
      search={
        <KeywordSearchRow
          t={t}
          form={form}
          onSearch={search}
          placeholder={t(`alert.${kind}.keyword.placeholder`)}
        />
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t(`alert.${kind}.create`), to: `/alert/${kind}/create` }}
      rowKey="id"
      columns={[...columns, operations]}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('alert.total', { total })}
    />
  );
}
