import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  deliveryItem,
  emailSettingsBody,
  emailTestBody,
  smsSettings,
  smsTestBody,
  systemSettingsView,
  wechatSettings,
  wechatTestBody,
} from '@cellhub/contract/system-settings';
import { ok, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { getSystemSettings, sendTestMessage, updateChannelSettings } from './channel-settings.service';

const ADMIN = { auth: 'admin' } as const;

/** /system/setting (admin): notification channel settings and their "send test". docs/notifications.md. */
export async function systemSettingsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['system-settings'];
  const view = responses(systemSettingsView, ...SIGNED_IN);
  const sent = responses(deliveryItem, ...SIGNED_IN);

  r.get(
    '/api/system/settings',
    {
      config: ADMIN,
      schema: { tags, summary: 'SMS, email and messaging app settings (secrets masked)', response: view },
    },
    async (req) => ok(await getSystemSettings(app.deps, actorOf(req))),
  );

  r.put(
    '/api/system/settings/sms',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Replace the SMS settings; a secret sent blank or masked keeps its stored value',
        body: smsSettings,
        response: view,
      },
    },
    async (req) => ok(await updateChannelSettings(app.deps, actorOf(req), 'sms', req.body)),
  );

  r.put(
    '/api/system/settings/email',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Replace the email (SMTP) settings; host and account are required, and a password unless one is stored ' +
          '(10113 naming the field); a password sent blank or masked keeps the stored one',
        body: emailSettingsBody,
        response: view,
      },
    },
    async (req) => ok(await updateChannelSettings(app.deps, actorOf(req), 'email', req.body)),
  );

  r.put(
    '/api/system/settings/wechat',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Replace the messaging app settings; a secret sent blank or masked keeps the stored one',
        body: wechatSettings,
        response: view,
      },
    },
    async (req) => ok(await updateChannelSettings(app.deps, actorOf(req), 'wechat', req.body)),
  );

  r.post(
    '/api/system/settings/sms/test',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Send a test SMS (verification code template) now; 20141 not configured, 31002 provider error',
        body: smsTestBody,
        response: sent,
      },
    },
    async (req) => ok(await sendTestMessage(app.deps, actorOf(req), 'sms', req.body.to)),
  );

  r.post(
    '/api/system/settings/email/test',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Send a test email now; 20141 not configured, 20117 SMTP error, 40004 a private or local SMTP host',
        body: emailTestBody,
        response: sent,
      },
    },
    async (req) => ok(await sendTestMessage(app.deps, actorOf(req), 'email', req.body.to)),
  );

  r.post(
    '/api/system/settings/wechat/test',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Send a test template message to an openid now; 20141 not configured, 90002 WeChat error',
        body: wechatTestBody,
        response: sent,
      },
    },
    async (req) => ok(await sendTestMessage(app.deps, actorOf(req), 'wechat', req.body.to)),
  );
}
