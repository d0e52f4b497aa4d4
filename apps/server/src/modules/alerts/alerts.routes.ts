import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  alertAckBody,
  alertAckResult,
  alertCodeSent,
  alertConfigBody,
  alertConfigItem,
  alertConfigListQuery,
  alertContactBody,
  alertContactCodeBody,
  alertContactItem,
  alertContactListQuery,
  alertContactVerifyBody,
  alertEnableBody,
  alertHistoryItem,
  alertHistoryQuery,
  alertIdParams,
  alertTriggerBody,
  alertTriggerItem,
  alertTriggerListQuery,
} from '@cellhub/contract/alerts';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { createConfig, deleteConfig, getConfig, listConfigs, updateConfig } from './alert-configs.service';
import {
  createContact,
  deleteContact,
  getContact,
  listContacts,
  sendContactCode,
  updateContact,
  verifyContactCode,
} from './alert-contacts.service';
import { acknowledgeAlert, acknowledgeAlerts, listHistory } from './alert-history.service';
import {
  createTrigger,
  deleteTrigger,
  getTrigger,
  listTriggers,
  setTriggerEnable,
  updateTrigger,
} from './alert-triggers.service';

/** Alerts (docs/alerts.md): users manage their own triggers, configurations, contacts and alerts; admins all. */
export async function alertsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  // --- triggers ---
  {
    const tags = ['alerts'];
    r.get(
      '/api/alert/triggers',
      {
        schema: {
          tags,
          summary: 'List device triggers with their current state',
          querystring: alertTriggerListQuery,
          response: listResponses(alertTriggerItem, ...SIGNED_IN),
        },
      },
      async (req) => {
        const { items, total } = await listTriggers(app.deps, actorOf(req), req.query);
        return okList(items, total);
      },
    );
    r.post(
      '/api/alert/triggers',
      {
        schema: {
          tags,
          summary: 'Create a trigger (11000-11005, 11010 for the seed rules; 10117 not your device)',
          body: alertTriggerBody,
          response: responses(alertTriggerItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await createTrigger(app.deps, actorOf(req), req.body)),
    );
    r.get(
      '/api/alert/triggers/:id',
      {
        schema: {
          tags,
          summary: 'A trigger',
          params: alertIdParams,
          response: responses(alertTriggerItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await getTrigger(app.deps, actorOf(req), req.params.id)),
    );
    r.put(
      '/api/alert/triggers/:id',
      {
        schema: {
          tags,
          summary: 'Replace a trigger; a changed condition ends its active alert',
          params: alertIdParams,
          body: alertTriggerBody,
          response: responses(alertTriggerItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await updateTrigger(app.deps, actorOf(req), req.params.id, req.body)),
    );
    r.put(
      '/api/alert/triggers/:id/enable',
      {
        schema: {
          tags,
          summary: 'Switch a trigger on (1) or off (0)',
          params: alertIdParams,
          body: alertEnableBody,
          response: responses(alertTriggerItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await setTriggerEnable(app.deps, actorOf(req), req.params.id, req.body.enable)),
    );
    r.delete(
      '/api/alert/triggers/:id',
      {
        schema: {
          tags,
          summary: 'Delete a trigger (its alert history stays)',
          params: alertIdParams,
          response: responses(z.null(), ...SIGNED_IN),
        },
      },
      async (req) => {
        await deleteTrigger(app.deps, actorOf(req), req.params.id);
        return ok(null);
      },
    );
  }

  // --- alert configurations ---
  {
    const tags = ['alerts'];
    r.get(
      '/api/alert/configs',
      {
        schema: {
          tags,
          summary: 'List alert configurations',
          querystring: alertConfigListQuery,
          response: listResponses(alertConfigItem, ...SIGNED_IN),
        },
      },
      async (req) => {
        const { items, total } = await listConfigs(app.deps, actorOf(req), req.query);
        return okList(items, total);
      },
    );
    r.post(
      '/api/alert/configs',
      {
        schema: {
          tags,
          summary: 'Create an alert configuration (11007 no trigger, 11010 no interval, 11011 no contact)',
          body: alertConfigBody,
          response: responses(alertConfigItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await createConfig(app.deps, actorOf(req), req.body)),
    );
    r.get(
      '/api/alert/configs/:id',
      {
        schema: {
          tags,
          summary: 'An alert configuration',
          params: alertIdParams,
          response: responses(alertConfigItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await getConfig(app.deps, actorOf(req), req.params.id)),
    );
    r.put(
      '/api/alert/configs/:id',
      {
        schema: {
          tags,
          summary: 'Replace an alert configuration',
          params: alertIdParams,
          body: alertConfigBody,
          response: responses(alertConfigItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await updateConfig(app.deps, actorOf(req), req.params.id, req.body)),
    );
    r.delete(
      '/api/alert/configs/:id',
      {
        schema: {
          tags,
          summary: 'Delete an alert configuration',
          params: alertIdParams,
          response: responses(z.null(), ...SIGNED_IN),
        },
      },
      async (req) => {
        await deleteConfig(app.deps, actorOf(req), req.params.id);
        return ok(null);
      },
    );
  }

  // --- contacts ---
  {
    const tags = ['alerts'];
    r.get(
      '/api/alert/contacts',
      {
        schema: {
          tags,
          summary: 'List alert contacts (keyword matches name, phone, email)',
          querystring: alertContactListQuery,
          response: listResponses(alertContactItem, ...SIGNED_IN),
        },
      },
      async (req) => {
        const { items, total } = await listContacts(app.deps, actorOf(req), req.query);
        return okList(items, total);
      },
    );
    r.post(
      '/api/alert/contacts',
      {
        schema: {
          tags,
          summary: 'Create a contact (phone and email unverified)',
          body: alertContactBody,
          response: responses(alertContactItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await createContact(app.deps, actorOf(req), req.body)),
    );
    r.get(
      '/api/alert/contacts/:id',
      {
        schema: {
          tags,
          summary: 'A contact',
          params: alertIdParams,
          response: responses(alertContactItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await getContact(app.deps, actorOf(req), req.params.id)),
    );
    r.put(
      '/api/alert/contacts/:id',
      {
        schema: {
          tags,
          summary: 'Replace a contact; a changed phone or email must be verified again',
          params: alertIdParams,
          body: alertContactBody,
          response: responses(alertContactItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await updateContact(app.deps, actorOf(req), req.params.id, req.body)),
    );
    r.delete(
      '/api/alert/contacts/:id',
      {
        schema: {
          tags,
          summary: 'Delete a contact (it leaves every trigger and configuration)',
          params: alertIdParams,
          response: responses(z.null(), ...SIGNED_IN),
        },
      },
      async (req) => {
        await deleteContact(app.deps, actorOf(req), req.params.id);
        return ok(null);
      },
    );
    r.post(
      '/api/alert/contacts/:id/code',
      {
        schema: {
          tags,
          summary:
            'Send a verification code to the phone (SMS, 20115) or email (20116); 20117/31002 send failed, 20141 not configured, 40004 a private or local SMTP host',
          params: alertIdParams,
          body: alertContactCodeBody,
          response: responses(alertCodeSent, ...SIGNED_IN),
        },
      },
      async (req) => ok(await sendContactCode(app.deps, actorOf(req), req.params.id, req.body.channel)),
    );
    r.post(
      '/api/alert/contacts/:id/verify',
      {
        schema: {
          tags,
          summary: 'Verify the phone or email with its code (20118/20119 empty, 20120/20121 wrong)',
          params: alertIdParams,
          body: alertContactVerifyBody,
          response: responses(alertContactItem, ...SIGNED_IN),
        },
      },
      async (req) =>
        ok(await verifyContactCode(app.deps, actorOf(req), req.params.id, req.body.channel, req.body.code)),
    );
  }

  // --- alert history ---
  {
    const tags = ['alerts'];
    r.get(
      '/api/alert/history',
      {
        schema: {
          tags,
          summary: 'Alerts raised, newest first (active and recovered)',
          querystring: alertHistoryQuery,
          response: listResponses(alertHistoryItem, ...SIGNED_IN),
        },
      },
      async (req) => {
        const { items, total } = await listHistory(app.deps, actorOf(req), req.query);
        return okList(items, total);
      },
    );
    r.post(
      '/api/alert/history/:id/ack',
      {
        schema: {
          tags,
          summary: 'Acknowledge an alert',
          params: alertIdParams,
          response: responses(alertHistoryItem, ...SIGNED_IN),
        },
      },
      async (req) => ok(await acknowledgeAlert(app.deps, actorOf(req), req.params.id)),
    );
    r.post(
      '/api/alert/history/ack',
      {
        schema: {
          tags,
          summary: 'Acknowledge several alerts; answers how many were newly acknowledged',
          body: alertAckBody,
          response: responses(alertAckResult, ...SIGNED_IN),
        },
      },
      async (req) => ok({ acknowledged: await acknowledgeAlerts(app.deps, actorOf(req), req.body.ids) }),
    );
  }
}
