import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { snParams } from '@cellhub/contract/devices';
import {
  modbusExchange,
  modbusStatusList,
  modbusVariableParams,
  modbusWriteBody,
} from '@cellhub/contract/modbus-polling';
import { ok, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { testRead, variableStatus, writeVariable } from './modbus-polling.service';

export async function modbusPollingRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['devices'];

  r.get(
    '/api/devices/:sn/modbus/variables',
    {
      schema: {
        tags,
        summary:
          "The device's data-template variables with their Modbus read counters (reads, timeouts, exceptions, CRC " +
          'errors, invalid answers), last value and last error; 81004 without a template',
        params: snParams,
        response: responses(modbusStatusList, ...SIGNED_IN),
      },
    },
    async (req) => ok(await variableStatus(app.deps, app.modbusPoller, actorOf(req), req.params.sn)),
  );

  r.post(
    '/api/devices/:sn/modbus/variables/:tag/read',
    {
      schema: {
        tags,
        summary:
          'Test read: reads one variable now through the DTU and returns the request and response frames (hex), ' +
          'the raw and the decoded value; a timeout, exception or bad answer is in `outcome` and `code`',
        params: modbusVariableParams,
        response: responses(modbusExchange, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(await testRead(app.deps, app.modbusPoller, actorOf(req), req.params.sn, req.params.tag)),
  );

  r.post(
    '/api/devices/:sn/modbus/variables/:tag/write',
    {
      schema: {
        tags,
        summary:
          'Writes a value to a writable variable (control formula, FC 5/6/15/16) and checks the answer; owners ' +
          'and control shares; 81001 timeout, 81002 exception, 81003 invalid answer',
        params: modbusVariableParams,
        body: modbusWriteBody,
        response: responses(modbusExchange, ...SIGNED_IN),
      },
    },
    async (req) =>
      ok(
        await writeVariable(
          app.deps,
          app.modbusPoller,
          actorOf(req),
          req.params.sn,
          req.params.tag,
          req.body.value,
        ),
      ),
  );
}
