import { Button, Form, Space, type FormInstance, type FormProps } from '@arco-design/web-react';
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
