import type { UserListItem } from '@cellhub/contract/auth';
import { Badge, Space, Tag, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { ButtonAction, ConfirmAction, RowActions } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useUserInfo } from '../../../lib/user';
import { useSetUserDisabled, useUserList, type UserListParams } from '../api';
import ResetPasswordModal from '../components/reset-password-modal';
import UserFormModal from '../components/user-form-modal';
import locale from '../locale';
import styles from './user-list-page.module.css';

interface Filters {
  keyword?: string;
  disabled?: '0' | '1';
}

export default function UserListPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<UserListParams, Filters>();
  const query = useUserList(params);
  const { data: me } = useUserInfo();
  const setDisabled = useSetUserDisabled();
  const [resetting, setResetting] = useState<UserListItem | null>(null);
  // undefined: closed; null: a new user; a row: that user's edit.
  const [editing, setEditing] = useState<UserListItem | null | undefined>(undefined);

  const columns: TableColumnProps<UserListItem>[] = [
    {
      title: t('users.col.username'),
      dataIndex: 'username',
      render: (v: string, row) =>
        row.uid === me?.uid ? (
          <Space size={6}>
            {v}
            <Tag size="small" color="arcoblue">
              {t('users.self')}
            </Tag>
          </Space>
        ) : (
          v
        ),
    },
    { title: t('users.col.nickname'), dataIndex: 'nickname' },
    { title: t('users.col.phone'), dataIndex: 'phone' },
    { title: t('users.col.email'), dataIndex: 'email' },
    {
      title: t('users.col.role'),
      dataIndex: 'role',
      render: (v: string) => (
        <Tag color={v === 'admin' ? 'purple' : 'gray'} size="small">
          {v === 'admin' ? t('users.role.admin') : t('users.role.user')}
        </Tag>
      ),
    },
    {
      title: t('users.col.status'),
      dataIndex: 'disabled',
      render: (v: boolean) =>
        v ? (
          <Badge status="error" text={t('users.status.disabled')} />
        ) : (
          <Badge status="success" text={t('users.status.enabled')} />
        ),
    },
    {
      title: t('users.col.created'),
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('users.col.lastLogin'),
      dataIndex: 'last_login_at',
      render: (v: string | null) =>
        v ? (
          <span className={styles.nowrap}>{formatTime(v)}</span>
        ) : (
          <span className={styles.muted}>{t('users.never')}</span>
        ),
    },
    {
      title: t('users.col.operations'),
      dataIndex: 'operations',
      // Kept in view at the right while a 1280 px window scrolls the other columns.
      fixed: 'right',
      render: (_: unknown, row) => (
        <RowActions>
          <ButtonAction onClick={() => setEditing(row)}>{t('users.edit')}</ButtonAction>
          {/* An admin cannot lock themselves out from here. */}
          {row.uid !== me?.uid && (
            <ConfirmAction
              title={row.disabled ? t('users.enable.confirm') : t('users.disable.confirm')}
              status={row.disabled ? 'success' : 'danger'}
              onConfirm={() => setDisabled.mutateAsync({ uid: row.uid, disabled: !row.disabled })}
              done={row.disabled ? t('users.enabled.done') : t('users.disabled.done')}
            >
              {row.disabled ? t('users.enable') : t('users.disable')}
            </ConfirmAction>
          )}
          <ButtonAction onClick={() => setResetting(row)}>{t('users.resetPassword')}</ButtonAction>
        </RowActions>
      ),
    },
  ];

  return (
    <ListPage<UserListItem, UserListParams>
      title={t('users.title')}
      search={
        <ListSearchBar form={form} grid="half" onSearch={search}>
          <KeywordFilter
            label={t('users.keyword')}
            placeholder={t('users.keyword.placeholder')}
            onSearch={search}
          />
          <ChoiceFilter
            label={t('users.status')}
            field="disabled"
            placeholder={t('users.status.all')}
            options={[
              { label: t('users.status.enabled'), value: '0' },
              { label: t('users.status.disabled'), value: '1' },
            ]}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('users.create'), onClick: () => setEditing(null) }}
      rowKey="uid"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('users.total', { total })}
      tableProps={{ scroll: { x: 'max-content' } }}
    >
      <ResetPasswordModal user={resetting} onClose={() => setResetting(null)} />
      <UserFormModal
        visible={editing !== undefined}
        user={editing ?? undefined}
        onClose={() => setEditing(undefined)}
      />
    </ListPage>
  );
}
