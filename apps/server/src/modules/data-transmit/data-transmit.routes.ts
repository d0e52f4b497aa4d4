import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  dataTransmitBody,
  dataTransmitDetail,
  dataTransmitGroups,
  dataTransmitIdParams,
  dataTransmitItem,
  dataTransmitListQuery,
  dataTransmitStatusBody,
  transmitCandidate,
  transmitCandidateQuery,
} from '@cellhub/contract/data-transmit';
import { listResponses, ok, okList, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import {
  createRule,
  deleteRule,
  getRule,
  listCandidates,
  listGroups,
  listRules,
  setRuleStatus,
  updateRule,
} from './data-transmit.service';

const USER = { auth: 'user' } as const;
const DEVICE_RULES =
  'Every device must be one the caller controls (10117 when not visible, 10108 with a view share); a device ' +
  'appears once per rule (87002), never as management and edge of one rule (87001); with address_mode "modbus" ' +
  'each edge device needs its own slave addresses 1-247 (87003)';

/** Data transmission rules (docs/data-transmit.md): any signed-in user, on the devices they control. */
export async function dataTransmitRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['data-transmit'];
  // The answer comes once this instance's engine runs the change (other instances follow on the channel).
  const applied = async <T>(value: T): Promise<T> => {
    await app.dataTransmit.reload();
    return value;
  };

  r.get(
    '/api/data-transmit',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Transmission rules, newest first (admins: every user\u2019s); filter by keyword, group, status',
        querystring: dataTransmitListQuery,
        response: listResponses(dataTransmitItem, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listRules(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.get(
    '/api/data-transmit/groups',
    {
      config: USER,
      schema: {
        tags,
        summary: 'The group names of the caller\u2019s rules',
        response: responses(dataTransmitGroups, ...SIGNED_IN),
      },
    },
    async (req) => ok(await listGroups(app.deps, actorOf(req))),
  );

  r.get(
    '/api/data-transmit/devices',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'Devices the caller may put in a rule (own ones and control shares), with the rules each is already in',
        querystring: transmitCandidateQuery,
        response: listResponses(transmitCandidate, ...SIGNED_IN),
      },
    },
    async (req) => {
      const { items, total } = await listCandidates(app.deps, actorOf(req), req.query);
      return okList(items, total);
    },
  );

  r.post(
    '/api/data-transmit',
    {
      config: USER,
      schema: {
        tags,
        summary: `Create a rule. ${DEVICE_RULES}`,
        body: dataTransmitBody,
        response: responses(dataTransmitItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await applied(await createRule(app.deps, actorOf(req), req.body))),
  );

  r.get(
    '/api/data-transmit/:id',
    {
      config: USER,
      schema: {
        tags,
        summary:
          'A rule with its devices: whether the owner still controls each, the other rules it is in, and its ' +
          'counters (frames and bytes each way, drops, latency of the last frames); 87004 when not the caller\u2019s',
        params: dataTransmitIdParams,
        response: responses(dataTransmitDetail, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getRule(app.deps, actorOf(req), req.params.id, app.dataTransmit)),
  );

  r.put(
    '/api/data-transmit/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: `Replace a rule (devices that stay keep their counters). ${DEVICE_RULES}`,
        params: dataTransmitIdParams,
        body: dataTransmitBody,
        response: responses(dataTransmitItem, ...SIGNED_IN),
      },
    },
    async (req) => ok(await applied(await updateRule(app.deps, actorOf(req), req.params.id, req.body))),
  );

  r.put(
    '/api/data-transmit/:id/status',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Enable (1) or disable (0) a rule; a disabled rule sends nothing',
        params: dataTransmitIdParams,
        body: dataTransmitStatusBody,
        response: responses(dataTransmitItem, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await applied(await setRuleStatus(app.deps, actorOf(req), req.params.id, req.body.status))),
  );

  r.delete(
    '/api/data-transmit/:id',
    {
      config: USER,
      schema: {
        tags,
        summary: 'Delete a rule and its counters',
        params: dataTransmitIdParams,
        response: responses(z.null(), ...SIGNED_IN),
      },
    },
    async (req) => {
      await deleteRule(app.deps, actorOf(req), req.params.id);
      return ok(await applied(null));
    },
  );
}
