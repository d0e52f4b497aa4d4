import {
  COLLECT_MODES,
  TEMPLATE_TYPES,
  type TemplateBody,
  type TemplateItem,
} from '@cellhub/contract/data-templates';
import { Form, Input, Message, Modal, Radio, Select } from '@arco-design/web-react';
import { useEffect } from 'react';
import { useLocale } from '../../../lib/i18n';
import { useSaveTemplate } from '../api';
import locale from '../locale';

/** Creates a template (no `template`) or edits one, in a modal over the list or detail page. */
export function TemplateFormModal({
  visible,
  template,
  onClose,
  onSaved,
}: {
  visible: boolean;
  template?: Pick<TemplateItem, 'id' | 'name' | 'type' | 'remark' | 'collect_mode'>;
  onClose: () => void;
  onSaved?: (id: number) => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<TemplateBody>();
  const save = useSaveTemplate();
  useEffect(() => {
    if (!visible) return;
    form.resetFields();
    form.setFieldsValue(
      template
        ? {
            name: template.name,
            type: template.type,
            remark: template.remark,
            collect_mode: template.collect_mode,
          }
        : { type: 'modbus_rtu', collect_mode: 'dtu', remark: '' },
    );
  }, [visible, template, form]);

  const submit = async () => {
    const values = await form.validate();
    const saved = await save.mutateAsync({ id: template?.id, body: values });
    Message.success(t('dt.saved'));
    onClose();
    onSaved?.(saved.id);
  };

  return (
    <Modal
      title={template ? t('dt.form.editTitle') : t('dt.form.createTitle')}
      visible={visible}
      // Refusals are shown on the fields (or toasted by the request layer); the modal stays open.
      onOk={() => void submit().catch(() => undefined)}
      onCancel={onClose}
      confirmLoading={save.isPending}
      unmountOnExit
    >
      <Form form={form} layout="vertical" data-testid="dt-template-form">
        <Form.Item
          label={t('dt.form.name')}
          field="name"
          rules={[{ required: true, message: t('dt.form.name.required') }, { maxLength: 64 }]}
        >
          <Input maxLength={64} placeholder={t('dt.form.name')} data-testid="dt-name" />
        </Form.Item>
        <Form.Item label={t('dt.col.type')} field="type">
          <Select options={TEMPLATE_TYPES.map((v) => ({ value: v, label: t(`dt.type.${v}`) }))} />
        </Form.Item>
        <Form.Item label={t('dt.col.mode')} field="collect_mode" extra={t('dt.mode.help')}>
          <Radio.Group type="button">
            {COLLECT_MODES.map((m) => (
              <Radio key={m} value={m}>
                {t(`dt.mode.${m}`)}
              </Radio>
            ))}
          </Radio.Group>
        </Form.Item>
        <Form.Item label={t('dt.form.remark')} field="remark" rules={[{ maxLength: 200 }]}>
          <Input.TextArea maxLength={200} autoSize={{ minRows: 2, maxRows: 4 }} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
