// Test support (not shipped): signed open-API requests and verified access keys.
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { canonicalString, requestParams } from '@cellhub/contract/signature';
import { signCanonical } from '../modules/access-keys/signed-auth';
import type { TestApp } from './app';

export interface SignedOptions {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  payload?: Record<string, unknown>;
  key: { access_key: string; secret: string };
  /** Unix seconds; the app's clock by default. */
  ts?: number;
  nonce?: string;
  /** Sign this instead of `payload` (a body changed after signing). */
  signedPayload?: Record<string, unknown>;
  /** Sign this URL instead of `url` (e.g. the query in another order). */
  signedUrl?: string;
  remoteAddress?: string;
  /** Headers to drop or replace after signing. */
  headers?: Record<string, string | undefined>;
}

export const newNonce = (): string => randomBytes(12).toString('hex');

/** The four headers of a signed request. */
export function signHeaders(
  t: TestApp,
  o: Pick<SignedOptions, 'method' | 'url' | 'payload' | 'key' | 'ts' | 'nonce'>,
): Record<string, string> {
  const ts = String(o.ts ?? Math.floor(t.clock.now().getTime() / 1000));
  const nonce = o.nonce ?? newNonce();
  const params = requestParams(o.method, o.url, o.payload)!;
  return {
    'x-n-accesskey': o.key.access_key,
    'x-n-ts': ts,
    'x-n-nonce': nonce,
    'x-n-signature': signCanonical(o.key.secret, canonicalString({ path: o.url, ts, nonce, params })),
  };
}

/** A request signed with the key (no Bearer token). */
export function signed(t: TestApp, o: SignedOptions): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {
    ...signHeaders(t, {
      method: o.method,
      url: o.signedUrl ?? o.url,
      payload: o.signedPayload ?? o.payload,
      key: o.key,
      ts: o.ts,
      nonce: o.nonce,
    }),
  };
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  return t.app.inject({
    method: o.method,
    url: o.url,
    headers,
    ...(o.payload !== undefined ? { payload: o.payload } : {}),
    ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}),
  });
}

/** Gives the user a phone (through the real SMS code path) so keys can be verified by SMS. */
export async function givePhone(t: TestApp, token: string, phone: string): Promise<void> {
  const sent = await t.inject({
    method: 'POST',
    url: '/api/user/smscode',
    token,
    payload: { phone, purpose: 'change_phone' },
  });
  if (sent.statusCode !== 200) throw new Error(sent.body);
  const code = t.sms.lastCode(phone);
  const res = await t.inject({
    method: 'PUT',
    url: '/api/user/phone',
    token,
    payload: { phone, captcha: code },
  });
  if (res.statusCode !== 200) throw new Error(res.body);
}

/** Creates a key and verifies it by SMS (the user needs a phone: givePhone). */
export async function verifiedKey(
  t: TestApp,
  token: string,
  phone: string,
  body: Record<string, unknown>,
): Promise<{ access_key: string; secret: string }> {
  const res = await t.inject({ method: 'POST', url: '/api/access-keys', token, payload: body });
  if (res.statusCode !== 200) throw new Error(res.body);
  const key = (res.json() as { data: { access_key: string; secret: string } }).data;
  const sent = await t.inject({
    method: 'POST',
    url: `/api/access-keys/${key.access_key}/verify-code`,
    token,
    payload: { channel: 'sms' },
  });
  if (sent.statusCode !== 200) throw new Error(sent.body);
  const v = await t.inject({
    method: 'POST',
    url: `/api/access-keys/${key.access_key}/verify`,
    token,
    payload: { code: t.sms.lastCode(phone) },
  });
  if (v.statusCode !== 200) throw new Error(v.body);
  return key;
}
