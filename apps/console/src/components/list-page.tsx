/**
 * The shape every search-table page of the console shares (Arco Pro "search table"): a card with a plain title (no
 * header rule), an optional help line, the filter row, a divider, a toolbar with the create button (and the
 * live-update badge of a list whose rows move by themselves), and a table with row lines only, bound to the list's
 * `{ current, per_page }` params with server pagination, loading, empty and failed-load states.
 */
import {
  Badge,
  Button,
  Card,
  Divider,
  Empty,
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
import type { RealtimeStatus } from '../lib/realtime';
import { PageContainer } from './page-container';
import styles from './list-page.module.css';

/** A filter form's values as request params: text trimmed, and a cleared field (empty, null) left out. */
export function filterParams(values: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => {
      const value: unknown = typeof v === 'string' ? v.trim() : v;
      return [k, value === '' || value === null ? undefined : value];
    }),
  );
}

/**
 * The params, their setter and the filter form of a filtered list. `search` reads every field of the form (a
 * keyword by default), starts again at page 1 and keeps the page size; `toParams` turns the form's values into
 * params when they are not the same (the default trims text and leaves out cleared fields).
 */
export function useKeywordList<P extends PageParams, F extends object = { keyword?: string }>(
  initial?: Omit<P, keyof PageParams>,
  toParams: (values: F) => Partial<P> = filterParams as (values: F) => Partial<P>,
) {
  const [form] = Form.useForm<F>();
  const [params, setParams] = useState<P>({ current: 1, per_page: 10, ...initial } as P);
  const search = () => {
    const filters = toParams(form.getFieldsValue() as F);
    setParams((p) => ({ ...p, ...filters, current: 1 }));
  };
  return { form, params, setParams, search } as {
    form: FormInstance<F>;
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
  /** Shown when the list is empty (Arco's own empty state by default; see ListEmpty). */
  empty?: ReactNode;
  /** What the failed-load state says (a generic "could not load the list" by default). */
  failed?: ReactNode;
  /** The live-update connection of a list patched by realtime events, shown as a badge at the toolbar's right. */
  live?: { status: RealtimeStatus; open: string; off: string };
  /**
   * Spin only while there is nothing to show: the rows on screen stay while a live event or an action reads the
   * page again, instead of a spinner over them on every read.
   */
  quietRefetch?: boolean;
  /** The page sizes offered (Arco's 10 to 50 by default). */
  pageSizes?: number[];
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
  failed: failedText,
  live,
  quietRefetch,
  pageSizes,
  tableProps,
  children,
}: ListPageProps<T, P>) {
  const t = useLocale();
  const navigate = useNavigate();
  const liveBadge =
    live?.status === 'open' ? (
      <Badge status="processing" text={live.open} />
    ) : live?.status === 'reconnecting' ? (
      <Badge status="warning" text={live.off} />
    ) : null;
  const end = liveBadge || toolbarEnd;
  const hasToolbar = create || toolbarStart || end;
  const failed = query.isError && !query.data;
  const refetch = query.refetch;
  const noData = failed ? (
    <div className={styles.failed} role="alert">
      <span>{failedText ?? t('common.loadFailed')}</span>
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
      <Card bordered={false} title={title} className={styles.card}>
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
            {end ? (
              <Space>
                {liveBadge}
                {toolbarEnd}
              </Space>
            ) : null}
          </div>
        ) : null}
        <Table<T>
          // Arco Pro's search table: row lines only, no outer frame or column lines (a page may still ask).
          border={{ wrapper: false, headerCell: false, bodyCell: false }}
          {...tableProps}
          rowKey={rowKey}
          loading={query.isFetching && !(quietRefetch && query.data)}
          columns={columns}
          data={query.data?.data ?? []}
          noDataElement={noData}
          pagination={{
            ...listPagination(params, setParams, query.data?.total, total),
            ...(pageSizes ? { sizeOptions: pageSizes } : {}),
          }}
        />
      </Card>
      {children}
    </PageContainer>
  );
}

/** The empty state of a list: what is missing, a hint at what to do, and the buttons that do it. */
export function ListEmpty({
  text,
  hint,
  actions,
}: {
  text: ReactNode;
  hint?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Empty
      description={
        <Space direction="vertical" size={8}>
          <span>{text}</span>
          {hint ? <span className={styles.muted}>{hint}</span> : null}
          {actions ? <Space>{actions}</Space> : null}
        </Space>
      }
    />
  );
}
