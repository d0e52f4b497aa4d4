import { DeliveryError, NotConfiguredError } from './delivery-error';
import { callLimits, callProvider, excerpt } from './http';
import type { ChannelDeps, DeliveryResult, OutgoingMessage } from './delivery';
import { getSetting, setSetting } from '../system-settings/system-settings.service';

export interface WechatApp {
  apiUrl: string;
  appid?: string;
  secret?: string;
  templateId: string;
}

/** errcodes that mean "this access token is no longer good": fetch a new one and try once more. */
const TOKEN_ERRORS = new Set([40001, 40014, 42001]);
/** The recipient cannot receive it (invalid openid, not following, refused template messages, bad data). */
const PERMANENT = new Set([40003, 43004, 43101, 47003]);
/** Renew this long before WeChat's expiry, so a token never dies in flight. */
const EARLY_RENEW_S = 300;
const TOKEN_KEY = 'wechat.access_token';

interface CachedToken {
  appid: string;
  token: string;
  /** ms since epoch */
  expiresAt: number;
}

// Per process; the token is also kept (sealed) in system_settings so instances share one instead of each fetching
// its own — every /cgi-bin/token call starts a new token's life and the old one ends five minutes later.
const memory = new Map<string, CachedToken>();
/** Fetches in flight, so concurrent sends share one new token. */
const inFlight = new Map<string, Promise<string>>();

function accessToken(deps: ChannelDeps, app: Required<WechatApp>, force: boolean): Promise<string> {
  const key = `${app.apiUrl}|${app.appid}`;
  const slot = `${key}|${force ? 'renew' : 'get'}`;
  const running = inFlight.get(slot);
  if (running) return running;
  const next = loadToken(deps, app, key, force).finally(() => inFlight.delete(slot));
  inFlight.set(slot, next);
  return next;
}

async function loadToken(
  deps: ChannelDeps,
  app: Required<WechatApp>,
  key: string,
  force: boolean,
): Promise<string> {
  const now = deps.now().getTime();
  if (!force) {
    const cached = memory.get(key);
    if (cached && cached.expiresAt > now) return cached.token;
    const stored = await getSetting(deps.db, deps.box, TOKEN_KEY);
    if (stored) {
      const parsed = JSON.parse(stored) as CachedToken & { apiUrl?: string };
      if (parsed.appid === app.appid && parsed.apiUrl === app.apiUrl && parsed.expiresAt > now) {
        memory.set(key, parsed);
        return parsed.token;
      }
    }
  }
  const url = new URL(`${app.apiUrl}/cgi-bin/token`);
  url.searchParams.set('grant_type', 'client_credential');
  url.searchParams.set('appid', app.appid);
  url.searchParams.set('secret', app.secret);
  const answer = await callProvider(url.toString(), { method: 'GET' }, callLimits(deps.config));
  const body = answer.json as {
    access_token?: string;
    expires_in?: number;
    errcode?: number;
    errmsg?: string;
  };
  if (!body?.access_token) {
    throw new DeliveryError(
      body?.errcode
        ? `WeChat token errcode ${body.errcode}: ${excerpt(body.errmsg ?? '')}`
        : `WeChat token answered HTTP ${answer.status}: ${excerpt(answer.text)}`,
    );
  }
  const lifetime = Math.max(60, (body.expires_in ?? 7200) - EARLY_RENEW_S);
  const cached: CachedToken = {
    appid: app.appid,
    token: body.access_token,
    expiresAt: now + lifetime * 1000,
  };
  memory.set(key, cached);
  await setSetting(deps.db, deps.box, TOKEN_KEY, JSON.stringify({ ...cached, apiUrl: app.apiUrl }), {
    secret: true,
  });
  return cached.token;
}

/** Test hook: forget tokens cached in this process. */
export function forgetWechatTokens(): void {
  memory.clear();
}

/**
 * A template message (`/cgi-bin/message/template/send`) to an openid. Data fields: `content` (the message text) and
 * the message's variables (device, property, value, time, code), each as `{ value }`. A token WeChat calls invalid
 * or expired (40001, 40014, 42001) is replaced and the send tried once more.
 */
export async function sendWechatTemplate(
  deps: ChannelDeps,
  app: WechatApp,
  message: OutgoingMessage,
): Promise<DeliveryResult> {
  if (!app.appid || !app.secret || !app.templateId) {
    throw new NotConfiguredError('WeChat template messages (appid, secret and template id)');
  }
  const full = app as Required<WechatApp>;
  const data: Record<string, { value: string }> = { content: { value: message.body } };
  for (const [k, v] of Object.entries(message.params)) data[k] = { value: v };
  const payload = JSON.stringify({ touser: message.to, template_id: app.templateId, data });

  for (let attempt = 0; ; attempt++) {
    const token = await accessToken(deps, full, attempt > 0);
    const url = `${app.apiUrl}/cgi-bin/message/template/send?access_token=${encodeURIComponent(token)}`;
    const answer = await callProvider(
      url,
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: payload },
      callLimits(deps.config),
    );
    const body = answer.json as { errcode?: number; errmsg?: string; msgid?: number | string } | undefined;
    if (body?.errcode === 0)
      return { providerMessageId: body.msgid === undefined ? undefined : String(body.msgid) };
    if (body?.errcode !== undefined && TOKEN_ERRORS.has(body.errcode) && attempt === 0) continue;
    if (body?.errcode === undefined) {
      throw new DeliveryError(`WeChat answered HTTP ${answer.status}: ${excerpt(answer.text)}`);
    }
    throw new DeliveryError(
      `WeChat errcode ${body.errcode}: ${excerpt(body.errmsg ?? '')}`,
      !PERMANENT.has(body.errcode),
    );
  }
}
