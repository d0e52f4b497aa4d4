import type { UserCommandItem } from '@cellhub/contract/user-commands';
import { Button, Form, Input, Tag, type TableColumnProps } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteUserCommand, useUserCommandList, type UserCommandListParams } from '../api';
import locale from '../locale';
import styles from '../../../components/run-page.module.css';

export default function UserCommandListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<UserCommandListParams>();
  const query = useUserCommandList(params);
  const remove = useDeleteUserCommand();

  const columns: TableColumnProps<UserCommandItem>[] = [
    {
      title: t('userCommand.col.name'),
      dataIndex: 'name',
      render: (v: string, row) => (
        <Button
          type="text"
          size="mini"
          onClick={() => void navigate(`/device/user-command/detail/${row.id}`)}
        >
          {v}
        </Button>
      ),
    },
    {
      title: t('userCommand.col.type'),
      dataIndex: 'type',
      render: (v: string) => (
        <Tag size="small" color={v === 'hex' ? 'arcoblue' : 'green'}>
          {t(`userCommand.type.${v}`)}
        </Tag>
      ),
    },
    {
      title: t('userCommand.col.data'),
      dataIndex: 'data',
      render: (v: string) => <span className={styles.mono}>{v.length > 48 ? `${v.slice(0, 48)}…` : v}</span>,
    },
    { title: t('userCommand.col.description'), dataIndex: 'description' },
    { title: t('userCommand.col.runs'), dataIndex: 'runs' },
    {
      title: t('userCommand.col.updated'),
      dataIndex: 'updatedat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={`/device/user-command/edit/${row.id}`}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/device/user-command/detail/${row.id}`}>{t('userCommand.send')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<UserCommandItem, UserCommandListParams>
      title={t('userCommand.title')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('userCommand.keyword')} field="keyword">
            <Input
              placeholder={t('userCommand.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 280 }}
            />
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('userCommand.create'), to: '/device/user-command/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('userCommand.total', { total })}
    />
  );
}
