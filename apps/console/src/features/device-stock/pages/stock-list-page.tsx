import type { StockItem } from '@cellhub/contract/device-stock';
import { Badge, Button, DatePicker, Form, Grid, type TableColumnProps } from '@arco-design/web-react';
import { IconDownload, IconSend } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, filterParams, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { ProductFilter } from '../../../components/product-select';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { exportStock, useGroupOptions, useStock, useTaskOptions, type StockParams } from '../api';
import locale from '../locale';
import styles from './stock-pages.module.css';

interface Filters {
  keyword?: string;
  product_key?: string;
  task_id?: number;
  group_id?: number;
  tested?: StockParams['tested'];
  created?: [string, string];
}

const toParams = ({ created, ...rest }: Filters): Partial<StockParams> => ({
  ...(filterParams(rest) as Partial<StockParams>),
  created_from: created?.[0] || undefined,
  created_to: created?.[1] || undefined,
});

const TESTED = { untested: 'default', ok: 'success', failed: 'error' } as const;

/** /device-admin/stock (admin): devices without an owner, filtered and exported. */
export default function StockListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<StockParams, Filters>(undefined, toParams);
  const query = useStock(params);
  const tasks = useTaskOptions();
  const groups = useGroupOptions();
  const [exporting, setExporting] = useState(false);

  const columns: TableColumnProps<StockItem>[] = [
    {
      title: t('stock.col.sn'),
      dataIndex: 'sn',
      width: 170,
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    { title: t('stock.col.product'), dataIndex: 'product_name', render: (v: string) => v || '-' },
    { title: t('stock.col.imei'), dataIndex: 'imei', width: 170, render: (v: string) => v || '-' },
    { title: t('stock.col.task'), dataIndex: 'task_name', render: (v: string | null) => v || '-' },
    {
      title: t('stock.col.tested'),
      dataIndex: 'tested',
      width: 120,
      render: (v: StockItem['tested']) => <Badge status={TESTED[v]} text={t(`stock.tested.${v}`)} />,
    },
    {
      title: t('stock.col.createdat'),
      dataIndex: 'createdat',
      width: 180,
      render: (v: string) => formatTime(v),
    },
  ];

  const { current: _c, per_page: _p, ...filters } = params;
  return (
    <ListPage<StockItem, StockParams>
      title={t('stock.list.title')}
      help={t('stock.list.help')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter
            label={t('stock.filter.keyword')}
            placeholder={t('stock.filter.keyword.placeholder')}
            onSearch={search}
          />
          <ProductFilter label={t('stock.col.product')} placeholder={t('stock.filter.all')} />
          <ChoiceFilter
            label={t('stock.col.task')}
            field="task_id"
            placeholder={t('stock.filter.all')}
            options={tasks.data ?? []}
            loading={tasks.isLoading}
            searchable
          />
          <ChoiceFilter
            label={t('stock.filter.group')}
            field="group_id"
            placeholder={t('stock.filter.all')}
            options={groups.data ?? []}
            loading={groups.isLoading}
            searchable
          />
          <ChoiceFilter
            label={t('stock.col.tested')}
            field="tested"
            placeholder={t('stock.filter.all')}
            options={(['untested', 'ok', 'failed'] as const).map((v) => ({
              label: t(`stock.tested.${v}`),
              value: v,
            }))}
          />
          <Grid.Col span={8}>
            <Form.Item label={t('stock.col.createdat')} field="created">
              <DatePicker.RangePicker
                style={{ width: '100%' }}
                format="YYYY-MM-DD"
                placeholder={[t('stock.filter.from'), t('stock.filter.to')]}
              />
            </Form.Item>
          </Grid.Col>
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('stock.list.create'), to: '/device-admin/create' }}
      toolbarStart={
        <>
          <Button icon={<IconSend />} onClick={() => void navigate('/device-admin/fast-out-stock')}>
            {t('stock.list.ship')}
          </Button>
          <Button
            icon={<IconDownload />}
            loading={exporting}
            onClick={() => {
              setExporting(true);
              void exportStock(filters)
                .catch(() => undefined)
                .finally(() => setExporting(false));
            }}
          >
            {t('stock.list.export')}
          </Button>
        </>
      }
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('stock.total', { total })}
      empty={<ListEmpty text={t('stock.list.empty')} />}
    />
  );
}
