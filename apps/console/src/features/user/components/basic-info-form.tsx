import type { ProfileUpdateBody, UserInfo } from '@cellhub/contract/auth';
import { Button, DatePicker, Form, Input, Message, Radio, Select, Space } from '@arco-design/web-react';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { USER_INFO_KEY } from '../../../lib/user';
import { updateProfile } from '../api';
import locale from '../locale';
import styles from '../pages/user-setting-page.module.css';

export const PROFILE_MAX = 200;

type Values = Required<Omit<ProfileUpdateBody, 'birthday' | 'country'>> & {
  birthday?: string;
  country?: string;
};

// Stored as ISO region codes so the name follows the console language; anything typed in is kept as text.
const REGIONS = [
  'CN',
  'SG',
  'MY',
  'TH',
  'VN',
  'ID',
  'PH',
  'IN',
  'JP',
  'KR',
  'AU',
  'US',
  'CA',
  'GB',
  'DE',
  'FR',
  'BR',
];

function fromInfo(info: UserInfo): Values {
  return {
    email: info.email,
    nickname: info.nickname,
    gender: info.gender,
    birthday: info.birthday ?? undefined,
    country: info.country || undefined,
    area: info.area,
    address: info.address,
    profile: info.profile,
  };
}

export default function BasicInfoForm({ info }: { info: UserInfo }) {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);
  const queryClient = useQueryClient();
  const initial = useMemo(() => fromInfo(info), [info]);

  const regionOptions = useMemo(() => {
    const names = new Intl.DisplayNames([lang], { type: 'region' });
    return REGIONS.map((code) => ({ value: code, label: names.of(code) ?? code }));
  }, [lang]);

  const submit = async (v: Values) => {
    setSaving(true);
    try {
      await updateProfile({
        email: v.email?.trim() ?? '',
        nickname: v.nickname?.trim() ?? '',
        gender: v.gender ?? 'unknown',
        birthday: v.birthday || null,
        country: v.country?.trim() ?? '',
        area: v.area?.trim() ?? '',
        address: v.address?.trim() ?? '',
        profile: v.profile ?? '',
      });
      Message.success(t('userSetting.basic.saved'));
      await queryClient.invalidateQueries({ queryKey: USER_INFO_KEY });
    } catch {
      // The request layer has shown why.
    } finally {
      setSaving(false);
    }
  };

  return (
    <Form
      form={form}
      className={styles.basicForm}
      initialValues={initial}
      labelCol={{ span: 7 }}
      wrapperCol={{ span: 17 }}
      onSubmit={(v: Values) => void submit(v)}
      autoComplete="off"
    >
      <Form.Item
        label={t('userSetting.basic.email')}
        field="email"
        rules={[{ type: 'email', message: t('userSetting.basic.email.invalid') }]}
      >
        <Input placeholder={t('userSetting.basic.email.placeholder')} maxLength={128} />
      </Form.Item>
      <Form.Item label={t('userSetting.basic.nickname')} field="nickname">
        <Input placeholder={t('userSetting.basic.nickname.placeholder')} maxLength={32} />
      </Form.Item>
      <Form.Item label={t('userSetting.basic.gender')} field="gender">
        <Radio.Group>
          <Radio value="male">{t('userSetting.basic.gender.male')}</Radio>
          <Radio value="female">{t('userSetting.basic.gender.female')}</Radio>
          <Radio value="unknown">{t('userSetting.basic.gender.unknown')}</Radio>
        </Radio.Group>
      </Form.Item>
      <Form.Item label={t('userSetting.basic.birthday')} field="birthday">
        <DatePicker
          style={{ width: '100%' }}
          placeholder={t('userSetting.basic.birthday.placeholder')}
          disabledDate={(d) => d.isAfter(new Date())}
        />
      </Form.Item>
      <Form.Item label={t('userSetting.basic.country')} field="country">
        <Select
          placeholder={t('userSetting.basic.country.placeholder')}
          options={regionOptions}
          showSearch
          allowCreate
          allowClear
        />
      </Form.Item>
      <Form.Item label={t('userSetting.basic.area')} field="area">
        <Input placeholder={t('userSetting.basic.area.placeholder')} maxLength={128} />
      </Form.Item>
      <Form.Item label={t('userSetting.basic.address')} field="address">
        <Input placeholder={t('userSetting.basic.address.placeholder')} maxLength={200} />
      </Form.Item>
      <Form.Item
        label={t('userSetting.basic.profile')}
        field="profile"
        rules={[{ maxLength: PROFILE_MAX, message: t('userSetting.basic.profile.tooLong') }]}
      >
        {/* errorOnly: an over-long paste stays visible and is flagged, instead of being cut silently. */}
        <Input.TextArea
          placeholder={t('userSetting.basic.profile.placeholder')}
          maxLength={{ length: PROFILE_MAX, errorOnly: true }}
          showWordLimit
          autoSize={{ minRows: 3, maxRows: 6 }}
        />
      </Form.Item>
      <Form.Item wrapperCol={{ offset: 7, span: 17 }}>
        <Space>
          <Button type="primary" htmlType="submit" loading={saving}>
            {t('common.save')}
          </Button>
          <Button onClick={() => form.setFieldsValue(initial)}>{t('common.reset')}</Button>
        </Space>
      </Form.Item>
    </Form>
  );
}
