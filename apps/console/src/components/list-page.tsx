/**
 * The shape every search-table page of the console shares (Arco Pro "search table"): a card with a title, an
 * optional help line, the filter row, a divider, a toolbar with the create button, and a table bound to the
 * list's `{ current, per_page }` params with server pagination, loading, empty and failed-load states.
 */
import {
  Button,
  Card,
  Divider,
  Space,
  Form,
  Table,
  type FormInstance,
  type TableColumnProps,
  type TableProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState, type CSSProperties, type Dispatch, type ReactNode, type SetStateAction } from 'react';
import { useNavigate } from 'react-router';
import { useLocale } from '../lib/i18n';
import { listPagination, type PageParams } from '../lib/list-pagination';
import { PageContainer } from './page-container';
import styles from './list-page.module.css';

/** The params, their setter and the keyword form of a keyword-filtered list; `search` starts again at page 1. */
export function useKeywordList<P extends PageParams & { keyword?: string }>(
  initial?: Omit<P, keyof PageParams>,
) {
  const [form] = Form.useForm<{ keyword?: string }>();
  const [params, setParams] = useState<P>({ current: 1, per_page: 10, ...initial } as P);
  const search = () => {
    const keyword = form.getFieldValue('keyword') as string | undefined;
    setParams((p) => ({ ...p, current: 1, keyword: keyword?.trim() || undefined }));
  };
  return { form, params, setParams, search } as {
    form: FormInstance<{ keyword?: string }>;
    params: P;
    setParams: Dispatch<SetStateAction<P>>;
    search: () => void;
  };
}

/** What a list query hands the page: a react-query result fits as is. */
export interface ListQuery<T> {
  data?: { data: T[]; total: number };
  isFetching: boolean;
  isError?: boolean;
  refetch?: () => unknown;
}

export interface ListPageProps<T, P extends PageParams> {
  title: ReactNode;
  /** A muted line under the title. */
  help?: ReactNode;
  /** The filter row, usually a ListSearchBar. */
  search?: ReactNode;
  /** The style of the divider under the filter row. */
  dividerStyle?: CSSProperties;
  /** The primary create button: its text and the route it opens (or a click handler). */
  create?: { label: ReactNode; to: string } | { label: ReactNode; onClick: () => void };
  /** More toolbar content: `start` after the create button, `end` at the right. */
  toolbarStart?: ReactNode;
  toolbarEnd?: ReactNode;
  rowKey: TableProps<T>['rowKey'];
  columns: TableColumnProps<T>[];
  query: ListQuery<T>;
  params: P;
  setParams: Dispatch<SetStateAction<P>>;
  /** The "N in total" text of the pagination. */
  total: (total: number) => ReactNode;
  /** Shown when the list is empty (Arco's own empty state by default). */
  empty?: ReactNode;
  /** Other Table props (scroll, border, ...). */
  tableProps?: Omit<TableProps<T>, 'rowKey' | 'columns' | 'data' | 'loading' | 'pagination'>;
  /** Rendered after the card: the page's modals and drawers. */
  children?: ReactNode;
}

export function ListPage<T, P extends PageParams>({
  title,
  help,
  search,
  dividerStyle,
  create,
  toolbarStart,
  toolbarEnd,
  rowKey,
  columns,
  query,
  params,
  setParams,
  total,
  empty,
  tableProps,
  children,
}: ListPageProps<T, P>) {
  const t = useLocale();
  const navigate = useNavigate();
  const hasToolbar = create || toolbarStart || toolbarEnd;
  const failed = query.isError && !query.data;
  const refetch = query.refetch;
  const noData = failed ? (
    <div className={styles.failed} role="alert">
      <span>{t('common.loadFailed')}</span>
      {refetch ? (
        <Button size="small" onClick={() => void refetch()}>
          {t('common.retry')}
        </Button>
      ) : null}
    </div>
  ) : (
    empty
  );
  return (
    <PageContainer>
      <Card bordered={false} title={title}>
        {help ? <div className={styles.help}>{help}</div> : null}
        {search ? (
          <>
            {search}
            <Divider style={dividerStyle} />
          </>
        ) : null}
        {hasToolbar ? (
          <div className={styles.toolbar}>
            <Space>
              {create ? (
                <Button
                  type="primary"
                  icon={<IconPlus />}
                  onClick={'to' in create ? () => void navigate(create.to) : create.onClick}
                >
                  {create.label}
                </Button>
              ) : null}
              {toolbarStart}
            </Space>
            {toolbarEnd ? <div>{toolbarEnd}</div> : null}
          </div>
        ) : null}
        <Table<T>
          {...tableProps}
          rowKey={rowKey}
          loading={query.isFetching}
          columns={columns}
          data={query.data?.data ?? []}
          noDataElement={noData}
          pagination={listPagination(params, setParams, query.data?.total, total)}
        />
      </Card>
      {children}
    </PageContainer>
  );
}
