import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  menuResult,
  passwordChangeBody,
  phoneChangeBody,
  profileUpdateBody,
  userInfo,
  wechatTicket,
  wechatTicketParams,
} from '@cellhub/contract/auth';
import { ok, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { createBindTicket, pollBindTicket, unbindWechat } from '../auth/wechat.service';
import { changePassword, changePhone, getMenu, getUserInfo, updateProfile } from './user.service';

/** The signed-in user's own account (seed sections 3 and 7). */
export async function userRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['user'];

  r.get(
    '/api/user/info',
    {
      schema: {
        tags,
        summary: 'The signed-in user (role admin when super)',
        response: responses(userInfo, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getUserInfo(app.deps, actorOf(req))),
  );

  r.post(
    '/api/user/menu',
    {
      schema: {
        tags,
        summary: "Route names of the caller's role, in menu order (for menuFromServer)",
        response: responses(menuResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(getMenu(actorOf(req))),
  );

  r.put(
    '/api/user/password',
    {
      schema: {
        tags,
        summary: 'Change the password; every session of the user is signed out',
        description: 'Old password wrong: 31004. New and confirm differ: 11013. Rules violated: 10113.',
        body: passwordChangeBody,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await changePassword(app.deps, actorOf(req), req.body);
      return ok(null);
    },
  );

  r.put(
    '/api/user/phone',
    {
      schema: {
        tags,
        summary: 'Change the phone number with a code sent to the new number (purpose change_phone)',
        description:
          'Same number: 20125. Wrong or expired code: 20121. A number another account holds: 20129, only after ' +
          'the right code (the code request answers alike for any number).',
        body: phoneChangeBody,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await changePhone(app.deps, actorOf(req), req.body);
      return ok(null);
    },
  );

  r.put(
    '/api/user/profile',
    {
      schema: {
        tags,
        summary: 'Update the basic information of user settings; answers the new user info',
        body: profileUpdateBody,
        response: responses(userInfo, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateProfile(app.deps, actorOf(req), req.body)),
  );

  r.post(
    '/api/user/wechat/qr',
    {
      schema: {
        tags,
        summary: 'Start binding WeChat: a ticket and the URL the QR code encodes',
        response: responses(wechatTicket, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createBindTicket(app.deps, actorOf(req))),
  );

  r.get(
    '/api/user/wechat/qr/:ticket',
    {
      schema: {
        tags,
        summary: 'Poll a binding ticket: 20124 until scanned, then null once the account is bound',
        params: wechatTicketParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await pollBindTicket(app.deps, actorOf(req), req.params.ticket);
      return ok(null);
    },
  );

  r.delete(
    '/api/user/wechat',
    {
      schema: {
        tags,
        summary: 'Unbind WeChat (10118 when none is bound)',
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await unbindWechat(app.deps, actorOf(req));
      return ok(null);
    },
  );
}
