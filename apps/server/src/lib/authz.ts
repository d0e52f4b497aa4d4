/**
 * The authorisation layer: every "may this actor see / act on this" of the server is answered here, and nowhere
 * else. Routes declare who may call them (`RouteAccess`, enforced by the auth plugin through `authorizeRoute`);
 * services ask about rows (`requireAdmin`, `deviceRight` and its `canView` / `canControl`, `ownerFilter` for lists,
 * `visibleOwned` for one owned row). docs/authorisation.md describes the rules.
 *
 * Pure functions of the actor and the row: no database access, so every module may import this file without
 * dragging in another module (device rows are read by modules/devices/device-access.ts, which needs only tables).
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { AccessScope } from '@cellhub/contract/access';
import type { ErrorCode } from '@cellhub/contract/errors';
import type { DbOrTx } from '../db/client';
import { AppError } from './app-error';
import type { Actor } from './deps';

/**
 * Who may call a route. Every /api route needs a signed-in caller unless it says otherwise, so forgetting the
 * option fails closed. `optional` attaches the caller when the token is valid and ignores a bad one.
 */
export type RouteAccess = 'public' | 'optional' | 'user' | 'admin';
export const ROUTE_ACCESS: readonly RouteAccess[] = ['public', 'optional', 'user', 'admin'];
/** What a route that declares nothing gets. */
export const DEFAULT_ROUTE_ACCESS: RouteAccess = 'user';

/** The part of a caller the device rules read (a WebSocket viewer has no session of its own here). */
export type Subject = Pick<Actor, 'uid' | 'role' | 'scopes'>;

// --- the record of questions asked ------------------------------------------------------------------------------

/** The questions the layer answers; the route test checks that every signed-in route asked one. */
export type AccessQuestion = 'route' | 'admin' | 'device' | 'owner' | 'scope' | 'self' | 'catalogue';

/** Off (undefined) unless a test turns it on: then every question is appended with the uid it was asked for. */
let trace: { uid: number; question: AccessQuestion }[] | undefined;

function note(actor: Subject, question: AccessQuestion): void {
  trace?.push({ uid: actor.uid, question });
}

/** Tests: start (or stop) recording the questions the layer is asked. */
export function traceAccessQuestions(on: boolean): void {
  trace = on ? [] : undefined;
}

/**
 * Tests: the questions asked about user `uid` since the last call (the record is then emptied). Keyed by uid, so
 * background work acting for someone else cannot answer for the request under test.
 */
export function takeAccessQuestions(uid: number): Set<AccessQuestion> {
  const asked = new Set((trace ?? []).filter((t) => t.uid === uid).map((t) => t.question));
  if (trace) trace.length = 0;
  return asked;
}

// --- roles, scopes, routes --------------------------------------------------------------------------------------

/** Whether the actor is an admin (for rules that widen what an admin sees, e.g. every user's rows). */
export function isAdmin(actor: Actor): boolean {
  note(actor, 'admin');
  return actor.role === 'admin';
}

/**
 * Administration (users, platforms, firmware, SIM providers, settings) is for admins signed in as themselves: an
 * actor limited by scopes (an access key) never gets it, whoever owns the key. 10108 otherwise.
 */
export function requireAdmin(actor: Actor): void {
  note(actor, 'admin');
  if (actor.role !== 'admin' || actor.scopes) throw new AppError(10108);
}

/** Whether the actor's scopes allow `scope`; a person's session (no scopes) is limited by role and rows only. */
export function hasScope(actor: Actor, scope: AccessScope): boolean {
  note(actor, 'scope');
  return !actor.scopes || actor.scopes.includes(scope);
}

/** 10108 unless the actor's scopes allow `scope`. */
export function requireScope(actor: Actor, scope: AccessScope): void {
  if (!hasScope(actor, scope)) throw new AppError(10108);
}

/**
 * The door of every route (called by the auth plugin's onRequest hook): 10102 without a valid sign-in, 10108 for
 * a non-admin on an admin route. What the caller may do with which row is the services' question, asked below.
 */
export function authorizeRoute(access: RouteAccess, actor: Actor | null): void {
  if (access === 'public' || access === 'optional') return;
  if (!actor) throw new AppError(10102);
  note(actor, 'route');
  if (access === 'admin') requireAdmin(actor);
}

/**
 * The caller acts on their own account only (profile, password, phone, balance of their own): nothing to look up,
 * but recorded so the route test sees that the route's service made its decision here.
 */
export function actingOnSelf(actor: Actor): number {
  note(actor, 'self');
  return actor.uid;
}

/**
 * What every signed-in caller may read alike (platform names to bind a product to, packages on sale, the menu of
 * their role): declared here so the decision is the layer's and visible in one place.
 */
export function openToSignedIn(actor: Actor): void {
  note(actor, 'catalogue');
}

// --- owned rows ---------------------------------------------------------------------------------------------------

/**
 * Who owns a row the actor creates (a product, command, template, alert rule or contact): the actor. An access key
 * will create rows for the user who holds it, and this is where that is decided.
 */
export function ownerOfNew(actor: Actor): number {
  note(actor, 'owner');
  return actor.uid;
}

/** The part of an owned row the rules look at (`uid` null: nobody's, which only admins see). */
export interface OwnedRow {
  uid: number | null;
}

/**
 * Whether the actor may see and change a row owned through its `uid` column: its owner, or an admin. False for a
 * missing row, so a caller can ask before telling "missing" from "not yours" (and then answer both alike).
 */
export function owns(actor: Actor, row: OwnedRow | undefined): boolean {
  note(actor, 'owner');
  if (!row) return false;
  return actor.role === 'admin' || (row.uid !== null && row.uid === actor.uid);
}

/**
 * The list filter over an owner column: none for admins, `column = actor.uid` for anyone else. A list built with
 * it and `visibleOwned` agree on what exists for the actor.
 */
export function ownerFilter(actor: Actor, column: PgColumn): SQL | undefined {
  note(actor, 'owner');
  return actor.role === 'admin' ? undefined : eq(column, actor.uid);
}

/**
 * "Visible or not found": the row when the actor owns it (or is an admin); otherwise `notFound`, the very answer a
 * missing row gets, so nobody learns that another user's row exists.
 */
export function visibleOwned<T extends OwnedRow>(actor: Actor, row: T | undefined, notFound: ErrorCode): T {
  note(actor, 'owner');
  if (!row || !owns(actor, row)) throw new AppError(notFound);
  return row;
}

/**
 * `visibleOwned` for the row `id` of a per-user table (`id` and `uid` columns): the one way to fetch an owned row
 * by id. `forUpdate` locks it (inside a transaction) before the owner is checked.
 */
export async function findVisibleOwned<T extends PgTable & { id: PgColumn; uid: PgColumn }>(
  db: DbOrTx,
  actor: Actor,
  table: T,
  id: number,
  notFound: ErrorCode,
  forUpdate = false,
): Promise<T['$inferSelect']> {
  // drizzle's from() cannot check a still-generic table; the plain PgTable view of it is accepted.
  const source: PgTable = table;
  const query = db.select().from(source).where(eq(table.id, id));
  const [row] = (forUpdate ? await query.for('update') : await query) as T['$inferSelect'][];
  return visibleOwned(actor, row as (T['$inferSelect'] & OwnedRow) | undefined, notFound);
}

// --- products -----------------------------------------------------------------------------------------------------

/** What an actor may do with a product: everything (owner, admin), read it (a device of it is theirs), or nothing. */
export type ProductRight = 'none' | 'view' | 'manage';

/**
 * A product is managed by its owner or an admin. Anyone who may view a device of the product (its owner, the holder
 * of a share) may read the product, without its secrets: the device detail shows the product's property names and
 * units. `viewsADevice` is that question asked over the devices (`visibleDevices(actor)` and the product's key), so
 * shares widen it where they widen the device list.
 */
export function productRight(
  actor: Actor,
  product: OwnedRow | undefined,
  viewsADevice: boolean,
): ProductRight {
  note(actor, 'owner');
  if (!product) return 'none';
  if (owns(actor, product)) return 'manage';
  return viewsADevice ? 'view' : 'none';
}

/** Whether the actor may read the product (`productRight` at least `view`). */
export const canViewProduct = (actor: Actor, product: OwnedRow | undefined, viewsADevice: boolean): boolean =>
  productRight(actor, product, viewsADevice) !== 'none';

// --- devices ------------------------------------------------------------------------------------------------------

/** What an actor may do with a device, from least to most. */
export type DeviceRight = 'none' | 'view' | 'control' | 'owner' | 'admin';
const RANK: Record<DeviceRight, number> = { none: 0, view: 1, control: 2, owner: 3, admin: 4 };
const byRank = (rank: number): DeviceRight =>
  (Object.keys(RANK) as DeviceRight[]).find((r) => RANK[r] === rank) ?? 'none';

/**
 * The part of a device the rules look at. `shared` is the right a share gives this actor on the device (view or
 * control); device-access.ts fills it once the share table exists, and nothing else here has to change.
 */
export interface DeviceAccessRow {
  uid: number | null;
  shared?: 'view' | 'control';
}

/** The most a scoped actor may do with a device: each scope opens one level (read < control < write). */
function scopeCap(scopes: readonly AccessScope[]): number {
  if (scopes.includes('devices:write')) return RANK.owner;
  if (scopes.includes('devices:control')) return RANK.control;
  if (scopes.includes('devices:read')) return RANK.view;
  return RANK.none;
}

/**
 * The one rule for devices: admins may do anything, owners anything but administration, a share gives what it
 * says, and scopes (an access key) cap the result.
 */
export function deviceRight(actor: Subject, device: DeviceAccessRow): DeviceRight {
  note(actor, 'device');
  return byRank(rankOf(actor, device));
}

function rankOf(actor: Subject, device: DeviceAccessRow): number {
  let rank = RANK.none;
  if (actor.role === 'admin') rank = RANK.admin;
  else if (device.uid !== null && device.uid === actor.uid) rank = RANK.owner;
  else if (device.shared) rank = RANK[device.shared];
  if (actor.scopes) rank = Math.min(rank, scopeCap(actor.scopes));
  return rank;
}

export const hasDeviceRight = (actor: Subject, device: DeviceAccessRow, need: DeviceRight): boolean =>
  RANK[deviceRight(actor, device)] >= RANK[need];

/** See the device, its properties, raw messages and log. */
export const canView = (actor: Subject, device: DeviceAccessRow): boolean =>
  hasDeviceRight(actor, device, 'view');

/** Send it commands and configuration. */
export const canControl = (actor: Subject, device: DeviceAccessRow): boolean =>
  hasDeviceRight(actor, device, 'control');

/** Change, unbind or delete it. */
export const canManage = (actor: Subject, device: DeviceAccessRow): boolean =>
  hasDeviceRight(actor, device, 'owner');

/**
 * The device when the actor has `need` on it. A device the actor may not even see answers `notFound` (10117,
 * exactly as a missing one); one they see but may not act on answers 10108.
 */
export function requireDeviceRight<T extends DeviceAccessRow>(
  actor: Actor,
  device: T | undefined,
  need: Exclude<DeviceRight, 'none'>,
  notFound: ErrorCode = 10117,
): T {
  note(actor, 'device');
  if (!device) throw new AppError(notFound);
  const right = RANK[deviceRight(actor, device)];
  if (right < RANK.view) throw new AppError(notFound);
  if (right < RANK[need]) throw new AppError(10108);
  return device;
}

/**
 * Whether an alert rule judges a device's values and presence: while the rule's owner may view the device, by the
 * same rule as a request (admins every device, a user the devices they own, and a share's holder the shared one),
 * so a device given to someone else stops feeding its former owner's rules and a rule never tells of a device its
 * owner may not see. The evaluator (modules/alerts/alert-engine.ts) asks it for every value, off any request: it
 * allocates nothing and is left out of the record of questions, which is about requests.
 */
export function ruleWatchesDevice(owner: Subject, device: DeviceAccessRow): boolean {
  return rankOf(owner, device) >= RANK.view;
}

/**
 * Whether a data transmission rule (modules/data-transmit) carries a device's bytes: while the rule's owner may
 * control the device (admins every device, a user their own, a control share's holder the shared one), so a share
 * revoked or reduced to view stops its frames at once. Asked for every frame off any request, like
 * `ruleWatchesDevice`: it allocates nothing and is left out of the record of questions.
 */
export function ruleTransmitsDevice(owner: Subject, device: DeviceAccessRow): boolean {
  return rankOf(owner, device) >= RANK.control;
}

/**
 * The list filter over a device owner column: the devices the actor may at least view. None for admins (unless
 * scopes forbid reading devices at all); for anyone else their own devices, and, given the device id column, the
 * devices shared with them by a live share (no expiry, or an expiry still ahead of the database clock) of the
 * device's current owner. The share rows are named by their table (`device_shares`, modules/shares/shares.table.ts),
 * so this file stays free of module imports.
 */
export function deviceListFilter(actor: Actor, uidColumn: PgColumn, idColumn?: PgColumn): SQL | undefined {
  note(actor, 'device');
  if (actor.scopes && scopeCap(actor.scopes) < RANK.view) return sql`false`;
  if (actor.role === 'admin') return undefined;
  if (!idColumn) return eq(uidColumn, actor.uid);
  // The shared ids are one uncorrelated sub-select (run once per statement), so the planner can still walk the
  // owner index and the primary key (a BitmapOr) instead of testing every device row for a share.
  return sql`(${uidColumn} = ${actor.uid} or ${idColumn} = any(array(select ds.device_id from device_shares ds join devices sd on sd.id = ds.device_id and sd.uid = ds.owner_uid where ds.grantee_uid = ${actor.uid} and (ds.expires_at is null or ds.expires_at > now()))))`;
}

/** A share as the layer reads it: the right, and until when (null: no end). */
export interface ShareGrant {
  right: 'view' | 'control';
  expiresAt: Date | null;
}

/**
 * The right a share gives at `now`, or undefined when there is none or it has ended. The one expiry rule: a share
 * is live while `expires_at` is null or later than now (the SQL filter above says the same with the database clock).
 */
export function liveShare(grant: ShareGrant | undefined, now: Date): 'view' | 'control' | undefined {
  if (!grant) return undefined;
  if (grant.expiresAt && grant.expiresAt.getTime() <= now.getTime()) return undefined;
  return grant.right;
}

/**
 * Who may share a device (create, change or revoke its shares, make links of it): whoever may manage it (its owner,
 * or an admin acting for the owner), never a share holder and never a scoped actor without `devices:write`.
 */
export const canShare = (actor: Subject, device: DeviceAccessRow): boolean => canManage(actor, device);

// --- scenes -------------------------------------------------------------------------------------------------------

/** What an actor may do with a scene (modules/scenes): everything (owner, admin), read it (a scene share), nothing. */
export type SceneRight = 'none' | 'view' | 'owner';

/**
 * A scene is edited, shared and deleted by its owner or an admin; an account it is shared with (a scene share,
 * always read-only) reads it. A scene never widens device access: each bound device is still read with `canView`
 * and written with `canControl` of the reader, so a share of the scene alone shows no values.
 */
export function sceneRight(actor: Actor, scene: OwnedRow | undefined, sharedWith: boolean): SceneRight {
  note(actor, 'owner');
  if (!scene) return 'none';
  if (owns(actor, scene)) return 'owner';
  return sharedWith ? 'view' : 'none';
}
