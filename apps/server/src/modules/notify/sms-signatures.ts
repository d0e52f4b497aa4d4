import { createHash, createHmac } from 'node:crypto';

/**
 * Request signatures of the two SMS clouds, written from their documentation (docs/notifications.md links them) and
 * checked against the examples the documentation publishes (sms-signatures.test.ts). Pure functions: the adapters
 * sign with them and the local fakes in the tests verify with them — and with an independent recomputation.
 */

// --- Alibaba Cloud RPC signature, version 1.0 (HMAC-SHA1) ----------------------------------------------------------

/**
 * RFC 3986 encoding as Alibaba Cloud specifies it: unreserved characters (A-Z a-z 0-9 - _ . ~) stay, everything else
 * becomes %XY of its UTF-8 bytes, space is %20 (not +), and * is %2A.
 */
export function aliyunPercentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Parameters sorted by name (byte order), each name and value encoded, joined with = and &. */
export function aliyunCanonicalQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .filter((k) => k !== 'Signature')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((k) => `${aliyunPercentEncode(k)}=${aliyunPercentEncode(params[k]!)}`)
    .join('&');
}

/** StringToSign = Method & percentEncode("/") & percentEncode(CanonicalizedQueryString). */
export function aliyunStringToSign(method: string, params: Record<string, string>): string {
  return `${method}&${aliyunPercentEncode('/')}&${aliyunPercentEncode(aliyunCanonicalQuery(params))}`;
}

/** Signature = Base64(HMAC-SHA1(AccessKeySecret + "&", StringToSign)). */
export function aliyunRpcSignature(
  accessKeySecret: string,
  method: string,
  params: Record<string, string>,
): string {
  return createHmac('sha1', `${accessKeySecret}&`)
    .update(aliyunStringToSign(method, params), 'utf8')
    .digest('base64');
}

/** Alibaba Cloud wants ISO 8601 in UTC without milliseconds: 2016-02-23T12:46:24Z. */
export const aliyunTimestamp = (at: Date): string => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

// --- Tencent Cloud API 3.0 signature v3 (TC3-HMAC-SHA256) ----------------------------------------------------------

export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');
const hmac256 = (key: Buffer | string, value: string): Buffer =>
  createHmac('sha256', key).update(value, 'utf8').digest();

export interface Tc3Input {
  secretId: string;
  secretKey: string;
  /** Product name of the credential scope, e.g. `sms`. */
  service: string;
  /** The Host header as sent. */
  host: string;
  /** Unix seconds; its UTC date is the credential date. */
  timestamp: number;
  /** The exact body bytes (as a UTF-8 string). */
  payload: string;
  /** The exact Content-Type header as sent. */
  contentType: string;
  method?: 'POST' | 'GET';
  /** GET only: the query string as sent. */
  query?: string;
}

export interface Tc3Signature {
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
  authorization: string;
  credentialScope: string;
}

const SIGNED_HEADERS = 'content-type;host';

export function tc3Sign(input: Tc3Input): Tc3Signature {
  const method = input.method ?? 'POST';
  const date = new Date(input.timestamp * 1000).toISOString().slice(0, 10);
  const canonicalHeaders = `content-type:${input.contentType.trim().toLowerCase()}\nhost:${input.host.trim().toLowerCase()}\n`;
  const canonicalRequest = [
    method,
    '/',
    method === 'GET' ? (input.query ?? '') : '',
    canonicalHeaders,
    SIGNED_HEADERS,
    sha256Hex(method === 'GET' ? '' : input.payload),
  ].join('\n');
  const credentialScope = `${date}/${input.service}/tc3_request`;
  const stringToSign = [
    'TC3-HMAC-SHA256',
    String(input.timestamp),
    credentialScope,
    sha256Hex(canonicalRequest),
  ].join('\n');
  const secretDate = hmac256(`TC3${input.secretKey}`, date);
  const secretService = hmac256(secretDate, input.service);
  const secretSigning = hmac256(secretService, 'tc3_request');
  const signature = createHmac('sha256', secretSigning).update(stringToSign, 'utf8').digest('hex');
  const authorization =
    `TC3-HMAC-SHA256 Credential=${input.secretId}/${credentialScope}, ` +
    `SignedHeaders=${SIGNED_HEADERS}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, signature, authorization, credentialScope };
}
