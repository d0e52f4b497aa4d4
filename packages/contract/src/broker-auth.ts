import { z } from 'zod';
import { text } from './text';

/**
 * The HTTP hooks an external EMQX 5 broker calls to authenticate devices and authorise their publishes and
 * subscriptions (docs/external-brokers.md). The request bodies are the JSON templates the operator configures in
 * EMQX (placeholders `${clientid}`, `${username}`, `${password}`, `${peerhost}`, `${action}`, `${topic}` ...); the
 * answers are the shapes EMQX reads. These routes answer EMQX's shapes, not the `{status, data}` envelope.
 */

/** The header carrying the shared secret (BROKER_HOOK_SECRET) that EMQX sends with every hook request. */
export const BROKER_HOOK_SECRET_HEADER = 'x-cellhub-hook-secret';

const field = (max: number) => text().max(max);

export const emqxAuthnRequest = z.object({
  clientid: field(256),
  username: field(256).optional(),
  password: field(1024).optional(),
  peerhost: field(64).optional(),
});
export type EmqxAuthnRequest = z.infer<typeof emqxAuthnRequest>;

/** `ignore`: not a device (the broker's next authenticator decides, e.g. the server's own account). */
export const emqxAuthnResult = z.object({
  result: z.enum(['allow', 'deny', 'ignore']),
  is_superuser: z.boolean(),
});
export type EmqxAuthnResult = z.infer<typeof emqxAuthnResult>;

export const emqxAuthzRequest = z.object({
  clientid: field(256),
  username: field(256).optional(),
  peerhost: field(64).optional(),
  action: z.enum(['publish', 'subscribe', 'all']),
  topic: field(65_535),
  qos: z.union([z.number().int().min(0).max(2), z.enum(['0', '1', '2'])]).optional(),
  retain: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
});
export type EmqxAuthzRequest = z.infer<typeof emqxAuthzRequest>;

/** `ignore`: not a device (the broker's next authoriser decides; set EMQX's `no_match` to `deny`). */
export const emqxAuthzResult = z.object({ result: z.enum(['allow', 'deny', 'ignore']) });
export type EmqxAuthzResult = z.infer<typeof emqxAuthzResult>;
