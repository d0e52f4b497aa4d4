import type { Actor, Deps } from '../lib/deps';
import type { BrokerHandle } from './broker';

/**
 * Who may call a route. Every /api route needs a signed-in caller unless it says otherwise, so forgetting this
 * option fails closed. `optional` attaches the caller when the token is valid and ignores a bad one.
 */
export type RouteAuth = 'public' | 'optional' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
    broker: BrokerHandle;
  }
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** Leave the route out of the per-client flood guard (health checks). */
    rateLimit?: false;
  }
}
