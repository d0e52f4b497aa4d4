import type { SmsSettings } from '@cellhub/contract/system-settings';
import type { DeliveryResult, OutgoingMessage } from './delivery';
import { DeliveryError, NotConfiguredError } from './delivery-error';
import { callProvider, type CallLimits, excerpt } from './http';
import { tc3Sign } from './sms-signatures';
import { orderedParams, smsTemplateCode } from './templates';

const CONTENT_TYPE = 'application/json; charset=utf-8';

/** Refusals retrying cannot fix (bad number, template, signature or parameters). */
const PERMANENT_PREFIXES = ['InvalidParameterValue.', 'UnsupportedOperation.'];
const PERMANENT = new Set([
  'FailedOperation.TemplateIncorrectOrUnapproved',
  'FailedOperation.SignatureIncorrectOrUnapproved',
  'FailedOperation.PhoneNumberInBlacklist',
  'FailedOperation.PhoneNumberParseFail',
  'FailedOperation.ContainSensitiveWord',
]);
const permanent = (code: string) => PERMANENT.has(code) || PERMANENT_PREFIXES.some((p) => code.startsWith(p));

/** E.164: mainland numbers are stored without +86. */
const e164 = (to: string): string => (to.startsWith('+') ? to : `+86${to}`);

interface TencentAnswer {
  Response?: {
    Error?: { Code?: string; Message?: string };
    SendStatusSet?: { SerialNo?: string; PhoneNumber?: string; Code?: string; Message?: string }[];
    RequestId?: string;
  };
}

/**
 * Tencent Cloud SMS SendSms (API 2021-01-11), signed with TC3-HMAC-SHA256 (docs/notifications.md). A request-level
 * failure is `Response.Error`; otherwise each number has its own status, `Code: "Ok"` meaning accepted.
 * `SessionContext` carries our reference (returned in Tencent's receipts).
 */
export async function sendTencentSms(
  endpoint: string,
  sms: SmsSettings,
  message: OutgoingMessage,
  now: Date,
  limits: CallLimits,
): Promise<DeliveryResult> {
  const templateId = smsTemplateCode(sms, message.template);
  if (!sms.access_key_id || !sms.access_key_secret || !sms.sdk_app_id || !templateId) {
    throw new NotConfiguredError(
      `Tencent Cloud SMS (SecretId/SecretKey, SmsSdkAppId and the ${message.template} template id)`,
    );
  }
  const payload = JSON.stringify({
    PhoneNumberSet: [e164(message.to)],
    SmsSdkAppId: sms.sdk_app_id,
    SignName: sms.sign_name,
    TemplateId: templateId,
    TemplateParamSet: orderedParams(message.template, message.params),
    SessionContext: message.reference,
  });
  const host = new URL(endpoint).host;
  const timestamp = Math.floor(now.getTime() / 1000);
  const { authorization } = tc3Sign({
    secretId: sms.access_key_id,
    secretKey: sms.access_key_secret,
    service: 'sms',
    host,
    timestamp,
    payload,
    contentType: CONTENT_TYPE,
  });
  const answer = await callProvider(
    `${endpoint}/`,
    {
      method: 'POST',
      headers: {
        Authorization: authorization,
        'Content-Type': CONTENT_TYPE,
        // Host is the URL's (node:http sets it); the signature covers the same value.
        'X-TC-Action': 'SendSms',
        'X-TC-Timestamp': String(timestamp),
        'X-TC-Version': '2021-01-11',
        'X-TC-Region': sms.region || 'ap-guangzhou',
      },
      body: payload,
    },
    limits,
  );
  const response = (answer.json as TencentAnswer | undefined)?.Response;
  if (!response) {
    throw new DeliveryError(`Tencent Cloud SMS answered HTTP ${answer.status}: ${excerpt(answer.text)}`);
  }
  if (response.Error) {
    const code = response.Error.Code ?? 'Error';
    throw new DeliveryError(
      `Tencent Cloud SMS ${code}: ${excerpt(response.Error.Message ?? '')}`,
      !permanent(code),
    );
  }
  const status = response.SendStatusSet?.[0];
  if (!status)
    throw new DeliveryError(`Tencent Cloud SMS answered without a send status: ${excerpt(answer.text)}`);
  if (status.Code !== 'Ok') {
    const code = status.Code ?? 'Error';
    throw new DeliveryError(`Tencent Cloud SMS ${code}: ${excerpt(status.Message ?? '')}`, !permanent(code));
  }
  return { providerMessageId: status.SerialNo ?? undefined };
}
