import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { healthData, type HealthData } from '@cellhub/contract/common';
import { AppError } from '../../lib/app-error';
import { ok, responses } from '../../lib/route-schemas';

// A hung database must make the health check fail, not hang with it.
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/health',
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags: ['system'],
        summary: 'Liveness of the server, its database and its MQTT broker',
        security: [],
        response: responses(healthData, 503),
      },
    },
    async () => {
      const db = await withTimeout(app.deps.db.execute(sql`select 1`), 3000).then(
        () => 'ok' as const,
        () => 'down' as const,
      );
      const data: HealthData = { db, mqtt: app.broker.healthy() ? 'ok' : 'down' };
      if (data.db !== 'ok' || data.mqtt !== 'ok') throw new AppError(10105, 503, undefined, data);
      return ok(data);
    },
  );
}
