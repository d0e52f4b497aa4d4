import { canView, type Subject } from '../lib/authz';
import type { Audience } from './event-bus';

/** The part of a signed-in user the audience rule looks at. */
export type Viewer = Subject;

/**
 * Who receives a device event: whoever may view the device (lib/authz.ts: its owner and every admin; shares, a
 * later issue, extend `Audience` with the shared uids and the layer's `shared` right).
 */
export function mayReceive(viewer: Viewer, audience: Audience): boolean {
  return canView(viewer, { uid: audience.uid });
}

/**
 * The non-admin uids an audience names, so the hub looks only at their sockets (and the admins') instead of every
 * socket. Candidates still pass through `mayReceive`.
 */
export function audienceUids(audience: Audience): number[] {
  return audience.uid === null ? [] : [audience.uid];
}
