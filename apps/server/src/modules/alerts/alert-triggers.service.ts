import { and, asc, count, desc, eq, ilike, inArray, or, type SQL } from 'drizzle-orm';
import {
  ALERT_TYPE_VALUES,
  type alertTriggerListQuery,
  type AlertTriggerItem,
  type AlertTriggerParsed,
  alertTriggerProblem,
  isPresenceType,
} from '@cellhub/contract/alerts';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { findVisibleOwned, ownerFilter, ownerOfNew } from '../../lib/authz';
import { writeAudit } from '../audit/audit.service';
import { accessibleDevice } from '../devices/device-access';
import { sceneVariable } from '../scenes/scenes.service';
import { devices } from '../devices/devices.table';
import { propertyRulesOf } from '../products/products.service';
import { productProperties, products } from '../products/products.table';
import { assertOwnContacts, contactRefs } from './alert-contacts.service';
import { alertSignals, notifyAlertChange } from './alert-signals';
import { closeTriggerAlerts } from './alert-state';
import { alertStates, alertTriggerContacts, alertTriggers, type AlertTriggerRow } from './alerts.table';

interface DeviceInfo {
  sn: string;
  name: string;
  productKey: string;
}

/** A property's names: the product's Chinese `name` and English `name_us` ('' when it gives none). */
export interface PropertyNames {
  name: string;
  nameUs: string;
}

/** The names of the properties of `pairs`' products, by `product_key\0key`, in one read. */
export async function propertyNames(
  db: DbOrTx,
  pairs: { productKey: string; key: string }[],
): Promise<Map<string, PropertyNames>> {
  const keys = [...new Set(pairs.map((p) => p.productKey))];
  if (keys.length === 0) return new Map();
  const rows = await db
    .select({
      productKey: products.productKey,
      key: productProperties.key,
      name: productProperties.name,
      nameUs: productProperties.nameUs,
    })
    .from(productProperties)
    .innerJoin(products, eq(products.id, productProperties.productId))
    .where(inArray(products.productKey, keys));
  return new Map(rows.map((r) => [`${r.productKey}\u0000${r.key}`, { name: r.name, nameUs: r.nameUs }]));
}

async function contactIdsOf(db: DbOrTx, triggerIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (triggerIds.length === 0) return out;
  const rows = await db
    .select()
    .from(alertTriggerContacts)
    .where(inArray(alertTriggerContacts.triggerId, triggerIds))
    .orderBy(asc(alertTriggerContacts.contactId));
  for (const r of rows) out.set(r.triggerId, [...(out.get(r.triggerId) ?? []), r.contactId]);
  return out;
}

interface Joined {
  t: AlertTriggerRow;
  device: DeviceInfo | null;
  state: { status: 'normal' | 'active'; since: Date } | null;
}

async function toItems(db: DbOrTx, rows: Joined[]): Promise<AlertTriggerItem[]> {
  const ids = rows.map((r) => r.t.id);
  const contacts = await contactIdsOf(db, ids);
  const refs = await contactRefs(db, [...new Set([...contacts.values()].flat())]);
  const pairs = rows.flatMap((r) =>
    r.device && r.t.key ? [{ productKey: r.device.productKey, key: r.t.key }] : [],
  );
  const names = await propertyNames(db, pairs);
  return rows.map(({ t, device, state }) => {
    const cids = contacts.get(t.id) ?? [];
    const presence = isPresenceType(t.type);
    return {
      id: t.id,
      uid: t.uid,
      name: t.name,
      enable: t.enable === 1 ? 1 : 0,
      source: t.source,
      sn: device?.sn ?? null,
      device_name: device?.name ?? '',
      product_key: device?.productKey ?? null,
      scene_id: t.sceneId,
      key: presence ? null : t.key,
      property_name:
        presence || !t.key ? '' : (names.get(`${device?.productKey ?? ''}\u0000${t.key}`)?.name ?? t.key),
      property_name_us:
        presence || !t.key ? '' : (names.get(`${device?.productKey ?? ''}\u0000${t.key}`)?.nameUs ?? ''),
      type: t.type,
      a: t.a,
      b: t.b,
      push_content: t.pushContent,
      recovery_content: t.recoveryContent,
      silence_s: t.silenceS,
      push_mode: t.pushMode,
      methods: t.methods,
      contact_ids: cids,
      contacts: cids.map((id) => ({ id, name: refs.get(id) ?? '' })),
      state: state?.status ?? 'normal',
      state_since: state?.since.toISOString() ?? null,
      createdat: t.createdat.toISOString(),
      updatedat: t.updatedat.toISOString(),
    };
  });
}

function joinedSelect(db: DbOrTx) {
  return db
    .select({
      t: alertTriggers,
      sn: devices.sn,
      deviceName: devices.name,
      productKey: devices.productKey,
      status: alertStates.status,
      since: alertStates.since,
    })
    .from(alertTriggers)
    .leftJoin(devices, eq(devices.id, alertTriggers.deviceId))
    .leftJoin(
      alertStates,
      and(eq(alertStates.triggerId, alertTriggers.id), eq(alertStates.deviceId, alertTriggers.deviceId)),
    );
}

type JoinedRow = Awaited<ReturnType<ReturnType<typeof joinedSelect>['where']>>[number];
const joined = (r: JoinedRow): Joined => ({
  t: r.t,
  device: r.sn !== null ? { sn: r.sn, name: r.deviceName ?? '', productKey: r.productKey ?? '' } : null,
  state: r.status !== null && r.since !== null ? { status: r.status, since: r.since } : null,
});

/** The trigger if the actor may see it (owner or admin), else 10107. */
export async function visibleTrigger(deps: Deps, actor: Actor, id: number): Promise<AlertTriggerRow> {
  return findVisibleOwned(deps.db, actor, alertTriggers, id, 10107);
}

export async function getTrigger(deps: Deps, actor: Actor, id: number): Promise<AlertTriggerItem> {
  const row = await visibleTrigger(deps, actor, id);
  const [r] = await joinedSelect(deps.db).where(eq(alertTriggers.id, row.id));
  const [item] = await toItems(deps.db, [joined(r!)]);
  return item!;
}

export async function listTriggers(
  deps: Deps,
  actor: Actor,
  query: z.infer<typeof alertTriggerListQuery>,
): Promise<{ items: AlertTriggerItem[]; total: number }> {
  const conditions: (SQL | undefined)[] = [ownerFilter(actor, alertTriggers.uid)];
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    conditions.push(or(ilike(alertTriggers.name, like), ilike(devices.sn, like), ilike(devices.name, like)));
  }
  if (query.enable !== undefined) conditions.push(eq(alertTriggers.enable, query.enable));
  if (query.type !== undefined)
    conditions.push(eq(alertTriggers.type, query.type as AlertTriggerRow['type']));
  if (query.sn) conditions.push(eq(devices.sn, query.sn));
  if (query.active === 1) conditions.push(eq(alertStates.status, 'active'));
  if (query.active === 0) conditions.push(or(eq(alertStates.status, 'normal'), eq(alertTriggers.enable, 0)));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    joinedSelect(deps.db)
      .where(where)
      .orderBy(desc(alertTriggers.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(alertTriggers)
      .leftJoin(devices, eq(devices.id, alertTriggers.deviceId))
      .leftJoin(
        alertStates,
        and(eq(alertStates.triggerId, alertTriggers.id), eq(alertStates.deviceId, alertTriggers.deviceId)),
      )
      .where(where),
  ]);
  return { items: await toItems(deps.db, rows.map(joined)), total: total?.n ?? 0 };
}

/**
 * The seed's rules (11000-11005, 11010), then the device (the owner's own: 10117), the property (defined by the
 * product when it defines any: 70003) and the contacts (the owner's own: 10107).
 */
async function checked(
  deps: Deps,
  actor: Actor,
  ownerUid: number,
  input: AlertTriggerParsed,
): Promise<{ deviceId: number; key: string | null }> {
  const problem = alertTriggerProblem(input);
  if (problem) {
    if (problem.code === 10113) throw formError(problem.field, 'required');
    throw new AppError(problem.code, 400, undefined, [{ field: problem.field, message: 'required' }]);
  }
  // The owner's device: an admin editing a user's trigger picks among that user's devices.
  const owner: Actor = ownerUid === actor.uid ? actor : { ...actor, uid: ownerUid, role: 'user' };
  // A scene trigger: the scene the owner may read (11000), with bound variables (11009), one of them (83003).
  if (input.source === 'scene') await sceneVariable(deps.db, owner, input.scene_id, input.sn, input.key);
  const device = await accessibleDevice(deps.db, owner, input.sn!, 'view');
  let key: string | null = null;
  if (!isPresenceType(input.type)) {
    key = input.key!;
    const rules = await propertyRulesOf(deps.db, device.productKey);
    if (rules.size > 0 && !rules.has(key)) {
      throw new AppError(70003, 400, `The product has no property "${key}"`, [
        { field: 'key', message: 'unknown property' },
      ]);
    }
  }
  await assertOwnContacts(deps.db, ownerUid, input.contact_ids);
  return { deviceId: device.id, key };
}

function rowValues(input: AlertTriggerParsed, deviceId: number, key: string | null) {
  const need = ALERT_TYPE_VALUES[input.type];
  return {
    name: input.name,
    enable: input.enable,
    source: input.source,
    deviceId,
    sceneId: input.scene_id,
    key,
    type: input.type,
    // A value the type does not use is not kept, so the list shows what is evaluated.
    a: need.a ? input.a : null,
    b: need.b ? input.b : null,
    pushContent: input.push_content,
    recoveryContent: input.recovery_content,
    silenceS: input.silence_s,
    pushMode: input.push_mode,
    methods: input.methods,
  };
}

async function replaceContacts(tx: DbOrTx, triggerId: number, ids: number[]): Promise<void> {
  await tx.delete(alertTriggerContacts).where(eq(alertTriggerContacts.triggerId, triggerId));
  if (ids.length > 0) {
    await tx.insert(alertTriggerContacts).values(ids.map((contactId) => ({ triggerId, contactId })));
  }
}

export async function createTrigger(
  deps: Deps,
  actor: Actor,
  input: AlertTriggerParsed,
): Promise<AlertTriggerItem> {
  const { deviceId, key } = await checked(deps, actor, actor.uid, input);
  const row = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(alertTriggers)
      .values({ ...rowValues(input, deviceId, key), uid: ownerOfNew(actor) })
      .returning();
    if (!created) throw new AppError(10109);
    await replaceContacts(tx, created.id, input.contact_ids);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_trigger_create',
      target: `alert_trigger:${created.id}`,
      ip: actor.ip,
      detail: { name: input.name, sn: input.sn, key, type: input.type },
    });
    await notifyAlertChange(deps, tx, `t:${created.id}`);
    return created;
  });
  alertSignals(deps).triggersChanged([row.id]);
  return getTrigger(deps, actor, row.id);
}

const conditionOf = (t: Pick<AlertTriggerRow, 'deviceId' | 'key' | 'type' | 'a' | 'b' | 'source'>) =>
  JSON.stringify([t.source, t.deviceId, t.key, t.type, t.a, t.b]);

/** Replaces the whole trigger. A changed condition or a disable ends its active alert (closeTriggerAlerts). */
export async function updateTrigger(
  deps: Deps,
  actor: Actor,
  id: number,
  input: AlertTriggerParsed,
): Promise<AlertTriggerItem> {
  const trigger = await visibleTrigger(deps, actor, id);
  const { deviceId, key } = await checked(deps, actor, trigger.uid, input);
  const values = rowValues(input, deviceId, key);
  const conditionChanged = conditionOf(values) !== conditionOf(trigger);
  await deps.db.transaction(async (tx) => {
    await tx.update(alertTriggers).set(values).where(eq(alertTriggers.id, trigger.id));
    await replaceContacts(tx, trigger.id, input.contact_ids);
    if (conditionChanged || values.enable === 0) {
      await closeTriggerAlerts(tx, [trigger.id], deps.now(), deviceId);
    }
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_trigger_update',
      target: `alert_trigger:${trigger.id}`,
      ip: actor.ip,
      detail: { name: input.name, condition_changed: conditionChanged, enable: input.enable },
    });
    await notifyAlertChange(deps, tx, `t:${trigger.id}`);
  });
  alertSignals(deps).triggersChanged([trigger.id]);
  return getTrigger(deps, actor, trigger.id);
}

export async function setTriggerEnable(
  deps: Deps,
  actor: Actor,
  id: number,
  enable: 0 | 1,
): Promise<AlertTriggerItem> {
  const trigger = await visibleTrigger(deps, actor, id);
  if (trigger.enable !== enable) {
    await deps.db.transaction(async (tx) => {
      await tx.update(alertTriggers).set({ enable }).where(eq(alertTriggers.id, trigger.id));
      if (enable === 0) await closeTriggerAlerts(tx, [trigger.id], deps.now());
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'alert_trigger_update',
        target: `alert_trigger:${trigger.id}`,
        ip: actor.ip,
        detail: { enable },
      });
      await notifyAlertChange(deps, tx, `t:${trigger.id}`);
    });
    alertSignals(deps).triggersChanged([trigger.id]);
  }
  return getTrigger(deps, actor, trigger.id);
}

/** Its history stays (trigger_id becomes null); an active alert is closed first. */
export async function deleteTrigger(deps: Deps, actor: Actor, id: number): Promise<void> {
  const trigger = await visibleTrigger(deps, actor, id);
  await deps.db.transaction(async (tx) => {
    await closeTriggerAlerts(tx, [trigger.id], deps.now());
    await tx.delete(alertTriggers).where(eq(alertTriggers.id, trigger.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_trigger_delete',
      target: `alert_trigger:${trigger.id}`,
      ip: actor.ip,
      detail: { name: trigger.name },
    });
    await notifyAlertChange(deps, tx, `t:${trigger.id}`);
  });
  alertSignals(deps).triggersChanged([trigger.id]);
}

/** Id and name of triggers (configuration lists). */
export async function triggerRefs(db: DbOrTx, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: alertTriggers.id, name: alertTriggers.name })
    .from(alertTriggers)
    .where(inArray(alertTriggers.id, ids));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Every id must be a trigger of `uid` (10107 otherwise, naming the others in `details`). */
export async function assertOwnTriggers(db: DbOrTx, uid: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await db
    .select({ id: alertTriggers.id })
    .from(alertTriggers)
    .where(and(inArray(alertTriggers.id, ids), eq(alertTriggers.uid, uid)));
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new AppError(10107, 400, 'Trigger does not exist', [
      { field: 'trigger_ids', message: `not found: ${missing.join(',')}` },
    ]);
  }
}
