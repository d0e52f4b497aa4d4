/**
 * Data transmission rules (docs/data-transmit.md): who may make them and with which devices. Every device of a rule
 * is one the caller controls (owner, admin, or a control share), checked by the authorisation layer; the transmit
 * engine (transmit-engine.ts) checks the rule owner's right again for every frame.
 */
import { and, asc, count, desc, eq, ilike, inArray, notInArray, or, sql } from 'drizzle-orm';
import type {
  DataTransmitBody,
  DataTransmitDetail,
  DataTransmitItem,
  DataTransmitListQuery,
  TransmitCandidate,
  TransmitCounters,
  TransmitRole,
} from '@cellhub/contract/data-transmit';
import { dataTransmitBody } from '@cellhub/contract/data-transmit';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import {
  canControl,
  findVisibleOwned,
  isAdmin,
  ownerFilter,
  ownerOfNew,
  requireDeviceRight,
  ruleTransmitsDevice,
} from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword, type PageQuery } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { liveShareRow, withActorShare } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import { deviceShares } from '../shares/shares.table';
import { users } from '../users/users.table';
import { dataTransmitDevices, dataTransmitRules, type DataTransmitRuleRow } from './data-transmit.table';

/** Other instances reload their rules when this channel names a rule (deps.channels). */
export const DATA_TRANSMIT_CHANNEL = 'cellhub_data_transmit_changes';

type Body = ReturnType<typeof dataTransmitBody.parse>;

/** What the engine of this instance has counted but not yet written, per device of a rule. */
export interface LiveCounters {
  pending(ruleId: number, deviceId: number): Partial<TransmitCounters> | undefined;
}

interface Member {
  deviceId: number;
  role: TransmitRole;
  addresses: number[];
}

/**
 * Checks a rule's devices: each once (87002), never in both roles (87001), every one controlled by the actor (10117
 * unseen, 10108 view share), and in "modbus" mode an address for every edge device, none used twice (87003).
 */
async function resolveMembers(db: DbOrTx, actor: Actor, body: Body): Promise<Member[]> {
  const seen = new Map<string, { role: TransmitRole; field: string }>();
  const note = (sn: string, role: TransmitRole, field: string) => {
    const before = seen.get(sn);
    if (before) {
      const code = before.role === role ? 87002 : 87001;
      throw new AppError(code, 400, undefined, [{ field, message: `${sn} is already in ${before.field}` }]);
    }
    seen.set(sn, { role, field });
  };
  body.management.forEach((sn, i) => note(sn, 'management', `management.${i}`));
  body.edge.forEach((e, i) => note(e.sn, 'edge', `edge.${i}.sn`));

  const rows = await withActorShare(db, actor).where(inArray(devices.sn, [...seen.keys()]));
  const bySn = new Map(rows.map((r) => [r.device.sn, r]));
  const idOf = (sn: string) => {
    const r = bySn.get(sn);
    const device = r ? { ...r.device, ...(r.shared ? { shared: r.shared } : {}) } : undefined;
    try {
      return requireDeviceRight(actor, device, 'control').id;
    } catch (err) {
      if (err instanceof AppError)
        throw new AppError(err.code, undefined, undefined, [{ field: seen.get(sn)!.field, message: sn }]);
      throw err;
    }
  };
  const members: Member[] = body.management.map((sn) => ({
    deviceId: idOf(sn),
    role: 'management',
    addresses: [],
  }));
  const owners = new Map<number, string>();
  body.edge.forEach((e, i) => {
    const addresses = [...new Set(e.addresses)].sort((a, b) => a - b);
    if (body.address_mode === 'modbus') {
      if (addresses.length === 0)
        throw new AppError(87003, 400, undefined, [{ field: `edge.${i}.addresses`, message: 'required' }]);
      for (const a of addresses) {
        const other = owners.get(a);
        if (other !== undefined)
          throw new AppError(87003, 400, undefined, [
            { field: `edge.${i}.addresses`, message: `address ${a} is already ${other}'s` },
          ]);
        owners.set(a, e.sn);
      }
    }
    members.push({ deviceId: idOf(e.sn), role: 'edge', addresses });
  });
  return members;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function itemOf(
  row: DataTransmitRuleRow,
  owner: string,
  members: { sn: string; name: string; role: TransmitRole; addresses: number[] }[],
): DataTransmitItem {
  return {
    id: row.id,
    name: row.name,
    status: row.status === 1 ? 1 : 0,
    group: row.groupName,
    address_mode: row.addressMode,
    owner,
    devices: members,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

/** Devices of these rules, management first, then by sn. */
async function membersOf(db: DbOrTx, ruleIds: number[]) {
  if (ruleIds.length === 0) return [];
  return db
    .select({
      ruleId: dataTransmitDevices.ruleId,
      sn: devices.sn,
      name: devices.name,
      role: dataTransmitDevices.role,
      addresses: dataTransmitDevices.addresses,
    })
    .from(dataTransmitDevices)
    .innerJoin(devices, eq(devices.id, dataTransmitDevices.deviceId))
    .where(inArray(dataTransmitDevices.ruleId, ruleIds))
    .orderBy(asc(dataTransmitDevices.role), asc(devices.sn));
}

export async function listRules(
  deps: Deps,
  actor: Actor,
  query: PageQuery & Omit<DataTransmitListQuery, 'current' | 'per_page'>,
): Promise<{ items: DataTransmitItem[]; total: number }> {
  const where = and(
    ownerFilter(actor, dataTransmitRules.uid),
    query.keyword ? ilike(dataTransmitRules.name, likeKeyword(query.keyword)) : undefined,
    query.group !== undefined && query.group !== ''
      ? eq(dataTransmitRules.groupName, query.group)
      : undefined,
    query.status !== undefined ? eq(dataTransmitRules.status, Number(query.status)) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ rule: dataTransmitRules, owner: users.username })
      .from(dataTransmitRules)
      .innerJoin(users, eq(users.id, dataTransmitRules.uid))
      .where(where)
      .orderBy(desc(dataTransmitRules.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(dataTransmitRules).where(where),
  ]);
  const members = await membersOf(
    deps.db,
    rows.map((r) => r.rule.id),
  );
  return {
    items: rows.map((r) =>
      itemOf(
        r.rule,
        r.owner,
        members
          .filter((m) => m.ruleId === r.rule.id)
          .map(({ sn, name, role, addresses }) => ({ sn, name, role, addresses })),
      ),
    ),
    total: total?.n ?? 0,
  };
}

/** The group names of the rules the actor sees, for the list's filter. */
export async function listGroups(deps: Deps, actor: Actor): Promise<string[]> {
  const rows = await deps.db
    .selectDistinct({ group: dataTransmitRules.groupName })
    .from(dataTransmitRules)
    .where(ownerFilter(actor, dataTransmitRules.uid))
    .orderBy(asc(dataTransmitRules.groupName));
  return rows.map((r) => r.group).filter((g) => g !== '');
}

/** A rule with its devices, whether the owner still controls each, their other rules and live counters. */
export async function getRule(
  deps: Deps,
  actor: Actor,
  id: number,
  live?: LiveCounters,
): Promise<DataTransmitDetail> {
  const rule = await findVisibleOwned(deps.db, actor, dataTransmitRules, id, 87004);
  const [owner] = await deps.db
    .select({ username: users.username, role: users.role })
    .from(users)
    .where(eq(users.id, rule.uid));
  const rows = await deps.db
    .select({ member: dataTransmitDevices, device: devices })
    .from(dataTransmitDevices)
    .innerJoin(devices, eq(devices.id, dataTransmitDevices.deviceId))
    .where(eq(dataTransmitDevices.ruleId, id))
    .orderBy(asc(dataTransmitDevices.role), asc(devices.sn));
  const deviceIds = rows.map((r) => r.device.id);
  // The owner's control shares on these devices (the rule acts for its owner, whoever looks at it).
  const ownerActor = { ...actor, uid: rule.uid, role: owner?.role ?? 'user', scopes: undefined };
  const shared =
    deviceIds.length === 0
      ? []
      : await withActorShare(deps.db, ownerActor).where(inArray(devices.id, deviceIds));
  const shareOf = new Map(shared.map((s) => [s.device.id, s.shared]));
  const others =
    deviceIds.length === 0
      ? []
      : await deps.db
          .select({
            deviceId: dataTransmitDevices.deviceId,
            id: dataTransmitRules.id,
            name: dataTransmitRules.name,
            role: dataTransmitDevices.role,
          })
          .from(dataTransmitDevices)
          .innerJoin(dataTransmitRules, eq(dataTransmitRules.id, dataTransmitDevices.ruleId))
          .where(and(inArray(dataTransmitDevices.deviceId, deviceIds), eq(dataTransmitRules.uid, rule.uid)))
          .orderBy(asc(dataTransmitRules.id));
  const ownerSubject = { uid: rule.uid, role: owner?.role ?? ('user' as const) };
  return {
    ...itemOf(rule, owner?.username ?? '', []),
    devices: rows.map(({ member: m, device: d }) => {
      const p = live?.pending(id, d.id);
      const share = shareOf.get(d.id);
      return {
        sn: d.sn,
        name: d.name,
        role: m.role,
        addresses: m.addresses,
        product_key: d.productKey,
        online: deps.link.online(d.sn, d.online) ? 1 : 0,
        allowed: ruleTransmitsDevice(ownerSubject, { uid: d.uid, ...(share ? { shared: share } : {}) }),
        other_rules: others
          .filter((o) => o.deviceId === d.id && o.id !== id)
          .map(({ id: ruleId, name, role }) => ({ id: ruleId, name, role })),
        counters: {
          frames_up: m.framesUp + (p?.frames_up ?? 0),
          bytes_up: m.bytesUp + (p?.bytes_up ?? 0),
          frames_down: m.framesDown + (p?.frames_down ?? 0),
          bytes_down: m.bytesDown + (p?.bytes_down ?? 0),
          drops: m.drops + (p?.drops ?? 0),
          last_error: p?.last_error ?? m.lastError,
          last_error_at: p?.last_error_at ?? iso(m.lastErrorAt),
          latency_ms: p?.latency_ms ?? m.latencyMs,
          latency_avg_ms: p?.latency_avg_ms ?? m.latencyAvgMs,
          last_frame_at: p?.last_frame_at ?? iso(m.lastFrameAt),
        },
      };
    }),
  };
}

/** Writes the members of a rule: removed ones go (with their counters), kept ones keep their counters. */
async function writeMembers(tx: DbOrTx, ruleId: number, members: Member[]): Promise<void> {
  const keep = members.map((m) => m.deviceId);
  await tx
    .delete(dataTransmitDevices)
    .where(
      and(
        eq(dataTransmitDevices.ruleId, ruleId),
        keep.length ? notInArray(dataTransmitDevices.deviceId, keep) : undefined,
      ),
    );
  await tx
    .insert(dataTransmitDevices)
    .values(members.map((m) => ({ ruleId, deviceId: m.deviceId, role: m.role, addresses: m.addresses })))
    .onConflictDoUpdate({
      target: [dataTransmitDevices.ruleId, dataTransmitDevices.deviceId],
      set: { role: sql`excluded.role`, addresses: sql`excluded.addresses` },
    });
}

export async function createRule(
  deps: Deps,
  actor: Actor,
  input: DataTransmitBody,
): Promise<DataTransmitItem> {
  const body = dataTransmitBody.parse(input);
  const id = await deps.db.transaction(async (tx) => {
    const members = await resolveMembers(tx, actor, body);
    const [row] = await tx
      .insert(dataTransmitRules)
      .values({
        uid: ownerOfNew(actor),
        name: body.name,
        status: body.status,
        groupName: body.group,
        addressMode: body.address_mode,
      })
      .returning({ id: dataTransmitRules.id });
    if (!row) throw new AppError(10109);
    await writeMembers(tx, row.id, members);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'data_transmit_create',
      target: String(row.id),
      ip: actor.ip,
      detail: { name: body.name, devices: members.length },
    });
    return row.id;
  });
  changed(deps, id);
  return itemById(deps, id);
}

export async function updateRule(
  deps: Deps,
  actor: Actor,
  id: number,
  input: DataTransmitBody,
): Promise<DataTransmitItem> {
  const body = dataTransmitBody.parse(input);
  await deps.db.transaction(async (tx) => {
    await findVisibleOwned(tx, actor, dataTransmitRules, id, 87004, true);
    const members = await resolveMembers(tx, actor, body);
    await tx
      .update(dataTransmitRules)
      .set({ name: body.name, status: body.status, groupName: body.group, addressMode: body.address_mode })
      .where(eq(dataTransmitRules.id, id));
    await writeMembers(tx, id, members);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'data_transmit_update',
      target: String(id),
      ip: actor.ip,
      detail: { name: body.name, devices: members.length },
    });
  });
  changed(deps, id);
  return itemById(deps, id);
}

export async function setRuleStatus(
  deps: Deps,
  actor: Actor,
  id: number,
  status: 0 | 1,
): Promise<DataTransmitItem> {
  await deps.db.transaction(async (tx) => {
    await findVisibleOwned(tx, actor, dataTransmitRules, id, 87004, true);
    await tx.update(dataTransmitRules).set({ status }).where(eq(dataTransmitRules.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'data_transmit_update',
      target: String(id),
      ip: actor.ip,
      detail: { status },
    });
  });
  changed(deps, id);
  return itemById(deps, id);
}

export async function deleteRule(deps: Deps, actor: Actor, id: number): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const rule = await findVisibleOwned(tx, actor, dataTransmitRules, id, 87004, true);
    await tx.delete(dataTransmitRules).where(eq(dataTransmitRules.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'data_transmit_delete',
      target: String(id),
      ip: actor.ip,
      detail: { name: rule.name },
    });
  });
  changed(deps, id);
}

async function itemById(deps: Deps, id: number): Promise<DataTransmitItem> {
  const [row] = await deps.db
    .select({ rule: dataTransmitRules, owner: users.username })
    .from(dataTransmitRules)
    .innerJoin(users, eq(users.id, dataTransmitRules.uid))
    .where(eq(dataTransmitRules.id, id));
  if (!row) throw new AppError(87004);
  const members = await membersOf(deps.db, [id]);
  return itemOf(
    row.rule,
    row.owner,
    members.map(({ sn, name, role, addresses }) => ({ sn, name, role, addresses })),
  );
}

/** Tells every instance's engine (this one included) to read the rules again. */
function changed(deps: Deps, id: number): void {
  deps.channels
    .notify(DATA_TRANSMIT_CHANNEL, String(id))
    .catch((err: unknown) => deps.log.warn({ err }, 'data transmit: change notify failed'));
}

/**
 * Devices the actor may put in a rule (those they control), matching a keyword in sn or name, each with the rules
 * of the actor it is already in.
 */
export async function listCandidates(
  deps: Deps,
  actor: Actor,
  query: PageQuery & { keyword?: string },
): Promise<{ items: TransmitCandidate[]; total: number }> {
  // Scopes (an access key) cap every device alike: asked once, of a device of the actor's own.
  if (!canControl(actor, { uid: actor.uid })) return { items: [], total: 0 };
  // The actor's own devices and those of a live control share (the share row of withActorShare's join).
  const where = and(
    isAdmin(actor) ? undefined : or(eq(devices.uid, actor.uid), eq(deviceShares.right, 'control')),
    query.keyword
      ? or(ilike(devices.sn, likeKeyword(query.keyword)), ilike(devices.name, likeKeyword(query.keyword)))
      : undefined,
  );
  const [rows, counted] = await Promise.all([
    withActorShare(deps.db, actor)
      .where(where)
      .orderBy(asc(devices.sn))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(devices)
      .leftJoin(
        deviceShares,
        and(
          eq(deviceShares.deviceId, devices.id),
          eq(deviceShares.granteeUid, actor.uid),
          eq(deviceShares.ownerUid, devices.uid),
          liveShareRow(),
        ),
      )
      .where(where),
  ]);
  const total = counted[0];
  const ids = rows.map((r) => r.device.id);
  const rules =
    ids.length === 0
      ? []
      : await deps.db
          .select({
            deviceId: dataTransmitDevices.deviceId,
            id: dataTransmitRules.id,
            name: dataTransmitRules.name,
            role: dataTransmitDevices.role,
          })
          .from(dataTransmitDevices)
          .innerJoin(dataTransmitRules, eq(dataTransmitRules.id, dataTransmitDevices.ruleId))
          .where(and(inArray(dataTransmitDevices.deviceId, ids), ownerFilter(actor, dataTransmitRules.uid)))
          .orderBy(asc(dataTransmitRules.id));
  return {
    items: rows.map(({ device: d }) => ({
      sn: d.sn,
      name: d.name,
      product_key: d.productKey,
      online: d.online === 1 ? 1 : 0,
      rules: rules.filter((r) => r.deviceId === d.id).map(({ id, name, role }) => ({ id, name, role })),
    })),
    total: total?.n ?? 0,
  };
}
