import { describe, expect, it } from 'vitest';
import type { SystemSettingsView } from '@cellhub/contract/system-settings';
import { formValuesOf, isSetIn } from './components/channel-form';

const view: SystemSettingsView = {
  sms: {
    provider: 'aliyun',
    access_key_id: 'LTAI5t',
    access_key_secret: '******',
    sign_name: '蜂窝物联',
    template_verify_code: 'SMS_1',
    template_alert_raise: '',
    template_alert_recover: '',
    template_sim_expiry: '',
    template_sim_data_low: '',
    sdk_app_id: '',
    region: '',
  },
  email: {
    host: 'smtp.example.com',
    port: 465,
    account: 'a@example.com',
    nickname: '',
    ssl: true,
    password: '',
  },
  wechat: { appid: 'wx1234', secret: '******', template_id: 'T1' },
  test_targets: { phone: null, email: null, wechat_openid: null },
};

describe('system setting forms', () => {
  it('start with stored secrets empty (the mask is never put in a field)', () => {
    expect(formValuesOf(view, 'sms')).toMatchObject({ access_key_id: 'LTAI5t', access_key_secret: '' });
    expect(formValuesOf(view, 'wechat')).toEqual({ appid: 'wx1234', secret: '', template_id: 'T1' });
  });

  it('know which secrets are stored', () => {
    expect(isSetIn(view, 'sms', 'access_key_secret')).toBe(true);
    expect(isSetIn(view, 'email', 'password')).toBe(false);
    expect(isSetIn(view, 'wechat', 'secret')).toBe(true);
  });
});
