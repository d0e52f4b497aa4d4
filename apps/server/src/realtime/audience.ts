import { canView, liveShare, type Subject } from '../lib/authz';
import type { AudienceGrant } from '../modules/shares/share-audience';
import type { Audience } from './event-bus';

/** The part of a signed-in user the audience rule looks at. */
export type Viewer = Subject;

/** The shares of the event's device (the share audience cache's `grantsOf(sn)`), read at send time. */
export type AudienceShares = readonly AudienceGrant[];

const NO_SHARES: AudienceShares = [];

/**
 * The right a viewer's share gives on the event's device at `now`: a grant counts while it has not expired and the
 * device still belongs to the owner who shared it (the event's audience uid).
 */
function sharedRight(viewer: Viewer, audience: Audience, shares: AudienceShares, now: Date) {
  if (shares.length === 0 || audience.uid === null) return undefined;
  const grant = shares.find((s) => s.uid === viewer.uid && s.ownerUid === audience.uid);
  return liveShare(grant, now);
}

/**
 * Who receives a device event: whoever may view the device (lib/authz.ts: its owner, every admin, and the holder of
 * a live share of it). Expiry is compared with `now` here, at send time, so an expired share stops at once without
 * any event.
 */
export function mayReceive(
  viewer: Viewer,
  audience: Audience,
  shares: AudienceShares = NO_SHARES,
  now: Date = new Date(),
): boolean {
  const shared = sharedRight(viewer, audience, shares, now);
  return canView(viewer, { uid: audience.uid, ...(shared ? { shared } : {}) });
}

/**
 * The non-admin uids an audience names (the owner and the share holders), so the hub looks only at their sockets
 * (and the admins') instead of every socket. Candidates still pass through `mayReceive`.
 */
export function audienceUids(audience: Audience, shares: AudienceShares = NO_SHARES): number[] {
  if (audience.uid === null) return [];
  if (shares.length === 0) return [audience.uid];
  const out = new Set([audience.uid]);
  for (const s of shares) if (s.ownerUid === audience.uid) out.add(s.uid);
  return [...out];
}
