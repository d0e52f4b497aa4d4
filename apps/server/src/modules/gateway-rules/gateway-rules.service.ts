import { and, count, desc, eq, ilike, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import { errorText, type ErrorCode } from '@cellhub/contract/errors';
import {
  GATEWAY_SUB_DEVICES_MAX,
  type GatewayBindBody,
  type GatewayBindResult,
  type GatewayCandidate,
  type GatewayCandidateQuery,
  type GatewayRuleBody,
  type GatewayRuleDetail,
  type GatewayRuleItem,
  type GatewayRuleListQuery,
  type GatewayRuleUpdateBody,
  type GatewayUnbindBody,
  type SubDeviceItem,
  subDeviceInput,
} from '@cellhub/contract/gateway-rules';
import { alias } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { type DeviceRight, hasDeviceRight, requireDeviceRight } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { accessibleDevice, visibleDevices, withActorShare } from '../devices/device-access';
import type { DeviceRef } from '../devices/device-ref';
import { type DeviceRow, devices } from '../devices/devices.table';
import { products } from '../products/products.table';
import { type GatewayRuleRow, gatewayRules, gatewaySubDevices } from './gateway-rules.table';

/**
 * Gateway rules: who may see a rule and change it follows from its gateway device (view to read, manage to change),
 * asked of the authorisation layer; binding a sub-device also needs the right to manage that device, and both ends
 * must have the same owner (an admin acts for that owner, never joins two owners' devices). A rule that is not the
 * caller's answers 85001, exactly as a missing one.
 */

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toItem(
  rule: GatewayRuleRow,
  gw: Pick<DeviceRow, 'sn' | 'name' | 'productKey' | 'online'>,
  productName: string,
  subs: number,
): GatewayRuleItem {
  return {
    id: rule.id,
    name: rule.name,
    gateway_sn: gw.sn,
    gateway_name: gw.name,
    product_key: gw.productKey,
    product_name: productName,
    online: gw.online,
    sub_device_count: subs,
    createdat: rule.createdat.toISOString(),
    updatedat: rule.updatedat.toISOString(),
  };
}

/** The node type of the device's product. */
async function nodetypeOf(db: DbOrTx, productKey: string): Promise<string | undefined> {
  const [p] = await db
    .select({ nodetype: products.nodetype })
    .from(products)
    .where(eq(products.productKey, productKey));
  return p?.nodetype;
}

/** The rule with its gateway when the actor has `need` on the gateway; 85001 otherwise (missing or not theirs). */
async function ruleFor(db: DbOrTx, actor: Actor, id: number, need: Exclude<DeviceRight, 'none'>) {
  const [rule] = await db.select().from(gatewayRules).where(eq(gatewayRules.id, id));
  // No rule: the layer answers 85001, as it does for a rule whose gateway the caller may not see.
  if (!rule) {
    requireDeviceRight(actor, undefined, need, 85001);
    throw new AppError(85001);
  }
  const [row] = await withActorShare(db, actor).where(eq(devices.id, rule.gatewayDeviceId));
  const gateway = row ? { ...row.device, ...(row.shared ? { shared: row.shared } : {}) } : undefined;
  // Seen but not the caller's to change: 10108, as for the device itself.
  return { rule, gateway: requireDeviceRight(actor, gateway, need, 85001) };
}

async function subCounts(db: DbOrTx, ruleIds: number[]): Promise<Map<number, number>> {
  if (ruleIds.length === 0) return new Map();
  const rows = await db
    .select({ id: gatewaySubDevices.ruleId, n: count() })
    .from(gatewaySubDevices)
    .where(inArray(gatewaySubDevices.ruleId, ruleIds))
    .groupBy(gatewaySubDevices.ruleId);
  return new Map(rows.map((r) => [r.id, r.n]));
}

export async function listGatewayRules(
  deps: Deps,
  actor: Actor,
  query: GatewayRuleListQuery,
): Promise<{ items: GatewayRuleItem[]; total: number }> {
  const filters: (SQL | undefined)[] = [visibleDevices(actor)];
  if (query.keyword) {
    const k = likeKeyword(query.keyword);
    filters.push(or(ilike(gatewayRules.name, k), ilike(devices.sn, k), ilike(devices.name, k)));
  }
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ rule: gatewayRules, gw: devices, productName: products.name })
      .from(gatewayRules)
      .innerJoin(devices, eq(devices.id, gatewayRules.gatewayDeviceId))
      .innerJoin(products, eq(products.productKey, devices.productKey))
      .where(where)
      .orderBy(desc(gatewayRules.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(gatewayRules)
      .innerJoin(devices, eq(devices.id, gatewayRules.gatewayDeviceId))
      .where(where),
  ]);
  const counts = await subCounts(
    deps.db,
    rows.map((r) => r.rule.id),
  );
  return {
    items: rows.map((r) => toItem(r.rule, r.gw, r.productName, counts.get(r.rule.id) ?? 0)),
    total: total?.n ?? 0,
  };
}

export async function getGatewayRule(deps: Deps, actor: Actor, id: number): Promise<GatewayRuleDetail> {
  const { rule, gateway } = await ruleFor(deps.db, actor, id, 'view');
  return detail(deps, rule, gateway);
}

async function detail(deps: Deps, rule: GatewayRuleRow, gateway: DeviceRow): Promise<GatewayRuleDetail> {
  const [product] = await deps.db
    .select({ name: products.name })
    .from(products)
    .where(eq(products.productKey, gateway.productKey));
  const subs = await deps.db
    .select({ bind: gatewaySubDevices, device: devices, productName: products.name })
    .from(gatewaySubDevices)
    .innerJoin(devices, eq(devices.id, gatewaySubDevices.deviceId))
    .innerJoin(products, eq(products.productKey, devices.productKey))
    .where(eq(gatewaySubDevices.ruleId, rule.id))
    .orderBy(gatewaySubDevices.createdat, devices.sn);
  const items: SubDeviceItem[] = subs.map((s) => ({
    sn: s.device.sn,
    name: s.bind.name,
    address: s.bind.address,
    device_name: s.device.name,
    product_key: s.device.productKey,
    product_name: s.productName,
    online: deps.link.online(s.device.sn, s.device.online) ? 1 : 0,
    lastcommunicationat: iso(s.device.lastcommunicationat),
    bound_at: s.bind.createdat.toISOString(),
  }));
  return { ...toItem(rule, gateway, product?.name ?? '', items.length), sub_devices: items };
}

export async function createGatewayRule(
  deps: Deps,
  actor: Actor,
  body: GatewayRuleBody,
): Promise<GatewayRuleDetail> {
  const gateway = await accessibleDevice(deps.db, actor, body.gateway_sn, 'owner');
  if ((await nodetypeOf(deps.db, gateway.productKey)) !== 'gateway') {
    throw new AppError(85002, 400, undefined, [{ field: 'gateway_sn', message: 'not a gateway device' }]);
  }
  const rule = await deps.db.transaction(async (tx) => {
    const [made] = await tx
      .insert(gatewayRules)
      .values({ gatewayDeviceId: gateway.id, name: body.name })
      .onConflictDoNothing()
      .returning();
    if (!made) throw new AppError(85003, 400, undefined, [{ field: 'gateway_sn', message: 'has a rule' }]);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'gateway_rule_create',
      target: `gateway-rule:${made.id}`,
      ip: actor.ip,
      detail: { name: made.name, gateway_sn: gateway.sn },
    });
    return made;
  });
  return detail(deps, rule, gateway);
}

export async function updateGatewayRule(
  deps: Deps,
  actor: Actor,
  id: number,
  body: GatewayRuleUpdateBody,
): Promise<GatewayRuleDetail> {
  const { gateway } = await ruleFor(deps.db, actor, id, 'owner');
  const rule = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(gatewayRules)
      .set({ name: body.name })
      .where(eq(gatewayRules.id, id))
      .returning();
    if (!row) throw new AppError(85001);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'gateway_rule_update',
      target: `gateway-rule:${id}`,
      ip: actor.ip,
      detail: { name: body.name },
    });
    return row;
  });
  return detail(deps, rule, gateway);
}

export async function deleteGatewayRule(deps: Deps, actor: Actor, id: number): Promise<null> {
  const { gateway } = await ruleFor(deps.db, actor, id, 'owner');
  const subs = await deps.db.transaction(async (tx) => {
    const gone = await tx
      .select({ sn: devices.sn })
      .from(gatewaySubDevices)
      .innerJoin(devices, eq(devices.id, gatewaySubDevices.deviceId))
      .where(eq(gatewaySubDevices.ruleId, id));
    await tx.delete(gatewayRules).where(eq(gatewayRules.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'gateway_rule_delete',
      target: `gateway-rule:${id}`,
      ip: actor.ip,
      detail: { gateway_sn: gateway.sn, sub_devices: gone.map((g) => g.sn) },
    });
    return gone.map((g) => g.sn);
  });
  for (const sn of subs) released(deps, sn);
  return null;
}

/** A sub-device left its gateway: the link forgets the route, and it is offline until it reports by itself. */
function released(deps: Deps, sn: string): void {
  deps.link.invalidate(sn);
  deps.link.kick(sn, 'unbound from gateway');
}

const result = (sn: string, code: ErrorCode | 0) => ({
  sn,
  code,
  message: code === 0 ? 'ok' : (errorText(code, 'en-US') ?? ''),
});

/**
 * Binds sub-devices to the rule, each on its own: the answer tells per sn whether it was bound (code 0; binding one
 * already on this rule again updates the address and name it gives) or why not: 10117 not visible, 10108 not the caller's to
 * manage, 85004 not a sub-device, 85007 another owner than the gateway's, 85005 on another gateway, 85008 the rule is
 * full. The rule is locked meanwhile, so two requests cannot both fill its last place.
 */
export async function bindSubDevices(
  deps: Deps,
  actor: Actor,
  id: number,
  body: GatewayBindBody,
): Promise<GatewayBindResult> {
  const { gateway } = await ruleFor(deps.db, actor, id, 'owner');
  const wanted = body.sub_devices.map((s) => subDeviceInput.parse(s));
  const results = await deps.db.transaction(async (tx) => {
    await tx.select({ id: gatewayRules.id }).from(gatewayRules).where(eq(gatewayRules.id, id)).for('update');
    const [bound] = await tx
      .select({ n: count() })
      .from(gatewaySubDevices)
      .where(eq(gatewaySubDevices.ruleId, id));
    let n = bound?.n ?? 0;
    const out: GatewayBindResult['results'] = [];
    const done: string[] = [];
    for (const want of wanted) {
      const [row] = await withActorShare(tx, actor).where(eq(devices.sn, want.sn));
      const device = row ? { ...row.device, ...(row.shared ? { shared: row.shared } : {}) } : undefined;
      if (!device || !hasDeviceRight(actor, device, 'view')) {
        out.push(result(want.sn, 10117));
        continue;
      }
      if (!hasDeviceRight(actor, device, 'owner')) {
        out.push(result(want.sn, 10108));
        continue;
      }
      if ((await nodetypeOf(tx, device.productKey)) !== 'sub_device') {
        out.push(result(want.sn, 85004));
        continue;
      }
      if (device.uid !== gateway.uid) {
        out.push(result(want.sn, 85007));
        continue;
      }
      const [held] = await tx
        .select({ ruleId: gatewaySubDevices.ruleId })
        .from(gatewaySubDevices)
        .where(eq(gatewaySubDevices.deviceId, device.id));
      if (held && held.ruleId !== id) {
        out.push(result(want.sn, 85005));
        continue;
      }
      if (held) {
        // Bound here already: what the request gives replaces the address and name, what it leaves blank stays.
        const change = {
          ...(want.address ? { address: want.address } : {}),
          ...(want.name ? { name: want.name } : {}),
        };
        if (Object.keys(change).length > 0)
          await tx.update(gatewaySubDevices).set(change).where(eq(gatewaySubDevices.deviceId, device.id));
      } else {
        if (n >= GATEWAY_SUB_DEVICES_MAX) {
          out.push(result(want.sn, 85008));
          continue;
        }
        const [made] = await tx
          .insert(gatewaySubDevices)
          .values({ deviceId: device.id, ruleId: id, address: want.address, name: want.name })
          .onConflictDoNothing()
          .returning({ deviceId: gatewaySubDevices.deviceId });
        // Bound to another gateway by a request that committed since the read above.
        if (!made) {
          out.push(result(want.sn, 85005));
          continue;
        }
        n++;
      }
      out.push(result(want.sn, 0));
      done.push(want.sn);
    }
    if (done.length > 0) {
      await tx.update(gatewayRules).set({ updatedat: deps.now() }).where(eq(gatewayRules.id, id));
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'gateway_rule_bind',
        target: `gateway-rule:${id}`,
        ip: actor.ip,
        detail: { gateway_sn: gateway.sn, sub_devices: done },
      });
    }
    return out;
  });
  for (const r of results) if (r.code === 0) deps.link.invalidate(r.sn);
  return summary(results);
}

function summary(results: GatewayBindResult['results']): GatewayBindResult {
  const done = results.filter((r) => r.code === 0).length;
  return { results, done, failed: results.length - done };
}

/** Unbinds sub-devices from the rule; per sn code 0, or 85006 when it is not bound to this rule. */
export async function unbindSubDevices(
  deps: Deps,
  actor: Actor,
  id: number,
  body: GatewayUnbindBody,
): Promise<GatewayBindResult> {
  const { gateway } = await ruleFor(deps.db, actor, id, 'owner');
  const sns = [...new Set(body.sns)];
  const gone = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .delete(gatewaySubDevices)
      .where(
        and(
          eq(gatewaySubDevices.ruleId, id),
          inArray(
            gatewaySubDevices.deviceId,
            tx.select({ id: devices.id }).from(devices).where(inArray(devices.sn, sns)),
          ),
        ),
      )
      .returning({ deviceId: gatewaySubDevices.deviceId });
    if (rows.length === 0) return new Set<string>();
    const named = await tx
      .select({ sn: devices.sn })
      .from(devices)
      .where(
        inArray(
          devices.id,
          rows.map((r) => r.deviceId),
        ),
      );
    await tx.update(gatewayRules).set({ updatedat: deps.now() }).where(eq(gatewayRules.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'gateway_rule_unbind',
      target: `gateway-rule:${id}`,
      ip: actor.ip,
      detail: { gateway_sn: gateway.sn, sub_devices: named.map((r) => r.sn) },
    });
    return new Set(named.map((r) => r.sn));
  });
  for (const sn of gone) released(deps, sn);
  return summary(body.sns.map((sn) => result(sn, gone.has(sn) ? 0 : 85006)));
}

/**
 * What the console's pickers offer: devices the actor may manage of `gateway` products that have no rule yet, or of
 * `sub_device` products bound to no gateway (at most 50, by sn).
 */
export async function gatewayCandidates(
  deps: Deps,
  actor: Actor,
  query: GatewayCandidateQuery,
): Promise<GatewayCandidate[]> {
  const filters: (SQL | undefined)[] = [visibleDevices(actor), eq(products.nodetype, query.nodetype)];
  if (query.keyword) {
    const k = likeKeyword(query.keyword);
    filters.push(or(ilike(devices.sn, k), ilike(devices.name, k)));
  }
  const free =
    query.nodetype === 'gateway'
      ? isNull(gatewayRules.id)
      : sql`not exists (select 1 from ${gatewaySubDevices} where ${gatewaySubDevices.deviceId} = ${devices.id})`;
  const rows = await withActorShare(deps.db, actor)
    .innerJoin(products, eq(products.productKey, devices.productKey))
    .leftJoin(gatewayRules, eq(gatewayRules.gatewayDeviceId, devices.id))
    .where(and(...filters, free))
    .orderBy(devices.sn)
    .limit(50);
  const names = new Map<string, string>();
  if (rows.length > 0) {
    const ps = await deps.db
      .select({ key: products.productKey, name: products.name })
      .from(products)
      .where(
        inArray(
          products.productKey,
          rows.map((r) => r.device.productKey),
        ),
      );
    for (const p of ps) names.set(p.key, p.name);
  }
  return rows
    .map((r) => ({ ...r.device, ...(r.shared ? { shared: r.shared } : {}) }))
    .filter((d) => hasDeviceRight(actor, d, 'owner'))
    .map((d) => ({
      sn: d.sn,
      name: d.name,
      product_key: d.productKey,
      product_name: names.get(d.productKey) ?? '',
      online: deps.link.online(d.sn, d.online) ? 1 : 0,
    }));
}

// --- for the device link and the gateway (no actor: the device's own traffic) ------------------------------------

/** Where a bound sub-device's downlinks go: its gateway. */
export interface SubDeviceRoute {
  sub: DeviceRef;
  gateway: DeviceRef;
}

const gw = alias(devices, 'gw');
const refOf = (d: Pick<DeviceRow, 'id' | 'sn' | 'productKey' | 'uid'>): DeviceRef => ({
  id: d.id,
  sn: d.sn,
  productKey: d.productKey,
  uid: d.uid,
});

/** The gateway a sub-device is bound to, or undefined for a device bound to none. */
export async function routeOfSubDevice(db: DbOrTx, sn: string): Promise<SubDeviceRoute | undefined> {
  const [row] = await db
    .select({ sub: devices, gateway: gw })
    .from(devices)
    .innerJoin(gatewaySubDevices, eq(gatewaySubDevices.deviceId, devices.id))
    .innerJoin(gatewayRules, eq(gatewayRules.id, gatewaySubDevices.ruleId))
    .innerJoin(gw, eq(gw.id, gatewayRules.gatewayDeviceId))
    .where(eq(devices.sn, sn));
  return row ? { sub: refOf(row.sub), gateway: refOf(row.gateway) } : undefined;
}

/**
 * The sub-device `sn` when it is bound to this gateway (what the gateway may speak for), with whether it is
 * disabled, else undefined.
 */
export async function boundSubDevice(
  db: DbOrTx,
  gatewayId: number,
  sn: string,
): Promise<(DeviceRef & { disabled: boolean }) | undefined> {
  const [row] = await db
    .select({
      id: devices.id,
      sn: devices.sn,
      productKey: devices.productKey,
      uid: devices.uid,
      disabled: devices.disabled,
    })
    .from(devices)
    .innerJoin(gatewaySubDevices, eq(gatewaySubDevices.deviceId, devices.id))
    .innerJoin(gatewayRules, eq(gatewayRules.id, gatewaySubDevices.ruleId))
    .where(and(eq(devices.sn, sn), eq(gatewayRules.gatewayDeviceId, gatewayId)));
  return row ? { ...refOf(row), disabled: row.disabled } : undefined;
}

/** The sub-devices of a gateway that are online (their flag as written). */
export async function onlineSubDevices(db: DbOrTx, gatewayId: number): Promise<DeviceRef[]> {
  const rows = await db
    .select({ id: devices.id, sn: devices.sn, productKey: devices.productKey, uid: devices.uid })
    .from(devices)
    .innerJoin(gatewaySubDevices, eq(gatewaySubDevices.deviceId, devices.id))
    .innerJoin(gatewayRules, eq(gatewayRules.id, gatewaySubDevices.ruleId))
    .where(and(eq(gatewayRules.gatewayDeviceId, gatewayId), eq(devices.online, 1)));
  return rows.map(refOf);
}
