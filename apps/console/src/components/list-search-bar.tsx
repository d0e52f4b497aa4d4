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
 */
export function ListSearchBar<T>({
  form,
  onSearch,
  children,
  ...formProps
}: Omit<FormProps<T>, 'form' | 'className' | 'onSubmit' | 'children'> & {
  form: FormInstance<T>;
  onSearch: () => void;
  children: ReactNode;
}) {
  const t = useLocale();
  return (
    <div className={styles.searchRow}>
      <Form<T> form={form} className={styles.searchForm} {...formProps} onSubmit={onSearch}>
        {children}
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

/** A keyword filter in a third of the row; Enter searches. */
export function KeywordFilter({
  label,
  placeholder,
  onSearch,
  field = 'keyword',
}: {
  label: ReactNode;
  placeholder: string;
  onSearch: () => void;
  field?: string;
}) {
  return (
    <Grid.Col span={8}>
      <Form.Item label={label} field={field}>
        <Input allowClear maxLength={64} placeholder={placeholder} onPressEnter={onSearch} />
      </Form.Item>
    </Grid.Col>
  );
}

/** A choice filter in a third of the row; cleared, it means "all". */
export function ChoiceFilter({
  label,
  field,
  placeholder,
  options,
}: {
  label: ReactNode;
  field: string;
  placeholder: string;
  options: SelectProps['options'];
}) {
  return (
    <Grid.Col span={8}>
      <Form.Item label={label} field={field}>
        <Select placeholder={placeholder} allowClear options={options} />
      </Form.Item>
    </Grid.Col>
  );
}
