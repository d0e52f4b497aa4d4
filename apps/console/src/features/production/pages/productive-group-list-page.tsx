import type { ProductiveGroupItem } from '@cellhub/contract/production';
import { Button, Form, Input, Message, Modal, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteGroup, useGroupList, useSaveGroup, type GroupListParams } from '../api';
import locale from '../locale';

/** /productive/group (admin): batches of produced devices shipped together. */
export default function ProductiveGroupListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<GroupListParams>();
  const query = useGroupList(params);
  const save = useSaveGroup();
  const remove = useDeleteGroup();
  const [creating, setCreating] = useState(false);
  const [groupForm] = Form.useForm<{ name: string; description?: string }>();

  const submit = async () => {
    const v = await groupForm.validate();
    const made = await save.mutateAsync({ body: { name: v.name, description: v.description ?? '' } });
    Message.success(t('prod.task.saved'));
    setCreating(false);
    void navigate(`/productive/group/${made.id}`);
  };

  const columns: TableColumnProps<ProductiveGroupItem>[] = [
    {
      title: t('prod.group.name'),
      dataIndex: 'name',
      render: (v: string, row) => (
        <Button type="text" size="mini" onClick={() => void navigate(`/productive/group/${row.id}`)}>
          {v}
        </Button>
      ),
    },
    { title: t('prod.group.description'), dataIndex: 'description', render: (v: string) => v || '-' },
    { title: t('prod.group.devices'), dataIndex: 'devices', width: 110 },
    {
      title: t('prod.task.createdat'),
      dataIndex: 'createdat',
      width: 190,
      render: (v: string) => formatTime(v),
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 160,
      render: (_: unknown, row) => (
        <EditDeleteActions
          confirm={t('prod.group.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/productive/group/${row.id}`}>{t('prod.group.open')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<ProductiveGroupItem, GroupListParams>
      title={t('prod.group.title')}
      help={t('prod.group.help')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter
            label={t('prod.group.name')}
            placeholder={t('prod.group.keyword.placeholder')}
            onSearch={search}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{
        label: t('prod.group.create'),
        onClick: () => {
          groupForm.resetFields();
          setCreating(true);
        },
      }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('prod.total', { total })}
    >
      <Modal
        title={t('prod.group.create')}
        visible={creating}
        onOk={() => void submit().catch(() => undefined)}
        onCancel={() => setCreating(false)}
        confirmLoading={save.isPending}
        okText={t('common.save')}
        cancelText={t('common.cancel')}
      >
        <Form form={groupForm} layout="vertical">
          <Form.Item
            label={t('prod.group.name')}
            field="name"
            rules={[{ required: true, message: t('prod.group.name.required') }]}
          >
            <Input maxLength={64} />
          </Form.Item>
          <Form.Item label={t('prod.group.description')} field="description">
            <Input.TextArea maxLength={200} autoSize={{ minRows: 2, maxRows: 4 }} />
          </Form.Item>
        </Form>
      </Modal>
    </ListPage>
  );
}
