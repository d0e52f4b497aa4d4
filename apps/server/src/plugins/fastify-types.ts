import type { RouteAccess } from '../lib/authz';
import type { Actor, Deps } from '../lib/deps';
import type { BrokerHandle } from './broker';

/** Who may call a route: declared per route, decided by the authorisation layer (lib/authz.ts). */
export type RouteAuth = RouteAccess;

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
    broker: BrokerHandle;
    /** `METHOD /url` of every /api route with the access the layer enforces on it (filled by plugins/auth.ts). */
    routeAccess: Map<string, RouteAccess>;
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
