import { PASSWORD_RULE, type UserListItem } from '@cellhub/contract/auth';
import { Alert, Form, Input, Message, Modal } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import { useResetUserPassword } from '../api';
import locale from '../locale';

export default function ResetPasswordModal({
  user,
  onClose,
}: {
  user: UserListItem | null;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<{ new_password: string }>();
  const reset = useResetUserPassword();

  const submit = async () => {
    if (!user) return;
    let values: { new_password: string };
    try {
      values = await form.validate();
    } catch {
      return;
    }
    reset.mutate(
      { uid: user.uid, new_password: values.new_password },
      {
        onSuccess: () => {
          Message.success(t('users.resetPassword.done'));
          onClose();
        },
      },
    );
  };

  return (
    <Modal
      title={t('users.resetPassword.title', { username: user?.username ?? '' })}
      visible={user !== null}
      onOk={submit}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      confirmLoading={reset.isPending}
      onCancel={onClose}
      afterClose={() => form.resetFields()}
      unmountOnExit
    >
      <Alert type="warning" content={t('users.resetPassword.hint')} style={{ marginBottom: 16 }} />
      <Form form={form} layout="vertical" autoComplete="off">
        <Form.Item
          label={t('users.resetPassword.new')}
          field="new_password"
          extra={t('users.resetPassword.rule')}
          rules={[
            { required: true, message: t('users.resetPassword.required') },
            { match: PASSWORD_RULE, message: t('users.form.password.ruleError') },
          ]}
        >
          <Input.Password
            placeholder={t('users.resetPassword.placeholder')}
            autoComplete="new-password"
            maxLength={64}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
