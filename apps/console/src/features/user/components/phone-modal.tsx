import { CAPTCHA_RULE, PHONE_RULE } from '@cellhub/contract/auth';
import { Form, Input, Message, Modal } from '@arco-design/web-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { errorText } from '@cellhub/contract/errors';
import { USER_INFO_KEY } from '../../../lib/user';
import { changePhone, sendPhoneCode } from '../api';
import locale from '../locale';
import { showApiError } from '../show-api-error';
import SmsCodeInput from '../../../components/sms-code-input';

interface Values {
  phone: string;
  captcha: string;
}

// 20125 same number, 20129 taken by another account, 20121/20119 wrong or missing code.
const FIELD_BY_CODE: Record<number, keyof Values> = {
  20125: 'phone',
  20129: 'phone',
  20121: 'captcha',
  20119: 'captcha',
};

interface Props {
  visible: boolean;
  onClose: () => void;
  /** The number bound now; asking for the same one again is refused before any SMS is sent. */
  currentPhone: string;
}

export default function PhoneModal({ visible, onClose, currentPhone }: Props) {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);
  const queryClient = useQueryClient();

  const sendCode = async () => {
    const { phone } = await form.validate(['phone']);
    await sendPhoneCode((phone ?? '').trim());
    Message.success(t('userSetting.phoneChange.sent'));
  };

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validate();
    } catch {
      return;
    }
    setSaving(true);
    try {
      await changePhone({ phone: values.phone.trim(), captcha: values.captcha.trim() });
      Message.success(t('userSetting.phoneChange.done'));
      await queryClient.invalidateQueries({ queryKey: USER_INFO_KEY });
      onClose();
    } catch (e) {
      showApiError(form, e, FIELD_BY_CODE);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      title={t('userSetting.phoneChange.title')}
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
          label={t('userSetting.phoneChange.phone')}
          field="phone"
          rules={[
            { required: true, message: t('userSetting.phoneChange.phone.required') },
            { match: PHONE_RULE, message: t('userSetting.phoneChange.phone.invalid') },
            {
              validator: (value: string | undefined, cb) =>
                cb(currentPhone && value?.trim() === currentPhone ? errorText(20125, lang) : undefined),
            },
          ]}
        >
          <Input
            placeholder={t('userSetting.phoneChange.phone.placeholder')}
            maxLength={16}
            autoComplete="tel"
          />
        </Form.Item>
        <Form.Item
          label={t('userSetting.phoneChange.captcha')}
          field="captcha"
          rules={[
            { required: true, message: t('userSetting.phoneChange.captcha.required') },
            { match: CAPTCHA_RULE, message: t('userSetting.phoneChange.captcha.placeholder') },
          ]}
        >
          <SmsCodeInput placeholder={t('userSetting.phoneChange.captcha.placeholder')} onSend={sendCode} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
