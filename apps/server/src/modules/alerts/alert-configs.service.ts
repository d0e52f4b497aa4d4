import { and, asc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import {
  type AlertConfigItem,
  type alertConfigListQuery,
  type AlertConfigParsed,
  alertConfigProblem,
} from '@cellhub/contract/alerts';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword, ownedPage } from '../../lib/paging';
import { findVisibleOwned, ownerOfNew } from '../../lib/authz';
import { writeAudit } from '../audit/audit.service';
import { assertOwnContacts, contactRefs } from './alert-contacts.service';
import { assertOwnTriggers, triggerRefs } from './alert-triggers.service';
import { alertConfigContacts, alertConfigs, type AlertConfigRow, alertConfigTriggers } from './alerts.table';

async function links(db: DbOrTx, ids: number[]) {
  const triggers = new Map<number, number[]>();
  const contacts = new Map<number, number[]>();
  if (ids.length === 0) return { triggers, contacts };
  const [t, c] = await Promise.all([
    db
      .select()
      .from(alertConfigTriggers)
      .where(inArray(alertConfigTriggers.configId, ids))
      .orderBy(asc(alertConfigTriggers.triggerId)),
    db
      .select()
      .from(alertConfigContacts)
      .where(inArray(alertConfigContacts.configId, ids))
      .orderBy(asc(alertConfigContacts.contactId)),
  ]);
  for (const r of t) triggers.set(r.configId, [...(triggers.get(r.configId) ?? []), r.triggerId]);
  for (const r of c) contacts.set(r.configId, [...(contacts.get(r.configId) ?? []), r.contactId]);
  return { triggers, contacts };
}

async function toItems(db: DbOrTx, rows: AlertConfigRow[]): Promise<AlertConfigItem[]> {
  const { triggers, contacts } = await links(
    db,
    rows.map((r) => r.id),
  );
  const [tNames, cNames] = await Promise.all([
    triggerRefs(db, [...new Set([...triggers.values()].flat())]),
    contactRefs(db, [...new Set([...contacts.values()].flat())]),
  ]);
  return rows.map((r) => {
    const tids = triggers.get(r.id) ?? [];
    const cids = contacts.get(r.id) ?? [];
    return {
      id: r.id,
      uid: r.uid,
      name: r.name,
      enable: r.enable === 1 ? 1 : 0,
      trigger_ids: tids,
      triggers: tids.map((id) => ({ id, name: tNames.get(id) ?? '' })),
      contact_ids: cids,
      contacts: cids.map((id) => ({ id, name: cNames.get(id) ?? '' })),
      methods: r.methods,
      interval_s: r.intervalS,
      push_mode: r.pushMode,
      remark: r.remark,
      createdat: r.createdat.toISOString(),
      updatedat: r.updatedat.toISOString(),
    };
  });
}

export async function visibleConfig(deps: Deps, actor: Actor, id: number): Promise<AlertConfigRow> {
  return findVisibleOwned(deps.db, actor, alertConfigs, id, 10107);
}

export async function getConfig(deps: Deps, actor: Actor, id: number): Promise<AlertConfigItem> {
  const [item] = await toItems(deps.db, [await visibleConfig(deps, actor, id)]);
  return item!;
}

export async function listConfigs(
  deps: Deps,
  actor: Actor,
  query: z.infer<typeof alertConfigListQuery>,
): Promise<{ items: AlertConfigItem[]; total: number }> {
  const filters: (SQL | undefined)[] = [];
  if (query.keyword) filters.push(ilike(alertConfigs.name, likeKeyword(query.keyword)));
  if (query.enable !== undefined) filters.push(eq(alertConfigs.enable, query.enable));
  if (query.trigger_id !== undefined) {
    filters.push(
      inArray(
        alertConfigs.id,
        deps.db
          .select({ id: alertConfigTriggers.configId })
          .from(alertConfigTriggers)
          .where(eq(alertConfigTriggers.triggerId, query.trigger_id)),
      ),
    );
  }
  const { rows, total } = await ownedPage(deps, alertConfigs, actor, query, and(...filters));
  return { items: await toItems(deps.db, rows), total };
}

/** The seed's codes (11007 no trigger, 11010 no interval, 11011 no push user), then ownership of every link. */
async function check(deps: Deps, ownerUid: number, input: AlertConfigParsed): Promise<number> {
  const problem = alertConfigProblem(input);
  if (problem) {
    if (problem.code === 10113) throw formError(problem.field, 'required');
    throw new AppError(problem.code, 400, undefined, [{ field: problem.field, message: 'required' }]);
  }
  await assertOwnTriggers(deps.db, ownerUid, input.trigger_ids);
  await assertOwnContacts(deps.db, ownerUid, input.contact_ids);
  return input.interval_s!;
}

async function replaceLinks(tx: DbOrTx, configId: number, input: AlertConfigParsed): Promise<void> {
  await tx.delete(alertConfigTriggers).where(eq(alertConfigTriggers.configId, configId));
  await tx.delete(alertConfigContacts).where(eq(alertConfigContacts.configId, configId));
  if (input.trigger_ids.length > 0) {
    await tx
      .insert(alertConfigTriggers)
      .values(input.trigger_ids.map((triggerId) => ({ configId, triggerId })));
  }
  if (input.contact_ids.length > 0) {
    await tx
      .insert(alertConfigContacts)
      .values(input.contact_ids.map((contactId) => ({ configId, contactId })));
  }
}

const columns = (input: AlertConfigParsed, intervalS: number) => ({
  name: input.name,
  enable: input.enable,
  methods: input.methods,
  intervalS,
  pushMode: input.push_mode,
  remark: input.remark,
});

export async function createConfig(
  deps: Deps,
  actor: Actor,
  input: AlertConfigParsed,
): Promise<AlertConfigItem> {
  // The new configuration's owner is the one whose contacts it may name.
  const owner = ownerOfNew(actor);
  const intervalS = await check(deps, owner, input);
  const row = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(alertConfigs)
      .values({ ...columns(input, intervalS), uid: owner })
      .returning();
    if (!created) throw new AppError(10109);
    await replaceLinks(tx, created.id, input);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_config_create',
      target: `alert_config:${created.id}`,
      ip: actor.ip,
      detail: { name: input.name, trigger_ids: input.trigger_ids },
    });
    return created;
  });
  return getConfig(deps, actor, row.id);
}

/**
 * Replaces the whole configuration. The evaluator reads configurations when it pushes, so the next push follows the
 * change without a reload.
 */
export async function updateConfig(
  deps: Deps,
  actor: Actor,
  id: number,
  input: AlertConfigParsed,
): Promise<AlertConfigItem> {
  const config = await visibleConfig(deps, actor, id);
  const intervalS = await check(deps, config.uid, input);
  await deps.db.transaction(async (tx) => {
    await tx.update(alertConfigs).set(columns(input, intervalS)).where(eq(alertConfigs.id, config.id));
    await replaceLinks(tx, config.id, input);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_config_update',
      target: `alert_config:${config.id}`,
      ip: actor.ip,
      detail: { name: input.name, trigger_ids: input.trigger_ids, enable: input.enable },
    });
  });
  return getConfig(deps, actor, config.id);
}

export async function deleteConfig(deps: Deps, actor: Actor, id: number): Promise<void> {
  const config = await visibleConfig(deps, actor, id);
  await deps.db.transaction(async (tx) => {
    await tx.delete(alertConfigs).where(eq(alertConfigs.id, config.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_config_delete',
      target: `alert_config:${config.id}`,
      ip: actor.ip,
      detail: { name: config.name },
    });
  });
}
