import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  forwardDeadItem,
  forwardDeadQuery,
  forwardEnabledBody,
  forwardIdParams,
  forwardListQuery,
  forwardReplayBody,
  forwardReplayResult,
  forwardRuleBody,
  forwardRuleCreated,
  forwardRuleItem,
  forwardSecret,
  forwardStats,
  forwardStatsQuery,
  forwardTestBody,
  forwardTestResult,
} from '@cellhub/contract/forwarding';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createRule,
  deleteRule,
  getRule,
  listDead,
  listRules,
  replayDead,
  rotateSecret,
  ruleStats,
  setEnabled,
  testSend,
  updateRule,
} from './forwarding.service';

const USER = { auth: 'user' } as const;
const RULE_CODES =
  '10113 invalid input, 86003 unknown template placeholder, 40004 a private or local target address, ' +
  '10117 a device the caller may not read';

/** Forwarding rules (docs/forwarding.md): the caller's own (admins: everyone's); 86001 for another user's. */
export async function forwardingRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['forwarding'];

  r.get(
    '/api/forwarding',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Forwarding rules of the caller, newest first, with their counters; keyword in the name',
        querystring: forwardListQuery,
        response: listResponses(forwardRuleItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listRules(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/forwarding',
    {
      config: USER,
      schema: {
        tags,
        summary: `Create a rule; answers its signing secret this once (${RULE_CODES}; 86002 past 100 rules)`,
        body: forwardRuleBody,
        response: responses(forwardRuleCreated, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createRule(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/forwarding/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: 'A rule (secrets are never answered)',
        params: forwardIdParams,
        response: responses(forwardRuleItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getRule(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/forwarding/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: `Replace a rule (an MQTT password left out is kept, "" removes it; ${RULE_CODES})`,
        params: forwardIdParams,
        body: forwardRuleBody,
        response: responses(forwardRuleItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateRule(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/forwarding/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Delete a rule with its queue and dead letters',
        params: forwardIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => ok(await deleteRule(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/forwarding/:id/enabled',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Turn a rule on or off; on also resumes a rule the server paused',
        params: forwardIdParams,
        body: forwardEnabledBody,
        response: responses(forwardRuleItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await setEnabled(app.deps, actorOf(req), req.params.id, req.body.enabled)),
  );

  r.post(
    '/api/forwarding/:id/secret',
    {
      config: USER,
      schema: {
        tags,
        summary: 'A new signing secret, answered this once; the old one stops at once',
        params: forwardIdParams,
        response: responses(forwardSecret, ...SIGNED_IN),
      },
    },
    async (req) => ok(await rotateSecret(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/forwarding/:id/test',
    {
      config: USER,
      schema: {
        tags,
        summary:
          "Send one sample message now and answer the target's response (status, headers, body excerpt, time); " +
          '502 40001/40002 (HTTP) or 90002 (MQTT) when nothing answered, 400 40004 for a refused address',
        params: forwardIdParams,
        body: forwardTestBody,
        response: responses(forwardTestResult, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(
        await testSend(
          app.deps,
          (rule, message) => app.forwarding.send(rule, message),
          actorOf(req),
          req.params.id,
          req.body,
        ),
      ),
  );

  r.get(
    '/api/forwarding/:id/stats',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Counters and a series of delivered, failed and dead messages over 1h, 24h or 7d',
        params: forwardIdParams,
        querystring: forwardStatsQuery,
        response: responses(forwardStats, ...SIGNED_IN),
      },
    },
    async (req) => ok(await ruleStats(app.deps, actorOf(req), req.params.id, req.query)),
  );

  r.get(
    '/api/forwarding/:id/dead',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Dead letters of a rule (messages given up on), newest first, with their last error',
        params: forwardIdParams,
        querystring: forwardDeadQuery,
        response: listResponses(forwardDeadItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listDead(app.deps, actorOf(req), req.params.id, req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/forwarding/:id/dead/replay',
    {
      config: USER,
      schema: {
        tags,
        summary:
          "Send dead letters again (the given ids, or all of the rule's), before the device's newer messages",
        params: forwardIdParams,
        body: forwardReplayBody,
        response: responses(forwardReplayResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await replayDead(app.deps, actorOf(req), req.params.id, req.body.ids)),
  );
}
