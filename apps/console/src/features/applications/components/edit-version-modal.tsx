import { APPLICATION_VERSION_RULE, type ApplicationVersion } from '@cellhub/contract/applications';
import { Form, Input, Message, Modal, Switch } from '@arco-design/web-react';
import { useEffect } from 'react';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useUpdateVersion } from '../api';
import locale from '../locale';

interface Values {
  version: string;
  notes_zh: string;
  notes_en: string;
  force_update: boolean;
}

/** Change a version's string, notes and force flag; the package itself never changes. */
export function EditVersionModal({
  version,
  onClose,
}: {
  version?: ApplicationVersion;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const update = useUpdateVersion();

  useEffect(() => {
    if (version) {
      form.setFieldsValue({
        version: version.version,
        notes_zh: version.notes_zh,
        notes_en: version.notes_en,
        force_update: version.force_update,
      });
    }
  }, [version, form]);

  const submit = async () => {
    if (!version) return;
    const values = await form.validate();
    try {
      await update.mutateAsync({
        id: version.application_id,
        versionId: version.id,
        body: {
          version: values.version.trim(),
          notes_zh: (values.notes_zh ?? '').trim(),
          notes_en: (values.notes_en ?? '').trim(),
          force_update: !!values.force_update,
        },
      });
      Message.success(t('application.version.saved'));
      onClose();
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      const details = Array.isArray(e.details) ? (e.details as { field: string; message: string }[]) : [];
      if (e.code === 10113 && details.length > 0) {
        for (const d of details) form.setFields({ [d.field]: { error: { message: d.message } } });
      } else if (e.httpStatus !== 403) Message.error(e.message);
    }
  };

  return (
    <Modal
      title={t('application.version.edit')}
      visible={!!version}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('application.save')}
      cancelText={t('application.cancel')}
      confirmLoading={update.isPending}
      style={{ width: 600 }}
    >
      <Form<Values> form={form} layout="vertical">
        <Form.Item
          label={t('application.upload.version')}
          field="version"
          rules={[
            { required: true, message: t('application.upload.version.required') },
            { match: APPLICATION_VERSION_RULE, message: t('application.upload.version.rule') },
          ]}
        >
          <Input maxLength={64} />
        </Form.Item>
        <Form.Item label={t('application.upload.notesZh')} field="notes_zh">
          <Input.TextArea maxLength={4000} autoSize={{ minRows: 2, maxRows: 5 }} />
        </Form.Item>
        <Form.Item label={t('application.upload.notesEn')} field="notes_en">
          <Input.TextArea maxLength={4000} autoSize={{ minRows: 2, maxRows: 5 }} />
        </Form.Item>
        <Form.Item
          label={t('application.upload.force')}
          field="force_update"
          triggerPropName="checked"
          extra={t('application.upload.force.help')}
        >
          <Switch />
        </Form.Item>
      </Form>
    </Modal>
  );
}
