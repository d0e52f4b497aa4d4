import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { configPutBody, deviceConfigState, snParams } from '@cellhub/contract/devices';
import { ok, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { getDeviceConfig, putDeviceConfig } from './device-config.service';

export async function deviceConfigRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['devices'];

  r.get(
    '/api/devices/:sn/config',
    {
      schema: {
        tags,
        summary: 'Reported and expected configuration with their versions',
        params: snParams,
        response: responses(deviceConfigState, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getDeviceConfig(app.deps, actorOf(req), req.params.sn)),
  );

  r.put(
    '/api/devices/:sn/config',
    {
      schema: {
        tags,
        summary:
          'Set the expected configuration: bumps expect_config_version and sends P/down/config when the device is ' +
          'online (otherwise on its next connect or config_get)',
        params: snParams,
        body: configPutBody,
        response: responses(deviceConfigState, ...SIGNED_IN),
      },
    },
    async (req) => ok(await putDeviceConfig(app.deps, actorOf(req), req.params.sn, req.body.config)),
  );
}
