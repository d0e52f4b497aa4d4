import { PASSWORD_RULE } from '@cellhub/contract/auth';
import { Form, Input, Message, Modal } from '@arco-design/web-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useLocale } from '../../../lib/i18n';
import { clearSession } from '../../../lib/user';
import { changePassword } from '../api';
import locale from '../locale';
import { showApiError } from '../show-api-error';

interface Values {
  old_password: string;
  new_password: string;
  confirm_password: string;
}

const FIELD_BY_CODE: Record<number, keyof Values> = {
  31004: 'old_password',
  31005: 'new_password',
  11013: 'confirm_password',
};

export default function PasswordModal({ visible, onClose }: { visible: boolean; onClose: () => void }) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);
  const queryClient = useQueryClient();
  const navigate = useNavigate();

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validate();
    } catch {
      return;
    }
    setSaving(true);
    try {
      await changePassword(values);
      // The server revoked every token of this account, this one included: sign in again.
      Message.success(t('userSetting.password.changed'));
      clearSession(queryClient);
      void navigate('/login', { replace: true });
    } catch (e) {
      showApiError(form, e, FIELD_BY_CODE);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      title={t('userSetting.password.title')}
      visible={visible}
      onOk={submit}
      confirmLoading={saving}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      onCancel={onClose}
      afterClose={() => form.resetFields()}
      unmountOnExit
    >
      <Form form={form} layout="vertical" autoComplete="off">
        <Form.Item
          label={t('userSetting.password.old')}
          field="old_password"
          rules={[{ required: true, message: t('userSetting.password.old.required') }]}
        >
          <Input.Password
            placeholder={t('userSetting.password.old.placeholder')}
            autoComplete="current-password"
          />
        </Form.Item>
        <Form.Item
          label={t('userSetting.password.new')}
          field="new_password"
          extra={t('userSetting.password.rule')}
          rules={[
            { required: true, message: t('userSetting.password.new.required') },
            { match: PASSWORD_RULE, message: t('userSetting.password.rule') },
          ]}
        >
          <Input.Password
            placeholder={t('userSetting.password.new.placeholder')}
            autoComplete="new-password"
            maxLength={64}
          />
        </Form.Item>
        <Form.Item
          label={t('userSetting.password.confirm')}
          field="confirm_password"
          dependencies={['new_password']}
          rules={[
            { required: true, message: t('userSetting.password.confirm.required') },
            {
              validator: (value: string | undefined, cb) =>
                cb(
                  value && value !== form.getFieldValue('new_password')
                    ? t('userSetting.password.mismatch')
                    : undefined,
                ),
            },
          ]}
        >
          <Input.Password
            placeholder={t('userSetting.password.confirm.placeholder')}
            autoComplete="new-password"
            maxLength={64}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
