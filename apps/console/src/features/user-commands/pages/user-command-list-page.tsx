import type { UserCommandItem } from '@cellhub/contract/user-commands';
import {
  Button,
  Card,
  Divider,
  Form,
  Input,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListSearchBar } from '../../../components/list-search-bar';
import { PageContainer } from '../../../components/page-container';
import { EditDeleteActions, LinkAction } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { useDeleteUserCommand, useUserCommandList, type UserCommandListParams } from '../api';
import locale from '../locale';
import styles from '../../../components/run-page.module.css';

export default function UserCommandListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<{ keyword?: string }>();
  const [params, setParams] = useState<UserCommandListParams>({ current: 1, per_page: 10 });
  const { data, isFetching } = useUserCommandList(params);
  const remove = useDeleteUserCommand();

  const search = () => {
    const keyword = form.getFieldValue('keyword') as string | undefined;
    setParams((p) => ({ ...p, current: 1, keyword: keyword?.trim() || undefined }));
  };

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
    <PageContainer>
      <Card bordered={false} title={t('userCommand.title')}>
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
        <Divider />
        <div className={styles.toolbar}>
          <Button
            type="primary"
            icon={<IconPlus />}
            onClick={() => void navigate('/device/user-command/create')}
          >
            {t('userCommand.create')}
          </Button>
        </div>
        <Table<UserCommandItem>
          rowKey="id"
          loading={isFetching}
          columns={columns}
          data={data?.data ?? []}
          pagination={listPagination(params, setParams, data?.total, (total) =>
            t('userCommand.total', { total }),
          )}
        />
      </Card>
    </PageContainer>
  );
}
