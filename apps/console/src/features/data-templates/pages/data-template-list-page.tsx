import { TEMPLATE_TYPES, type TemplateItem } from '@cellhub/contract/data-templates';
import { Button, Form, Input, Message, Select, Tag, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { ButtonAction, EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { type TemplateListParams, useCopyTemplate, useDeleteTemplate, useTemplateList } from '../api';
import { TemplateFormModal } from '../components/template-form-modal';
import locale from '../locale';

export const DETAIL = '/scene/data-template/detail';

/** /scene/data-template/list — the caller's data templates (admins: everyone's). */
export default function DataTemplateListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<
    TemplateListParams,
    { keyword?: string; type?: string }
  >();
  const query = useTemplateList(params);
  const remove = useDeleteTemplate();
  const copy = useCopyTemplate();
  const [editing, setEditing] = useState<TemplateItem | 'new' | undefined>();

  const columns: TableColumnProps<TemplateItem>[] = [
    {
      title: t('dt.col.name'),
      dataIndex: 'name',
      width: 180,
      ellipsis: true,
      render: (v: string, row) => <RowLink to={`${DETAIL}/${row.id}`}>{v}</RowLink>,
    },
    { title: t('dt.col.type'), dataIndex: 'type', width: 120, render: (v: string) => t(`dt.type.${v}`) },
    {
      title: t('dt.col.mode'),
      dataIndex: 'collect_mode',
      width: 110,
      render: (v: string) => (
        <Tag size="small" color={v === 'dtu' ? 'arcoblue' : 'purple'}>
          {t(`dt.mode.${v}`)}
        </Tag>
      ),
    },
    { title: t('dt.col.slaves'), dataIndex: 'slave_count', width: 70 },
    { title: t('dt.col.variables'), dataIndex: 'variable_count', width: 70 },
    { title: t('dt.col.devices'), dataIndex: 'device_count', width: 70 },
    {
      title: t('dt.col.updated'),
      dataIndex: 'updatedat',
      width: 170,
      render: (v: string) => <span style={{ whiteSpace: 'nowrap' }}>{formatTime(v)}</span>,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 260,
      fixed: 'right',
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={() => setEditing(row)}
          confirm={t('dt.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`${DETAIL}/${row.id}`}>{t('dt.detail')}</LinkAction>
          <ButtonAction
            onClick={() =>
              void copy.mutateAsync(row.id).then((c) => Message.success(t('dt.copied', { name: c.name })))
            }
          >
            {t('dt.copy')}
          </ButtonAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<TemplateItem, TemplateListParams>
      title={t('dt.title')}
      help={t('dt.help')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('dt.keyword')} field="keyword">
            <Input
              placeholder={t('dt.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 220 }}
              data-testid="dt-keyword"
            />
          </Form.Item>
          <Form.Item label={t('dt.type')} field="type">
            <Select
              allowClear
              placeholder={t('dt.type.all')}
              style={{ width: 180 }}
              options={TEMPLATE_TYPES.map((v) => ({ value: v, label: t(`dt.type.${v}`) }))}
            />
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('dt.create'), onClick: () => setEditing('new') }}
      rowKey="id"
      tableProps={{ scroll: { x: 1120 } }}
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('dt.total', { total })}
      empty={
        <ListEmpty
          text={t('dt.empty')}
          hint={t('dt.empty.hint')}
          actions={
            <Button type="primary" onClick={() => setEditing('new')}>
              {t('dt.create')}
            </Button>
          }
        />
      }
    >
      <TemplateFormModal
        visible={editing !== undefined}
        template={editing === 'new' ? undefined : editing}
        onClose={() => setEditing(undefined)}
        onSaved={(id) => {
          if (editing === 'new') void navigate(`${DETAIL}/${id}`);
        }}
      />
    </ListPage>
  );
}
