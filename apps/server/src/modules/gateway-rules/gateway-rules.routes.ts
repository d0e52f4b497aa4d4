import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  gatewayBindBody,
  gatewayBindResult,
  gatewayCandidate,
  gatewayCandidateQuery,
  gatewayRuleBody,
  gatewayRuleDetail,
  gatewayRuleIdParams,
  gatewayRuleItem,
  gatewayRuleListQuery,
  gatewayRuleUpdateBody,
  gatewayUnbindBody,
} from '@cellhub/contract/gateway-rules';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  bindSubDevices,
  createGatewayRule,
  deleteGatewayRule,
  gatewayCandidates,
  getGatewayRule,
  listGatewayRules,
  unbindSubDevices,
  updateGatewayRule,
} from './gateway-rules.service';

/**
 * Signed-in users manage the rules of gateways they own (the console shows the pages to admins, seed section 2; the
 * API serves owners and their access keys too). Rights come from the gateway device: view to read, manage to change.
 */
const USER = { auth: 'user' } as const;
const RULE_RIGHTS =
  '85001 when the rule is missing or its gateway not visible; 10108 when seen but not yours';

export async function gatewayRulesRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['gateway-rules'];

  r.get(
    '/api/gateway-rules',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Gateway rules of the gateways you may view, newest first (keyword: rule name, gateway sn or name)',
        querystring: gatewayRuleListQuery,
        response: listResponses(gatewayRuleItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listGatewayRules(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/gateway-rules/candidates',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Devices you manage that a rule may take: gateway-type devices without a rule, or sub_device-type ' +
          'devices bound to no gateway (at most 50)',
        querystring: gatewayCandidateQuery,
        response: responses(z.array(gatewayCandidate), ...SIGNED_IN),
      },
    },
    async (req) => ok(await gatewayCandidates(app.deps, actorOf(req), req.query)),
  );

  r.post(
    '/api/gateway-rules',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Create the rule of a gateway you manage (10117 not visible, 10108 not yours, 85002 not a gateway-type ' +
          'device, 85003 the gateway has a rule)',
        body: gatewayRuleBody,
        response: responses(gatewayRuleDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await createGatewayRule(app.deps, actorOf(req), req.body)),
  );

  r.get(
    '/api/gateway-rules/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: `A gateway rule with its sub-devices and their online state (${RULE_RIGHTS})`,
        params: gatewayRuleIdParams,
        response: responses(gatewayRuleDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getGatewayRule(app.deps, actorOf(req), req.params.id)),
  );

  r.put(
    '/api/gateway-rules/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: `Rename a gateway rule (${RULE_RIGHTS})`,
        params: gatewayRuleIdParams,
        body: gatewayRuleUpdateBody,
        response: responses(gatewayRuleDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await updateGatewayRule(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/api/gateway-rules/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: `Delete a gateway rule; its sub-devices are unbound and go offline (${RULE_RIGHTS})`,
        params: gatewayRuleIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => ok(await deleteGatewayRule(app.deps, actorOf(req), req.params.id)),
  );

  r.post(
    '/api/gateway-rules/:id/bind',
    {
      config: USER,
      schema: {
        tags,
        summary:
          `Bind sub-devices (up to 100) with their address and name; a result per sn: 0 bound, 10117 not visible, ` +
          `10108 not yours, 85004 not a sub_device-type device, 85007 another owner than the gateway's, 85005 on ` +
          `another gateway, 85008 the rule is full (${RULE_RIGHTS})`,
        params: gatewayRuleIdParams,
        body: gatewayBindBody,
        response: responses(gatewayBindResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await bindSubDevices(app.deps, actorOf(req), req.params.id, req.body)),
  );

  r.post(
    '/api/gateway-rules/:id/unbind',
    {
      config: USER,
      schema: {
        tags,
        summary: `Unbind sub-devices (up to 100); a result per sn: 0 unbound, 85006 not bound to this rule (${RULE_RIGHTS})`,
        params: gatewayRuleIdParams,
        body: gatewayUnbindBody,
        response: responses(gatewayBindResult, ...SIGNED_IN),
      },
    },
    async (req) => ok(await unbindSubDevices(app.deps, actorOf(req), req.params.id, req.body)),
  );
}
