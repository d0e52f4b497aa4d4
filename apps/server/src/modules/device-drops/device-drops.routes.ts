import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deviceDrops } from '@cellhub/contract/device-drops';
import { snParams } from '@cellhub/contract/devices';
import { ok, responses, SIGNED_IN } from '../../lib/route-schemas';
import { actorOf } from '../../plugins/auth';
import { getDeviceDrops } from './device-drops.service';

export async function deviceDropsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/devices/:sn/drops',
    {
      schema: {
        tags: ['devices'],
        summary:
          'Messages the gateway dropped for the device, by reason (rate limit, too large, invalid ...)',
        description:
          "`total` is the device's `rejected_count`; the reasons are counted since they were introduced, so their " +
          'sum can be lower for a device with older drops. Reasons and reply codes: docs/device-protocol.md.',
        params: snParams,
        response: responses(deviceDrops, ...SIGNED_IN),
      },
    },
    async (req) => ok(await getDeviceDrops(app.deps, actorOf(req), req.params.sn)),
  );
}
