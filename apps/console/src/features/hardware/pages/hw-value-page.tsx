import { HW_VALUE_TYPES, type HwValueItem, type HwValueType } from '@cellhub/contract/hardware';
import { Form, Input, Message, Modal, Select, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteHwValue, useHwValues, useSaveHwValue, type HwValueParams } from '../api';
import { HwTypeTag } from '../components/hw-type-tag';
import locale from '../locale';

interface ValueForm {
  type: HwValueType;
  value: string;
  description?: string;
}

/** The hardware catalogue (admin): typed values, searchable, edited in a dialog. */
export default function HwValuePage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<
    HwValueParams,
    { keyword?: string; type?: HwValueType }
  >();
  const query = useHwValues(params);
  const save = useSaveHwValue();
  const remove = useDeleteHwValue();
  const [editing, setEditing] = useState<HwValueItem | 'new' | null>(null);
  const [valueForm] = Form.useForm<ValueForm>();

  const open = (row: HwValueItem | 'new') => {
    setEditing(row);
    valueForm.setFieldsValue(
      row === 'new'
        ? { type: params.type ?? 'module_model', value: '', description: '' }
        : { type: row.type, value: row.value, description: row.description },
    );
  };

  const submit = async () => {
    const values = await valueForm.validate();
    const body = { ...values, description: values.description ?? '' };
    await save.mutateAsync({ id: editing === 'new' || !editing ? undefined : editing.id, body });
    Message.success(t('hw.saved'));
    setEditing(null);
  };

  const columns: TableColumnProps<HwValueItem>[] = [
    {
      title: t('hw.value.type'),
      dataIndex: 'type',
      width: 150,
      render: (v: HwValueType) => <HwTypeTag type={v} t={t} />,
    },
    { title: t('hw.value.value'), dataIndex: 'value' },
    { title: t('hw.value.description'), dataIndex: 'description', render: (v: string) => v || '-' },
    { title: t('hw.value.groups'), dataIndex: 'groups', width: 120 },
    { title: t('hw.updated'), dataIndex: 'updatedat', width: 190, render: (v: string) => formatTime(v) },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 150,
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={() => open(row)}
          confirm={t('hw.value.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        />
      ),
    },
  ];

  const used = editing && editing !== 'new' && editing.groups > 0;
  return (
    <ListPage<HwValueItem, HwValueParams>
      title={t('hw.value.title')}
      help={t('hw.value.help')}
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <ChoiceFilter
            label={t('hw.value.type')}
            field="type"
            placeholder={t('hw.value.type.all')}
            options={HW_VALUE_TYPES.map((v) => ({ value: v, label: t(`hw.type.${v}`) }))}
          />
          <KeywordFilter
            label={t('hw.value.keyword')}
            placeholder={t('hw.value.keyword.placeholder')}
            onSearch={search}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('hw.value.create'), onClick: () => open('new') }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('hw.total', { total })}
    >
      <Modal
        title={editing === 'new' ? t('hw.value.create') : t('hw.value.edit')}
        visible={editing !== null}
        onOk={() => void submit().catch(() => undefined)}
        onCancel={() => setEditing(null)}
        confirmLoading={save.isPending}
        okText={t('common.save')}
        cancelText={t('common.cancel')}
        unmountOnExit
      >
        <Form<ValueForm> form={valueForm} layout="vertical">
          <Form.Item
            label={t('hw.value.type')}
            field="type"
            rules={[{ required: true }]}
            extra={used ? t('hw.value.typeLocked') : undefined}
          >
            <Select
              disabled={!!used}
              options={HW_VALUE_TYPES.map((v) => ({ value: v, label: t(`hw.type.${v}`) }))}
            />
          </Form.Item>
          <Form.Item
            label={t('hw.value.value')}
            field="value"
            rules={[
              {
                required: true,
                validator: (v: string | undefined, cb) =>
                  cb(v?.trim() ? undefined : t('hw.value.value.required')),
              },
            ]}
          >
            <Input maxLength={64} placeholder={t('hw.value.value.placeholder')} />
          </Form.Item>
          <Form.Item label={t('hw.value.description')} field="description">
            <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
          </Form.Item>
        </Form>
      </Modal>
    </ListPage>
  );
}
