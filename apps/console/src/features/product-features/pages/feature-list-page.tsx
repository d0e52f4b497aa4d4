import type { ProductFeatureItem } from '@cellhub/contract/product-features';
import { Form, Input, Space, Tag, type TableColumnProps } from '@arco-design/web-react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { type FeatureListParams, useDeleteFeature, useFeatureList } from '../api';
import locale from '../locale';

/** /product/feature — capability flags and the products that have them (admin). */
export default function FeatureListPage() {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const { form, params, setParams, search } = useKeywordList<FeatureListParams>();
  const query = useFeatureList(params);
  const remove = useDeleteFeature();

  const columns: TableColumnProps<ProductFeatureItem>[] = [
    {
      title: t('feature.col.key'),
      dataIndex: 'key',
      render: (v: string, row) => <RowLink to={`/product/feature/detail/${row.id}`}>{v}</RowLink>,
    },
    {
      title: t('feature.col.name'),
      dataIndex: 'name',
      render: (v: string, row) => (lang === 'en-US' && row.name_us ? row.name_us : v),
    },
    {
      title: t('feature.col.panels'),
      dataIndex: 'panels',
      render: (v: string[]) =>
        v.length === 0
          ? t('feature.none')
          : v.map((p) => (
              <Tag key={p} color="arcoblue" size="small">
                {t(`feature.panel.${p}`)}
              </Tag>
            )),
    },
    {
      title: t('feature.col.products'),
      dataIndex: 'products',
      render: (v: ProductFeatureItem['products']) =>
        v.length === 0 ? (
          '-'
        ) : (
          <Space wrap size={4}>
            {v.slice(0, 3).map((p) => (
              <Tag key={p.product_key} size="small">
                {p.name}
              </Tag>
            ))}
            {v.length > 3 && <Tag size="small">+{v.length - 3}</Tag>}
          </Space>
        ),
    },
    {
      title: t('feature.col.updated'),
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
          edit={`/product/feature/edit/${row.id}`}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/product/feature/detail/${row.id}`}>{t('feature.detail')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<ProductFeatureItem, FeatureListParams>
      title={t('feature.title')}
      help={t('feature.help')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('feature.keyword')} field="keyword">
            <Input
              placeholder={t('feature.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 260 }}
            />
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('feature.create'), to: '/product/feature/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('feature.total', { total })}
    />
  );
}
