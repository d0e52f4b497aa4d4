import type { NotifyChannelName } from '@cellhub/contract/system-settings';
import { Alert, Form, Input, Message, Modal } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import type { Translate } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useSendTest } from '../api';

interface Failure {
  title: string;
  reason?: string;
}

/**
 * "Send test": one message through the saved settings, now. A refusal stays in the dialog with the code's text and
 * the provider's own words (details.reason), so the admin can fix the settings and try again.
 */
export default function SendTestDialog({
  channel,
  visible,
  dirty,
  defaultTo,
  onClose,
  t,
}: {
  channel: NotifyChannelName;
  visible: boolean;
  dirty: boolean;
  defaultTo: string;
  onClose: () => void;
  t: Translate;
}) {
  const [form] = Form.useForm<{ to: string }>();
  const send = useSendTest(channel);
  const [failure, setFailure] = useState<Failure | null>(null);

  useEffect(() => {
    if (!visible) return;
    setFailure(null);
    form.setFieldsValue({ to: defaultTo });
  }, [visible, defaultTo, form]);

  const submit = async () => {
    const { to } = await form.validate();
    setFailure(null);
    try {
      await send.mutateAsync(to.trim());
      Message.success(t('systemSetting.test.sent'));
      onClose();
    } catch (e) {
      if (!(e instanceof ApiError) || e.httpStatus === 403) return;
      if (e.code === 10113 && Array.isArray(e.details) && e.details.length) {
        const [first] = e.details as { field: string; message: string }[];
        form.setFields({ to: { error: { message: first!.message } } });
        return;
      }
      const details = e.details as { reason?: unknown } | undefined;
      setFailure({
        title: e.message || t('systemSetting.test.failed'),
        reason: typeof details?.reason === 'string' ? details.reason : undefined,
      });
    }
  };

  return (
    <Modal
      title={t(`systemSetting.test.title.${channel}`)}
      visible={visible}
      onOk={() => void submit()}
      onCancel={onClose}
      okText={t('systemSetting.test.send')}
      cancelText={t('systemSetting.test.cancel')}
      confirmLoading={send.isPending}
      unmountOnExit
      autoFocus={false}
    >
      <Alert
        type={dirty ? 'warning' : 'info'}
        content={dirty ? t('systemSetting.test.unsaved') : t('systemSetting.test.hint')}
        style={{ marginBottom: 16 }}
      />
      <Form form={form} layout="vertical" onSubmit={() => void submit()}>
        <Form.Item
          label={t(`systemSetting.test.to.${channel}`)}
          field="to"
          rules={[{ required: true, message: t('systemSetting.test.to.required') }]}
        >
          <Input maxLength={254} autoFocus />
        </Form.Item>
      </Form>
      {failure && (
        <Alert
          type="error"
          title={failure.title}
          content={failure.reason}
          data-testid="system-setting-test-error"
        />
      )}
    </Modal>
  );
}
