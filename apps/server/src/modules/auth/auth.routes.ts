import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  loginBody,
  loginPhoneBody,
  loginResult,
  registerBody,
  registerResult,
  smsCodeBody,
  wechatCallbackQuery,
  wechatTicket,
  wechatTicketParams,
} from '@cellhub/contract/auth';
import { ok, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf, requestContext } from '../../plugins/auth';
import { login, loginByPhone, logout, register } from './auth.service';
import { sendSmsCode } from './sms-code.service';
import { createLoginTicket, handleCallback, pollLoginTicket, type CallbackOutcome } from './wechat.service';

const PUBLIC = { auth: 'public' } as const;

const CALLBACK_TEXT: Record<CallbackOutcome, [string, string]> = {
  signed_in: ['Signed in', '已登录，请回到电脑上继续操作。 Signed in: continue on your computer.'],
  bound: ['WeChat bound', '微信已绑定，请回到电脑上继续操作。 WeChat is bound: continue on your computer.'],
  failed: ['Sign-in failed', '扫码登录失败，请在电脑上重试。 Sign-in failed: try again on your computer.'],
  expired: [
    'QR code expired',
    '二维码已过期，请在电脑上刷新。 The QR code expired: refresh it on your computer.',
  ],
  invalid: ['Invalid QR code', '二维码无效。 This QR code is not valid.'],
};

function callbackPage(outcome: CallbackOutcome): string {
  const [title, text] = CALLBACK_TEXT[outcome];
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title></head><body style="font-family:sans-serif;text-align:center;padding:3em 1em"><h2>${title}</h2><p>${text}</p></body></html>`;
}

export async function authRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/api/auth/login',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'Sign in with username and password',
        description:
          'Wrong credentials: 31001. Disabled account: 10103. 5 failures per account and address and 30 per address ' +
          'in 15 minutes, then 429; an account guessed at from many addresses is slowed (up to 4 s), never locked. ' +
          '503 / 10105 when the limiter cannot record.',
        security: [],
        body: loginBody,
        response: responses(loginResult),
      },
    },
    async (req) => ok(await login(app.deps, requestContext(req), req.body)),
  );

  r.post(
    '/api/auth/login/phone',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'Sign in with phone and SMS code',
        description: 'Wrong or expired code, or no account with this phone (not told apart): 20121.',
        security: [],
        body: loginPhoneBody,
        response: responses(loginResult),
      },
    },
    async (req) => ok(await loginByPhone(app.deps, requestContext(req), req.body)),
  );

  r.post(
    '/api/auth/register',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'Create an account (role user)',
        description:
          'Passwords differ: 11013. Username taken: 31003. With a phone a code (purpose register) is required: ' +
          '20119 missing, 20121 wrong, then 20129 if the number is already used.',
        security: [],
        body: registerBody,
        response: responses(registerResult),
      },
    },
    async (req) => ok(await register(app.deps, requestContext(req), req.body)),
  );

  r.post(
    '/api/auth/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'Sign out: the token stops working at once',
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await logout(app.deps, actorOf(req));
      return ok(null);
    },
  );

  r.post(
    '/api/user/smscode',
    {
      config: { auth: 'optional' },
      schema: {
        tags: ['auth'],
        summary: 'Send a 6-digit SMS code (valid 5 minutes, 5 attempts, single use)',
        description:
          "purpose login, register or change_phone (signed in; the caller's own number 20125). A code is sent " +
          'to any number and the answer and the work are the same whether the number has an account or not: ' +
          'a sign-in code for a number without an account is refused as wrong (20121), registration answers ' +
          '20129 for a taken number and a phone change 10110, each only after the right code. One per phone per ' +
          'minute, 10 per day, 20 per address per hour.',
        body: smsCodeBody,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await sendSmsCode(app.deps, req.actor ?? requestContext(req), req.body);
      return ok(null);
    },
  );

  r.post(
    '/api/auth/wechat/qr',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'Start a WeChat QR sign-in: a ticket and the URL the QR code encodes (valid 5 minutes)',
        security: [],
        response: responses(wechatTicket),
      },
    },
    async (req) => ok(await createLoginTicket(app.deps, requestContext(req))),
  );

  r.get(
    '/api/auth/wechat/qr/:ticket',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'Poll a WeChat QR ticket',
        description:
          '20124 not scanned yet, 20122 expired, 20123 unknown or already used, 20128 failed (exchange failed or ' +
          'no account bound to that WeChat user); success returns the login result once.',
        security: [],
        params: wechatTicketParams,
        response: responses(loginResult),
      },
    },
    async (req) => ok(await pollLoginTicket(app.deps, requestContext(req), req.params.ticket)),
  );

  r.get(
    '/api/auth/wechat/callback',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'OAuth redirect target of the WeChat QR page (opened on the phone); answers an HTML page',
        security: [],
        querystring: wechatCallbackQuery,
      },
    },
    async (req, reply) => {
      const outcome = await handleCallback(app.deps, requestContext(req), req.query);
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(callbackPage(outcome));
    },
  );
}
