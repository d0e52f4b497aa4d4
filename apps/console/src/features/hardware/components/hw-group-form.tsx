import { HW_VALUE_TYPES, type HwGroupItem, type HwValueType } from '@cellhub/contract/hardware';
import { Form, Input, Message, Modal, Select } from '@arco-design/web-react';
import { useEffect } from 'react';
import type { Translate } from '../../../lib/i18n';
import { useHwValueOptions, useSaveHwGroup } from '../api';

type GroupForm = { name: string; description?: string } & Partial<Record<HwValueType, number>>;

/**
 * Create or edit a hardware group in a dialog: its name, and one value per type chosen from the catalogue
 * (a type left empty is not part of the group).
 */
export function HwGroupDialog({
  group,
  visible,
  onClose,
  onSaved,
  t,
}: {
  group?: HwGroupItem;
  visible: boolean;
  onClose: () => void;
  onSaved?: (g: HwGroupItem) => void;
  t: Translate;
}) {
  const [form] = Form.useForm<GroupForm>();
  const values = useHwValueOptions();
  const save = useSaveHwGroup();

  useEffect(() => {
    if (!visible) return;
    form.resetFields();
    if (group)
      form.setFieldsValue({
        name: group.name,
        description: group.description,
        ...Object.fromEntries(group.values.map((v) => [v.type, v.id])),
      });
  }, [visible, group, form]);

  const submit = async () => {
    const v = await form.validate();
    const valueIds = HW_VALUE_TYPES.map((type) => v[type]).filter(
      (id): id is number => typeof id === 'number',
    );
    const saved = await save.mutateAsync({
      id: group?.id,
      body: { name: v.name, description: v.description ?? '', value_ids: valueIds },
    });
    Message.success(t('hw.saved'));
    onClose();
    onSaved?.(saved);
  };

  const options = (type: HwValueType) =>
    (values.data?.data ?? []).filter((v) => v.type === type).map((v) => ({ value: v.id, label: v.value }));

  return (
    <Modal
      title={group ? group.name : t('hw.group.create')}
      visible={visible}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={onClose}
      confirmLoading={save.isPending}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      style={{ width: 560 }}
      unmountOnExit
    >
      <Form<GroupForm> form={form} layout="horizontal" labelCol={{ span: 6 }} wrapperCol={{ span: 18 }}>
        <Form.Item
          label={t('hw.group.name')}
          field="name"
          rules={[
            {
              required: true,
              validator: (v: string | undefined, cb) =>
                cb(v?.trim() ? undefined : t('hw.group.name.required')),
            },
          ]}
        >
          <Input maxLength={64} placeholder={t('hw.group.name.placeholder')} />
        </Form.Item>
        <Form.Item label={t('hw.group.description')} field="description">
          <Input.TextArea maxLength={200} autoSize={{ minRows: 1, maxRows: 3 }} />
        </Form.Item>
        {HW_VALUE_TYPES.map((type) => (
          <Form.Item key={type} label={t(`hw.type.${type}`)} field={type}>
            <Select
              allowClear
              showSearch
              loading={values.isFetching}
              placeholder={t('hw.group.pick', { type: t(`hw.type.${type}`) })}
              notFoundContent={t('hw.group.noValues')}
              options={options(type)}
            />
          </Form.Item>
        ))}
      </Form>
    </Modal>
  );
}
