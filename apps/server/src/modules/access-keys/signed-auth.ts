import { createHmac, timingSafeEqual } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { eq } from 'drizzle-orm';
import { ACCESS_KEY_RULE } from '@cellhub/contract/access-keys';
import { hasScope } from '../../lib/authz';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps, RequestContext } from '../../lib/deps';
import {
  canonicalString,
  requestParams,
  SIGNATURE_HEADERS,
  SIGNATURE_HEX_RULE,
  SIGNATURE_NONCE_RULE,
  SIGNATURE_TS_RULE,
  SIGNATURE_WINDOW_SECONDS,
} from '@cellhub/contract/signature';
import { users } from '../users/users.table';
import { accessKeyNonces, accessKeys, type AccessKeyRow, accessKeyUses } from './access-keys.table';
import { secretContext } from './access-keys.service';
import { openRouteScope } from './open-routes';

/** HMAC-SHA256 of the canonical string, lowercase hex (the server's half of contract/signature.ts). */
export const signCanonical = (secret: string, canonical: string): string =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(canonical, 'utf8').digest('hex');

/** What the check needs from the request, after Fastify parsed the body. */
export interface SignedRequest extends RequestContext {
  method: string;
  /** The raw URL as sent (path and query). */
  url: string;
  /** Fastify's route pattern (`/api/devices/:sn`), undefined when no route matched. */
  routeUrl: string | undefined;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** The key a request named, once it exists: its use row is written whatever the outcome. */
export interface KeyUse {
  keyId: number;
  method: string;
  route: string;
  ip: string;
  code: number;
}

const header = (h: SignedRequest['headers'], name: string): string | undefined => {
  const v = h[name];
  return typeof v === 'string' ? v : undefined;
};

/** Whether `ip` is in the allow-list (addresses and CIDR ranges, v4 and v6). An empty list allows any address. */
export function ipAllowed(list: readonly string[], ip: string): boolean {
  if (list.length === 0) return true;
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d; compare it as the v4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const addr = mapped ? mapped[1]! : ip;
  const family = isIPv4(addr) ? 'ipv4' : isIPv6(addr) ? 'ipv6' : undefined;
  if (!family) return false;
  const block = new BlockList();
  for (const entry of list) {
    const [a, bits] = entry.split('/');
    const f = isIPv4(a!) ? 'ipv4' : 'ipv6';
    try {
      if (bits === undefined) block.addAddress(a!, f);
      else block.addSubnet(a!, Number(bits), f);
    } catch {
      // An entry the contract let through but Node cannot read matches nothing.
    }
  }
  return block.check(addr, family);
}

/** last_used_at is written at most this often per key and address (per instance). */
const LAST_USED_EVERY_MS = 5_000;

/**
 * Checks a signed request (headers `x-n-accesskey`, `x-n-ts`, `x-n-nonce`, `x-n-signature`) and returns the actor
 * it acts as: the key's owner limited to the key's scopes. In this order, each with its code: headers complete and
 * well formed (10220), key exists (10220), timestamp within ±300 s (10222), signature (10221), enabled (10224), not
 * expired (10225), verified (10226), owner account enabled (10103), address in the allow-list (10228), nonce not
 * used before (10223; the insert into access_key_nonces fails on any instance sharing the database), route on the
 * open-route table with a scope the key has (10227). `use` is filled as soon as the key is known, so the caller
 * records the attempt with whatever code it ends with.
 */
export async function authenticateSigned(
  deps: Deps,
  req: SignedRequest,
  use: { current?: KeyUse },
  lastUsed: Map<number, { at: number; ip: string }>,
): Promise<Actor> {
  const ak = header(req.headers, SIGNATURE_HEADERS.accessKey);
  if (!ak || !ACCESS_KEY_RULE.test(ak)) throw new AppError(10220);
  const [found] = await deps.db
    .select({ key: accessKeys, username: users.username, role: users.role, disabled: users.disabled })
    .from(accessKeys)
    .innerJoin(users, eq(users.id, accessKeys.uid))
    .where(eq(accessKeys.accessKey, ak));
  if (!found) throw new AppError(10220);
  const key: AccessKeyRow = found.key;
  use.current = {
    keyId: key.id,
    method: req.method,
    route: req.routeUrl ?? req.url.split('?')[0]!.slice(0, 200),
    ip: req.ip,
    code: 0,
  };

  const ts = header(req.headers, SIGNATURE_HEADERS.ts);
  const nonce = header(req.headers, SIGNATURE_HEADERS.nonce);
  const signature = header(req.headers, SIGNATURE_HEADERS.signature);
  if (
    !ts ||
    !nonce ||
    !signature ||
    !SIGNATURE_TS_RULE.test(ts) ||
    !SIGNATURE_NONCE_RULE.test(nonce) ||
    !SIGNATURE_HEX_RULE.test(signature)
  ) {
    throw new AppError(10220);
  }
  const now = deps.now();
  if (Math.abs(Number(ts) - now.getTime() / 1000) > SIGNATURE_WINDOW_SECONDS) throw new AppError(10222);

  const params = requestParams(req.method, req.url, req.body);
  if (!params) throw new AppError(10221);
  let secret: string;
  try {
    secret = deps.box.decrypt(key.secret, secretContext(key.accessKey));
  } catch (err) {
    // Sealed under another SECRET_KEY (or damaged): no signature can match; the operator sees why in the log.
    deps.log.error({ err, accessKey: key.accessKey }, 'access key secret does not open');
    throw new AppError(10221);
  }
  const expected = Buffer.from(
    signCanonical(secret, canonicalString({ path: req.url, ts, nonce, params })),
    'hex',
  );
  const given = Buffer.from(signature.toLowerCase(), 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new AppError(10221);

  if (!key.enabled) throw new AppError(10224);
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) throw new AppError(10225);
  if (!key.verified) throw new AppError(10226);
  if (found.disabled) throw new AppError(10103);
  if (!ipAllowed(key.ipAllow, req.ip)) throw new AppError(10228);

  const fresh = await deps.db
    .insert(accessKeyNonces)
    .values({ accessKeyId: key.id, nonce, seenAt: now })
    .onConflictDoNothing()
    .returning({ nonce: accessKeyNonces.nonce });
  if (fresh.length === 0) throw new AppError(10223);

  const actor: Actor = {
    ip: req.ip,
    userAgent: req.userAgent,
    uid: key.uid,
    username: found.username,
    role: found.role,
    sessionId: 0,
    scopes: key.scopes,
  };
  const scope = openRouteScope(req.method, req.routeUrl);
  // Asked of the authorisation layer, so the decision is recorded where every other one is.
  if (!scope || !hasScope(actor, scope)) throw new AppError(10227);

  const last = lastUsed.get(key.id);
  if (!last || last.ip !== req.ip || now.getTime() - last.at >= LAST_USED_EVERY_MS) {
    lastUsed.set(key.id, { at: now.getTime(), ip: req.ip });
    // updatedat kept: a use is not an edit of the key.
    await deps.db
      .update(accessKeys)
      .set({ lastUsedAt: now, lastUsedIp: req.ip, updatedat: key.updatedat })
      .where(eq(accessKeys.id, key.id));
  }
  return actor;
}

/** Writes the use row of a signed request; never fails the request it records. */
export async function recordUse(deps: Deps, use: KeyUse, status: number): Promise<void> {
  try {
    await deps.db.insert(accessKeyUses).values({
      accessKeyId: use.keyId,
      at: deps.now(),
      method: use.method,
      route: use.route,
      ip: use.ip,
      code: use.code,
      status,
    });
  } catch (err) {
    deps.log.warn({ err }, 'access key use not recorded');
  }
}
