import {
  Button,
  Form,
  Grid,
  Input,
  Select,
  Space,
  type FormInstance,
  type FormProps,
  type SelectProps,
} from '@arco-design/web-react';
import { IconRefresh, IconSearch } from '@arco-design/web-react/icon';
import type { ReactNode } from 'react';
import { useLocale } from '../lib/i18n';
import styles from './list-search-bar.module.css';

/**
 * The filter row of an Arco Pro search table: the page's filter form on the left, Search and Reset on the right.
 * Reset clears the form and then searches, so the list falls back to its unfiltered first page.
 * `grid="half"` lays the filters out in a grid row with left-aligned labels, two to a row (filters with span 12).
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
  grid?: 'half';
  children: ReactNode;
}) {
  const t = useLocale();
  const gridProps: Partial<FormProps<T>> = grid
    ? { labelCol: { span: 5 }, wrapperCol: { span: 19 }, labelAlign: 'left' }
    : {};
  return (
    <div className={styles.searchRow}>
      <Form<T> form={form} className={styles.searchForm} {...gridProps} {...formProps} onSubmit={onSearch}>
        {grid ? <Grid.Row gutter={24}>{children}</Grid.Row> : children}
      </Form>
      <Space size={12} className={styles.searchButtons}>
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
      </Space>
    </div>
  );
}

/** A keyword filter in a third of the row (or `span` of 24); Enter searches. */
export function KeywordFilter({
  label,
  placeholder,
  onSearch,
  field = 'keyword',
  span = 8,
}: {
  label: ReactNode;
  placeholder: string;
  onSearch: () => void;
  field?: string;
  span?: number;
}) {
  return (
    <Grid.Col span={span}>
      <Form.Item label={label} field={field}>
        <Input allowClear maxLength={64} placeholder={placeholder} onPressEnter={onSearch} />
      </Form.Item>
    </Grid.Col>
  );
}

/** A choice filter in a third of the row (or `span` of 24); cleared, it means "all". */
export function ChoiceFilter({
  label,
  field,
  placeholder,
  options,
  span = 8,
}: {
  label: ReactNode;
  field: string;
  placeholder: string;
  options: SelectProps['options'];
  span?: number;
}) {
  return (
    <Grid.Col span={span}>
      <Form.Item label={label} field={field}>
        <Select placeholder={placeholder} allowClear options={options} />
      </Form.Item>
    </Grid.Col>
  );
}
