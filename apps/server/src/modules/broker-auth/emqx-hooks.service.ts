import { timingSafeEqual } from 'node:crypto';
import type {
  EmqxAuthnRequest,
  EmqxAuthnResult,
  EmqxAuthzRequest,
  EmqxAuthzResult,
} from '@cellhub/contract/broker-auth';
import type { DeviceGateway } from '../../gateway/device-gateway';
import { mayPublish, maySubscribe } from '../../gateway/topic-acl';
import { AppError } from '../../lib/app-error';
import { Rejection } from '../../lib/rejection';

/**
 * The hook secret check: constant time, and a server without BROKER_HOOK_SECRET answers every hook call 401 (the
 * hooks are never open). EMQX reads a 4xx as "ignore", so its authorisation `no_match` must be `deny`
 * (docs/external-brokers.md).
 */
export function checkHookSecret(configured: string | undefined, sent: string | string[] | undefined): void {
  const value = Array.isArray(sent) ? sent[0] : sent;
  const ok =
    configured !== undefined &&
    value !== undefined &&
    Buffer.byteLength(value) === Buffer.byteLength(configured) &&
    timingSafeEqual(Buffer.from(value), Buffer.from(configured));
  if (!ok) throw new AppError(10108, 401, 'broker hook secret missing or wrong');
}

/**
 * EMQX HTTP authentication: the embedded broker's device check (DeviceAuthCache.authenticate: clientid = username
 * = sn, the secret or an `hmac:` password, not disabled). A username that is no device answers `ignore`, so EMQX's
 * next authenticator (the server's own account) decides; devices are never superusers.
 */
export async function emqxAuthenticate(
  gateway: DeviceGateway,
  body: EmqxAuthnRequest,
): Promise<EmqxAuthnResult> {
  const device = body.username ? await gateway.auth.get(body.username) : undefined;
  if (!device) return { result: 'ignore', is_superuser: false };
  const password = body.password === undefined ? undefined : Buffer.from(body.password, 'utf8');
  const r = await gateway.auth.authenticate(body.clientid, body.username, password);
  if (!r.ok) {
    gateway.reject(device, 'connect', new Rejection(`connect refused: ${r.reason}`, 10108));
    return { result: 'deny', is_superuser: false };
  }
  return { result: 'allow', is_superuser: false };
}

/**
 * EMQX HTTP authorisation: the embedded broker's topic ACL (gateway/topic-acl.ts) for the device named by the
 * username; a disabled device, or a clientid that is not its sn, is denied everything. Not a device: `ignore`.
 */
export async function emqxAuthorize(
  gateway: DeviceGateway,
  body: EmqxAuthzRequest,
): Promise<EmqxAuthzResult> {
  const device = body.username ? await gateway.auth.get(body.username) : undefined;
  if (!device) return { result: 'ignore' };
  if (device.disabled || body.clientid !== device.sn) return { result: 'deny' };
  const allowed =
    body.action === 'publish'
      ? mayPublish(device, body.topic) !== undefined
      : body.action === 'subscribe' && maySubscribe(device, body.topic);
  if (!allowed) {
    gateway.reject(
      device,
      'acl',
      new Rejection(`${body.action} to "${body.topic.slice(0, 200)}" is not allowed`, 10108),
    );
  }
  return { result: allowed ? 'allow' : 'deny' };
}
