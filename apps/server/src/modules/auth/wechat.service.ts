import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { LoginResult, WechatTicket } from '@cellhub/contract/auth';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { actingOnSelf } from '../../lib/authz';
import type { Actor, Deps, RequestContext } from '../../lib/deps';
import { DEFAULT_MAX_BYTES, outboundFetch } from '../../lib/outbound';
import { writeAudit } from '../audit/audit.service';
import { consume, LIMITS } from '../rate-limit/rate-limit.service';
import { getSetting, SETTING_KEYS } from '../system-settings/system-settings.service';
import { findUserById } from '../users/users.service';
import { users } from '../users/users.table';
import { openSession } from './auth.service';
import { wechatTickets } from './auth.table';

const TICKET_TTL_MS = 5 * 60 * 1000;

interface WechatApp {
  appid: string;
  secret: string;
}

/** Environment first (operators), then the encrypted system settings (admin screen). */
async function wechatApp(deps: Deps): Promise<WechatApp> {
  const appid = deps.config.wechat.appid ?? (await getSetting(deps.db, deps.box, SETTING_KEYS.wechatAppid));
  const secret =
    deps.config.wechat.secret ?? (await getSetting(deps.db, deps.box, SETTING_KEYS.wechatSecret));
  if (!appid || !secret) throw new AppError(20128, 400, 'WeChat sign-in is not configured');
  return { appid, secret };
}

async function createTicket(
  deps: Deps,
  ctx: RequestContext,
  purpose: 'login' | 'bind',
  uid: number | null,
): Promise<WechatTicket> {
  const { appid } = await wechatApp(deps);
  const now = deps.now();
  await consume(deps.db, [LIMITS.wechatTicketIp(ctx.ip)], now);
  const ticket = randomBytes(24).toString('base64url');
  const expiresAt = new Date(now.getTime() + TICKET_TTL_MS);
  await deps.db.insert(wechatTickets).values({ ticket, purpose, uid, expiresAt });
  const qr = new URL(`${deps.config.wechat.oauthUrl}/connect/qrconnect`);
  qr.searchParams.set('appid', appid);
  qr.searchParams.set('redirect_uri', `${deps.config.publicUrl}/api/auth/wechat/callback`);
  qr.searchParams.set('response_type', 'code');
  qr.searchParams.set('scope', 'snsapi_login');
  qr.searchParams.set('state', ticket);
  // The provider requires the fragment to be present.
  return { ticket, qr_url: `${qr.toString()}#wechat_redirect`, expires_at: expiresAt.toISOString() };
}

export const createLoginTicket = (deps: Deps, ctx: RequestContext) => createTicket(deps, ctx, 'login', null);
export const createBindTicket = (deps: Deps, actor: Actor) =>
  createTicket(deps, actor, 'bind', actingOnSelf(actor));

async function liveTicket(deps: Deps, ticket: string, purpose: 'login' | 'bind', uid: number | null) {
  const [row] = await deps.db.select().from(wechatTickets).where(eq(wechatTickets.ticket, ticket));
  // Someone else's bind ticket answers like an unknown one.
  if (!row || row.purpose !== purpose || row.consumedAt || (uid !== null && row.uid !== uid)) {
    throw new AppError(20123);
  }
  if (row.status === 'failed') throw new AppError(20128, 400, row.error ?? undefined);
  if (row.expiresAt <= deps.now()) throw new AppError(20122);
  if (row.status === 'pending') throw new AppError(20124);
  return row;
}

/** Marks the ticket used; false when a concurrent poll got there first. */
async function consumeTicket(deps: Deps, ticket: string, tx = deps.db): Promise<boolean> {
  const rows = await tx
    .update(wechatTickets)
    .set({ consumedAt: deps.now() })
    .where(and(eq(wechatTickets.ticket, ticket), isNull(wechatTickets.consumedAt)))
    .returning({ ticket: wechatTickets.ticket });
  return rows.length > 0;
}

/** GET /api/auth/wechat/qr/:ticket: 20124 until scanned, then the login result once. */
export async function pollLoginTicket(deps: Deps, ctx: RequestContext, ticket: string): Promise<LoginResult> {
  const row = await liveTicket(deps, ticket, 'login', null);
  const user = row.resultUid ? await findUserById(deps.db, row.resultUid) : undefined;
  if (!user) throw new AppError(20128);
  if (user.disabled) throw new AppError(10103);
  return deps.db.transaction(async (tx) => {
    if (!(await consumeTicket(deps, ticket, tx))) throw new AppError(20123);
    return openSession(tx, deps, user, ctx, 'wechat');
  });
}

/** GET /api/user/wechat/qr/:ticket: the binding was done by the callback; this confirms it once. */
export async function pollBindTicket(deps: Deps, actor: Actor, ticket: string): Promise<void> {
  await liveTicket(deps, ticket, 'bind', actingOnSelf(actor));
  if (!(await consumeTicket(deps, ticket))) throw new AppError(20123);
}

export async function unbindWechat(deps: Deps, actor: Actor): Promise<void> {
  const user = await findUserById(deps.db, actingOnSelf(actor));
  if (!user?.wechatOpenid) throw new AppError(10118);
  await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ wechatOpenid: null }).where(eq(users.id, actor.uid));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'wechat_unbind',
      target: `user:${actor.uid}`,
      ip: actor.ip,
    });
  });
}

interface TokenAnswer {
  access_token?: string;
  openid?: string;
  errcode?: number;
  errmsg?: string;
}

/** Exchanges the OAuth code for the user's openid; any failure is a message for the ticket. */
async function exchangeCode(
  deps: Deps,
  app: WechatApp,
  code: string,
): Promise<{ openid: string } | { error: string }> {
  const url = new URL(`${deps.config.wechat.apiUrl}/sns/oauth2/access_token`);
  url.searchParams.set('appid', app.appid);
  url.searchParams.set('secret', app.secret);
  url.searchParams.set('code', code);
  url.searchParams.set('grant_type', 'authorization_code');
  try {
    // WECHAT_API_URL is configurable: the outbound client refuses a private or local one unless OUTBOUND_ALLOW
    // names it.
    const res = await outboundFetch({
      allow: deps.config.outboundAllow,
      timeoutMs: 8000,
      maxBytes: DEFAULT_MAX_BYTES,
    })(url);
    if (!res.ok) return { error: `token exchange answered HTTP ${res.status}` };
    const body = (await res.json()) as TokenAnswer;
    if (body.errcode) return { error: `token exchange failed: ${body.errcode} ${body.errmsg ?? ''}`.trim() };
    if (!body.openid) return { error: 'token exchange answered without openid' };
    return { openid: body.openid };
  } catch (err) {
    deps.log.warn({ err }, 'WeChat token exchange failed');
    return { error: 'token exchange failed' };
  }
}

export type CallbackOutcome = 'signed_in' | 'bound' | 'failed' | 'expired' | 'invalid';

/**
 * GET /api/auth/wechat/callback: the provider redirects the phone here after the scan. Settles the ticket once;
 * the console learns the outcome by polling.
 */
export async function handleCallback(
  deps: Deps,
  ctx: RequestContext,
  query: { code?: string; state?: string },
): Promise<CallbackOutcome> {
  if (!query.state) return 'invalid';
  const [row] = await deps.db.select().from(wechatTickets).where(eq(wechatTickets.ticket, query.state));
  if (!row || row.status !== 'pending' || row.consumedAt) return 'invalid';
  if (row.expiresAt <= deps.now()) return 'expired';

  const settle = async (
    set: Partial<typeof wechatTickets.$inferInsert>,
    effect?: (tx: DbOrTx) => Promise<void>,
  ) =>
    deps.db.transaction(async (tx) => {
      const done = await tx
        .update(wechatTickets)
        .set(set)
        .where(and(eq(wechatTickets.ticket, row.ticket), eq(wechatTickets.status, 'pending')))
        .returning({ ticket: wechatTickets.ticket });
      if (done.length > 0 && effect) await effect(tx);
      return done.length > 0;
    });
  const fail = async (error: string): Promise<CallbackOutcome> => {
    await settle({ status: 'failed', error });
    return 'failed';
  };

  if (!query.code) return fail('the user declined');
  const app = await wechatApp(deps).catch(() => undefined);
  if (!app) return fail('WeChat sign-in is not configured');
  const answer = await exchangeCode(deps, app, query.code);
  if ('error' in answer) return fail(answer.error);

  const [owner] = await deps.db.select().from(users).where(eq(users.wechatOpenid, answer.openid));
  if (row.purpose === 'login') {
    if (!owner) return fail('no account is bound to this WeChat user');
    await settle({ status: 'done', resultUid: owner.id });
    return 'signed_in';
  }
  if (!row.uid) return fail('ticket without account');
  const uid = row.uid;
  if (owner && owner.id !== uid) return fail('this WeChat user is bound to another account');
  try {
    const ok = await settle({ status: 'done', resultUid: uid }, async (tx) => {
      await tx.update(users).set({ wechatOpenid: answer.openid }).where(eq(users.id, uid));
      await writeAudit(tx, { uid, action: 'wechat_bind', target: `user:${uid}`, ip: ctx.ip });
    });
    return ok ? 'bound' : 'invalid';
  } catch {
    // A concurrent bind of the same openid won the unique index.
    return fail('this WeChat user is bound to another account');
  }
}
