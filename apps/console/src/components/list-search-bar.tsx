import {
  Button,
  Divider,
  Form,
  Grid,
  Input,
  Select,
  type FormInstance,
  type FormProps,
  type SelectProps,
} from '@arco-design/web-react';
import { IconRefresh, IconSearch } from '@arco-design/web-react/icon';
import { createContext, useContext, type ReactElement, type ReactNode } from 'react';
import { useLocale } from '../lib/i18n';
import styles from './list-search-bar.module.css';

/** How much of the grid row a filter cell takes unless it says otherwise: a third, or half with `grid="half"`. */
export const CellSpan = createContext(8);

/**
 * The filter row of an Arco Pro search table: the page's filter form on the left, then a vertical divider and
 * Search over Reset, stacked (Search at the top, Reset at the bottom of the filter rows).
 * Reset clears the form and then searches, so the list falls back to its unfiltered first page.
 * `grid` lays the filters out in a grid row (gutter 24) with left-aligned labels: three to a row with
 * `grid="third"` (each label as wide as its text), two with `grid="half"` (labels 5 of 24); that is the span
 * KeywordFilter and ChoiceFilter take unless given theirs.
 */
export function ListSearchBar<T>({
  form,
  onSearch,
  grid,
  children,
  ...formProps
}: Omit<FormProps<T>, 'form' | 'className' | 'onSubmit' | 'children'> & {
  form: FormInstance<T>;
  onSearch: () => void;
  grid?: 'half' | 'third';
  children: ReactNode;
}) {
  const t = useLocale();
  // In a third of a 1280 px window a label in a fixed share of the cell is clipped ("Keyword") or wraps (所属产品):
  // there each label takes its own width on one line and the field the rest.
  const gridProps: Partial<FormProps<T>> =
    grid === 'half'
      ? { labelCol: { span: 5 }, wrapperCol: { span: 19 }, labelAlign: 'left' }
      : grid === 'third'
        ? {
            labelCol: { flex: 'none' },
            wrapperCol: { flex: 1, style: { minWidth: 0 } },
            labelAlign: 'left',
          }
        : {};
  return (
    <div className={`${styles.searchRow} ${grid ? styles.gridRow : ''}`} data-testid="list-search-bar">
      <Form<T> form={form} className={styles.searchForm} {...gridProps} {...formProps} onSubmit={onSearch}>
        {grid ? (
          <CellSpan.Provider value={grid === 'half' ? 12 : 8}>
            <Grid.Row gutter={24}>{children}</Grid.Row>
          </CellSpan.Provider>
        ) : (
          children
        )}
      </Form>
      <Divider type="vertical" className={styles.searchDivider} />
      <div className={styles.searchButtons} data-testid="list-search-buttons">
        <Button type="primary" icon={<IconSearch />} onClick={onSearch}>
          {t('common.search')}
        </Button>
        <Button
          icon={<IconRefresh />}
          onClick={() => {
            form.resetFields();
            onSearch();
          }}
        >
          {t('common.reset')}
        </Button>
      </div>
    </div>
  );
}

/** A keyword filter in a cell of the row (`span` of 24, the grid's by default); Enter searches. */
export function KeywordFilter({
  label,
  placeholder,
  onSearch,
  field = 'keyword',
  span,
}: {
  label: ReactNode;
  placeholder: string;
  onSearch: () => void;
  field?: string;
  span?: number;
}) {
  const cell = useContext(CellSpan);
  return (
    <Grid.Col span={span ?? cell}>
      <Form.Item label={label} field={field}>
        <Input allowClear maxLength={64} placeholder={placeholder} onPressEnter={onSearch} />
      </Form.Item>
    </Grid.Col>
  );
}

/**
 * A choice filter in a cell of the row (`span` of 24, the grid's by default); cleared, it means "all".
 * `searchable` lets a long list (products) be narrowed by typing part of a label; `loading` while its options load.
 */
export function ChoiceFilter({
  label,
  field,
  placeholder,
  options,
  span,
  searchable,
  loading,
}: {
  label: ReactNode;
  field: string;
  placeholder: string;
  options: SelectProps['options'];
  span?: number;
  searchable?: boolean;
  loading?: boolean;
}) {
  const cell = useContext(CellSpan);
  return (
    <Grid.Col span={span ?? cell}>
      <Form.Item label={label} field={field}>
        <Select
          placeholder={placeholder}
          allowClear
          loading={loading}
          options={options}
          {...(searchable ? { showSearch: true, filterOption: labelContains } : {})}
        />
      </Form.Item>
    </Grid.Col>
  );
}

/** Arco hands filterOption the option element: its label is the children. */
function labelContains(input: string, option: ReactElement): boolean {
  return String((option.props as { children?: unknown }).children ?? '')
    .toLowerCase()
    .includes(input.toLowerCase());
}
