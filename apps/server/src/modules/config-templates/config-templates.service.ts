import { and, asc, count, desc, eq, gte, ilike, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  type ConfigApply,
  type ConfigApplyResult,
  type ConfigApplySummary,
  type ConfigTemplateItem,
  type ConfigTemplateListQuery,
  type configTemplateBody,
  type configTemplateUpdateBody,
} from '@cellhub/contract/config-templates';
import type { DeviceConfig } from '@cellhub/contract/device-config';
import { AppError } from '../../lib/app-error';
import { countPerId, likeKeyword, ownedPage } from '../../lib/paging';
import { findVisibleOwned, ownerOfNew } from '../../lib/authz';
import { writeAudit } from '../audit/audit.service';
import type { Actor, Deps } from '../../lib/deps';
import { mergeIntoDeviceConfig } from '../device-config/device-config.service';
import { accessibleDevice } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import {
  configApplyResults,
  configTemplateApplies,
  type ConfigTemplateRow,
  configTemplates,
} from './config-templates.table';

/** Devices of one apply are updated this many at a time. */
const APPLY_CONCURRENCY = 8;

function toItem(row: ConfigTemplateRow, applies: number): ConfigTemplateItem {
  return {
    id: row.id,
    uid: row.uid,
    name: row.name,
    description: row.description,
    config: row.config,
    applies,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

/** The template if the actor may use it; otherwise 10107, exactly as if it did not exist. */
async function visibleTemplate(deps: Deps, actor: Actor, id: number): Promise<ConfigTemplateRow> {
  return findVisibleOwned(deps.db, actor, configTemplates, id, 10107);
}

const applyCounts = (deps: Deps, ids: number[]) => countPerId(deps, configTemplateApplies.templateId, ids);

export async function listConfigTemplates(
  deps: Deps,
  actor: Actor,
  query: ConfigTemplateListQuery,
): Promise<{ items: ConfigTemplateItem[]; total: number }> {
  const filter = query.keyword ? ilike(configTemplates.name, likeKeyword(query.keyword)) : undefined;
  const { rows, total } = await ownedPage(deps, configTemplates, actor, query, filter);
  const applies = await applyCounts(
    deps,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toItem(r, applies.get(r.id) ?? 0)), total };
}

export async function getConfigTemplate(deps: Deps, actor: Actor, id: number): Promise<ConfigTemplateItem> {
  const row = await visibleTemplate(deps, actor, id);
  return toItem(row, (await applyCounts(deps, [id])).get(id) ?? 0);
}

export async function createConfigTemplate(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof configTemplateBody>,
): Promise<ConfigTemplateItem> {
  const row = await deps.db.transaction(async (tx) => {
    const [made] = await tx
      .insert(configTemplates)
      .values({ uid: ownerOfNew(actor), name: body.name, description: body.description, config: body.config })
      .returning();
    if (!made) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'config_template_create',
      target: `config-template:${made.id}`,
      ip: actor.ip,
      detail: { name: made.name },
    });
    return made;
  });
  return toItem(row, 0);
}

export async function updateConfigTemplate(
  deps: Deps,
  actor: Actor,
  id: number,
  body: z.output<typeof configTemplateUpdateBody>,
): Promise<ConfigTemplateItem> {
  const current = await visibleTemplate(deps, actor, id);
  const row = await deps.db.transaction(async (tx) => {
    const [changed] = await tx
      .update(configTemplates)
      .set({
        name: body.name ?? current.name,
        description: body.description ?? current.description,
        config: body.config ?? current.config,
      })
      .where(eq(configTemplates.id, id))
      .returning();
    if (!changed) throw new AppError(10110);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'config_template_update',
      target: `config-template:${id}`,
      ip: actor.ip,
      detail: { name: changed.name },
    });
    return changed;
  });
  return toItem(row, (await applyCounts(deps, [id])).get(id) ?? 0);
}

export async function deleteConfigTemplate(deps: Deps, actor: Actor, id: number): Promise<void> {
  await visibleTemplate(deps, actor, id);
  await deps.db.transaction(async (tx) => {
    await tx.delete(configTemplates).where(eq(configTemplates.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'config_template_delete',
      target: `config-template:${id}`,
      ip: actor.ip,
    });
  });
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

interface ApplyOutcome {
  sn: string;
  deviceId: number | null;
  version: number | null;
  sent: boolean;
}

/**
 * Merges the template into each device's expected configuration through the device configuration service, which
 * reads, merges and writes under the device's row lock (so a concurrent edit or apply is merged into, not lost),
 * bumps the version and writes the device log, audit row, device.config event and the push when online. A device
 * that is not the caller's is reported `not_found` and left alone.
 */
export async function applyConfigTemplate(
  deps: Deps,
  actor: Actor,
  id: number,
  sns: string[],
): Promise<ConfigApply> {
  const template = await visibleTemplate(deps, actor, id);
  const patch = template.config as DeviceConfig;
  const [apply] = await deps.db
    .insert(configTemplateApplies)
    .values({ templateId: template.id, uid: actor.uid, total: sns.length })
    .returning();
  if (!apply) throw new AppError(10109);
  const outcomes = await mapLimited(sns, APPLY_CONCURRENCY, async (sn): Promise<ApplyOutcome> => {
    let device;
    let state;
    try {
      device = await accessibleDevice(deps.db, actor, sn, 'control');
      state = await mergeIntoDeviceConfig(deps, actor, sn, patch);
    } catch (err) {
      // Not found, or not the caller's to configure: the line reports it without saying which.
      if (err instanceof AppError && (err.code === 10117 || err.code === 10108))
        return { sn, deviceId: null, version: null, sent: false };
      throw err;
    }
    return { sn, deviceId: device.id, version: state.expect_config_version, sent: state.sent === true };
  });
  await deps.db.insert(configApplyResults).values(
    outcomes.map((o, position) => ({
      applyId: apply.id,
      position,
      sn: o.sn,
      deviceId: o.deviceId,
      version: o.version,
      sent: o.sent,
    })),
  );
  const results = await applyResults(deps, apply.id);
  return { ...toSummary(apply, results.filter((r) => r.status === 'synced').length), results };
}

function toSummary(row: typeof configTemplateApplies.$inferSelect, synced: number): ConfigApplySummary {
  return {
    id: row.id,
    template_id: row.templateId,
    total: row.total,
    synced,
    createdat: row.createdat.toISOString(),
  };
}

async function applyResults(deps: Deps, applyId: number): Promise<ConfigApplyResult[]> {
  const rows = await deps.db
    .select({
      r: configApplyResults,
      configVersion: devices.configVersion,
      online: devices.online,
    })
    .from(configApplyResults)
    .leftJoin(devices, eq(devices.id, configApplyResults.deviceId))
    .where(eq(configApplyResults.applyId, applyId))
    .orderBy(asc(configApplyResults.position));
  return rows.map(({ r, configVersion, online }) => ({
    sn: r.sn,
    status:
      r.version === null
        ? 'not_found'
        : configVersion !== null && configVersion >= r.version
          ? 'synced'
          : 'pending',
    version: r.version,
    config_version: configVersion,
    online: online === null ? null : online === 1 ? 1 : 0,
    sent: r.sent,
  }));
}

export async function listApplies(
  deps: Deps,
  actor: Actor,
  id: number,
  page: { current: number; per_page: number },
): Promise<{ items: ConfigApplySummary[]; total: number }> {
  await visibleTemplate(deps, actor, id);
  const where = eq(configTemplateApplies.templateId, id);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(configTemplateApplies)
      .where(where)
      .orderBy(desc(configTemplateApplies.id))
      .limit(page.per_page)
      .offset((page.current - 1) * page.per_page),
    deps.db.select({ n: count() }).from(configTemplateApplies).where(where),
  ]);
  const synced = new Map<number, number>();
  if (rows.length > 0) {
    const counts = await deps.db
      .select({ applyId: configApplyResults.applyId, n: count() })
      .from(configApplyResults)
      .innerJoin(devices, eq(devices.id, configApplyResults.deviceId))
      .where(
        and(
          inArray(
            configApplyResults.applyId,
            rows.map((r) => r.id),
          ),
          gte(devices.configVersion, sql`${configApplyResults.version}`),
        ),
      )
      .groupBy(configApplyResults.applyId);
    for (const c of counts) synced.set(c.applyId, c.n);
  }
  return { items: rows.map((r) => toSummary(r, synced.get(r.id) ?? 0)), total: total?.n ?? 0 };
}

export async function getApply(deps: Deps, actor: Actor, id: number, applyId: number): Promise<ConfigApply> {
  await visibleTemplate(deps, actor, id);
  const [row] = await deps.db
    .select()
    .from(configTemplateApplies)
    .where(and(eq(configTemplateApplies.id, applyId), eq(configTemplateApplies.templateId, id)));
  if (!row) throw new AppError(10107);
  const results = await applyResults(deps, row.id);
  return { ...toSummary(row, results.filter((r) => r.status === 'synced').length), results };
}
