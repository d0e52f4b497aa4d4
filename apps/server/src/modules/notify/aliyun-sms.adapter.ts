import { randomUUID } from 'node:crypto';
import type { SmsSettings } from '@cellhub/contract/system-settings';
import type { DeliveryResult, OutgoingMessage } from './delivery';
import { DeliveryError, NotConfiguredError } from './delivery-error';
import { callProvider, type CallLimits, excerpt } from './http';
import {
  aliyunCanonicalQuery,
  aliyunPercentEncode,
  aliyunRpcSignature,
  aliyunTimestamp,
} from './sms-signatures';
import { namedParams, smsTemplateCode } from './templates';

/**
 * Answers that retrying cannot fix: the number, template, signature or parameters were refused. Anything else
 * (throttling, balance, system errors, keys an admin can still correct) is retried.
 */
const PERMANENT = new Set([
  'isv.MOBILE_NUMBER_ILLEGAL',
  'isv.MOBILE_COUNT_OVER_LIMIT',
  'isv.TEMPLATE_MISSING_PARAMETERS',
  'isv.TEMPLATE_PARAMS_ILLEGAL',
  'isv.INVALID_JSON_PARAM',
  'isv.INVALID_PARAMETERS',
  'isv.PARAM_LENGTH_LIMIT',
  'isv.PARAM_NOT_SUPPORT_URL',
  'isv.BLACK_KEY_CONTROL_LIMIT',
  'isv.SMS_TEMPLATE_ILLEGAL',
  'isv.SMS_SIGNATURE_ILLEGAL',
  'isv.SMS_CONTENT_ILLEGAL',
]);

/** Mainland numbers as stored (11 digits); others without the leading + (Aliyun's "country code + number"). */
const aliyunPhone = (to: string): string => to.replace(/^\+/, '');

/**
 * Dysmsapi SendSms (version 2017-05-25) with the RPC signature version 1.0 (HMAC-SHA1 over the canonicalised query,
 * docs/notifications.md). GET with every parameter in the query; `OutId` carries our reference so a delivery can be
 * matched with Aliyun's receipts. Success is `Code: "OK"` with a BizId.
 */
export async function sendAliyunSms(
  endpoint: string,
  sms: SmsSettings,
  message: OutgoingMessage,
  now: Date,
  limits: CallLimits,
): Promise<DeliveryResult> {
  const templateCode = smsTemplateCode(sms, message.template);
  if (!sms.access_key_id || !sms.access_key_secret || !sms.sign_name || !templateCode) {
    throw new NotConfiguredError(
      `Aliyun SMS (access key, sign name and the ${message.template} template code)`,
    );
  }
  const params: Record<string, string> = {
    AccessKeyId: sms.access_key_id,
    Action: 'SendSms',
    Format: 'JSON',
    OutId: message.reference,
    PhoneNumbers: aliyunPhone(message.to),
    RegionId: 'cn-hangzhou',
    SignName: sms.sign_name,
    SignatureMethod: 'HMAC-SHA1',
    SignatureNonce: randomUUID(),
    SignatureVersion: '1.0',
    TemplateCode: templateCode,
    TemplateParam: JSON.stringify(namedParams(message.template, message.params)),
    Timestamp: aliyunTimestamp(now),
    Version: '2017-05-25',
  };
  const signature = aliyunRpcSignature(sms.access_key_secret, 'GET', params);
  const url = `${endpoint}/?${aliyunCanonicalQuery(params)}&Signature=${aliyunPercentEncode(signature)}`;
  const answer = await callProvider(url, { method: 'GET' }, limits);
  const body = answer.json as { Code?: string; Message?: string; BizId?: string } | undefined;
  if (answer.status === 200 && body?.Code === 'OK') return { providerMessageId: body.BizId ?? undefined };
  if (!body?.Code) {
    throw new DeliveryError(`Aliyun SMS answered HTTP ${answer.status}: ${excerpt(answer.text)}`);
  }
  throw new DeliveryError(
    `Aliyun SMS ${body.Code}: ${excerpt(body.Message ?? '')}`,
    !PERMANENT.has(body.Code),
  );
}
