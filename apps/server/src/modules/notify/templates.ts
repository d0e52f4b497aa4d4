import type { SmsSettings } from '@cellhub/contract/system-settings';
import type { NotifyTemplate } from './notify.table';

/**
 * Template variables by template. Aliyun receives them by name (TemplateParam JSON), Tencent by position
 * (TemplateParamSet in this order), WeChat as template data fields; templates registered with the provider must use
 * these names, in this order. `test` reuses the verification code template (a code-like `code`), because a
 * provider only sends templates it has approved.
 */
export const TEMPLATE_PARAMS: Record<NotifyTemplate, readonly string[]> = {
  verify_code: ['code'],
  test: ['code'],
  alert_raise: ['device', 'property', 'value', 'time'],
  alert_recover: ['device', 'property', 'value', 'time'],
  sim_expiry: ['iccid', 'phone', 'expiry', 'days'],
  sim_data_low: ['iccid', 'phone', 'remaining', 'percent'],
};

/** The provider's template code (Aliyun SMS_...) or id (Tencent) for a template, '' when not set. */
export function smsTemplateCode(sms: SmsSettings, template: NotifyTemplate): string {
  switch (template) {
    case 'verify_code':
    case 'test':
      return sms.template_verify_code;
    case 'alert_raise':
      return sms.template_alert_raise;
    case 'alert_recover':
      return sms.template_alert_recover;
    case 'sim_expiry':
      return sms.template_sim_expiry;
    case 'sim_data_low':
      return sms.template_sim_data_low;
  }
}

/** The template's variables that were given, by name (Aliyun) — unknown names are left out. */
export function namedParams(
  template: NotifyTemplate,
  params: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(TEMPLATE_PARAMS[template].filter((k) => k in params).map((k) => [k, params[k]!]));
}

/** The template's variables in order (Tencent); a missing one is sent empty so positions stay. */
export const orderedParams = (template: NotifyTemplate, params: Record<string, string>): string[] =>
  TEMPLATE_PARAMS[template].map((k) => params[k] ?? '');
