import type { Role } from '@cellhub/contract/routes';
import type { Audience } from './event-bus';

/** The part of a signed-in user the audience rule looks at. */
export interface Viewer {
  uid: number;
  role: Role;
}

/**
 * The one rule for who receives a device event: its owner, and every admin. Shares (a later issue) extend
 * `Audience` and this function; nothing else decides.
 */
export function mayReceive(viewer: Viewer, audience: Audience): boolean {
  if (viewer.role === 'admin') return true;
  return audience.uid !== null && audience.uid === viewer.uid;
}

/**
 * The non-admin uids an audience names, so the hub looks only at their sockets (and the admins') instead of every
 * socket. Candidates still pass through `mayReceive`.
 */
export function audienceUids(audience: Audience): number[] {
  return audience.uid === null ? [] : [audience.uid];
}
