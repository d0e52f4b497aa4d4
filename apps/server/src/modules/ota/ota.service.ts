import { and, asc, count, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import {
  OTA_MAX_TARGETS,
  otaActionAllowed,
  type OtaDeviceItem,
  type otaDeviceListQuery,
  type OtaTargetsParsed,
  type OtaTargetsSummary,
  type OtaTaskAction,
  type OtaTaskCounts,
  type OtaTaskCreateParsed,
  type OtaTaskDetail,
  type OtaTaskItem,
  type otaTaskListQuery,
  type OtaTaskPreview,
  type otaTaskPreviewBody,
} from '@cellhub/contract/ota';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { findVisibleOwned, ownerFilter, owns } from '../../lib/authz';
import { writeAudit } from '../audit/audit.service';
import { devices } from '../devices/devices.table';
import { getFirmwareVersionFile, isFirmwareVersionUsable } from '../firmware/firmware.service';
import { firmwares } from '../firmware/firmware.table';
import { findProductByKey } from '../products/products.service';
import { products } from '../products/products.table';
import { users } from '../users/users.table';
import { NO_RESULT, otaResult, type OtaResult } from './ota-results';
import { type OtaTaskRow, otaDevices, otaTasks } from './ota.table';
import { simDownloadCheck } from './sim-check';

type Counts = OtaTaskCounts & {
  statusCounts: Record<string, number>;
  downloads: number;
  /** Rows sent at least once or still to be sent (not skipped or cancelled before any send). */
  downloadDevices: number;
};

const emptyCounts = (): Counts => ({
  device_count: 0,
  success_count: 0,
  fail_count: 0,
  upgrading_count: 0,
  pending_count: 0,
  skipped_count: 0,
  cancelled_count: 0,
  statusCounts: { '0': 0, '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, '6': 0 },
  downloads: 0,
  downloadDevices: 0,
});

/** Counts of the upgrade log of each task, from the rows themselves (one grouped scan; no counters to drift). */
export async function taskCounts(db: DbOrTx, ids: number[]): Promise<Map<number, Counts>> {
  const out = new Map<number, Counts>();
  if (ids.length === 0) return out;
  for (const id of ids) out.set(id, emptyCounts());
  const rows = await db
    .select({
      taskId: otaDevices.taskId,
      phase: otaDevices.phase,
      status: otaDevices.status,
      sent: sql<boolean>`(${otaDevices.attempts} > 0)`,
      n: count(),
      downloads: sql<number>`coalesce(sum(${otaDevices.downloads}), 0)::int`,
    })
    .from(otaDevices)
    .where(inArray(otaDevices.taskId, ids))
    .groupBy(otaDevices.taskId, otaDevices.phase, otaDevices.status, sql`(${otaDevices.attempts} > 0)`);
  for (const r of rows) {
    const c = out.get(r.taskId)!;
    const n = Number(r.n);
    c.device_count += n;
    c.downloads += Number(r.downloads);
    c.statusCounts[String(r.status)] = (c.statusCounts[String(r.status)] ?? 0) + n;
    switch (r.phase) {
      case 'succeeded':
        c.success_count += n;
        break;
      case 'failed':
        c.fail_count += n;
        break;
      case 'dispatched':
        c.upgrading_count += n;
        break;
      case 'skipped':
        c.skipped_count += n;
        break;
      case 'cancelled':
        c.cancelled_count += n;
        break;
      default:
        c.pending_count += n;
    }
    if (r.sent || (r.phase !== 'skipped' && r.phase !== 'cancelled')) c.downloadDevices += n;
  }
  return out;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export const countsOf = (c: Counts): OtaTaskCounts => ({
  device_count: c.device_count,
  success_count: c.success_count,
  fail_count: c.fail_count,
  upgrading_count: c.upgrading_count,
  pending_count: c.pending_count,
  skipped_count: c.skipped_count,
  cancelled_count: c.cancelled_count,
});

function toItem(t: OtaTaskRow, c: Counts, owner: string | null, productName: string): OtaTaskItem {
  return {
    ...countsOf(c),
    id: t.id,
    uid: t.uid,
    owner,
    name: t.name,
    description: t.description,
    product_key: t.productKey,
    product_name: productName,
    firmware_id: t.firmwareId,
    firmware_name: t.firmwareName,
    version_id: t.versionId,
    version: t.version,
    size: t.size,
    status: t.status,
    pause_reason: t.pauseReason ?? null,
    plan_time: iso(t.planTime),
    start_time: iso(t.startTime),
    end_time: iso(t.endTime),
    window_end: iso(t.windowEnd),
    createdat: t.createdat.toISOString(),
    updatedat: t.updatedat.toISOString(),
  };
}

/** Owner usernames and product names of a page of tasks. */
async function namesOf(
  db: DbOrTx,
  rows: OtaTaskRow[],
): Promise<{ owners: Map<number, string>; productNames: Map<string, string> }> {
  const uids = [...new Set(rows.map((r) => r.uid))];
  const keys = [...new Set(rows.map((r) => r.productKey))];
  const [u, p] = await Promise.all([
    uids.length
      ? db.select({ id: users.id, username: users.username }).from(users).where(inArray(users.id, uids))
      : [],
    keys.length
      ? db
          .select({ key: products.productKey, name: products.name })
          .from(products)
          .where(inArray(products.productKey, keys))
      : [],
  ]);
  return {
    owners: new Map(u.map((r) => [r.id, r.username])),
    productNames: new Map(p.map((r) => [r.key, r.name])),
  };
}

async function toDetail(db: DbOrTx, t: OtaTaskRow): Promise<OtaTaskDetail> {
  const [counts, names] = await Promise.all([taskCounts(db, [t.id]), namesOf(db, [t])]);
  const c = counts.get(t.id)!;
  return {
    ...toItem(t, c, names.owners.get(t.uid) ?? null, names.productNames.get(t.productKey) ?? ''),
    targets: t.targets,
    policy: t.policy,
    status_counts: c.statusCounts,
    download_bytes: t.size * c.downloadDevices,
    downloads: c.downloads,
    wave_count: t.waveCount,
    current_wave: t.currentWave,
    next_wave_at: iso(t.nextWaveAt),
  };
}

/** The task if the actor may see it (own, or any for admins); otherwise 10107, as if it did not exist. */
async function visibleTask(db: DbOrTx, actor: Actor, id: number): Promise<OtaTaskRow> {
  return findVisibleOwned(db, actor, otaTasks, id, 10107);
}

// --- targets --------------------------------------------------------------------------------------------------

interface TargetDevice {
  id: number;
  sn: string;
  fwVersion: string;
  online: number;
}

/**
 * A product the actor may roll out to: one they own, or (for a user) one their devices belong to, as devices an
 * admin handed out keep the admin's product. 10107 otherwise.
 */
async function usableProduct(deps: Deps, actor: Actor, productKey: string): Promise<void> {
  const product = await findProductByKey(deps.db, productKey);
  if (owns(actor, product)) return;
  if (!product) throw new AppError(10107);
  const [own] = await deps.db
    .select({ id: devices.id })
    .from(devices)
    .where(and(eq(devices.productKey, productKey), eq(devices.uid, actor.uid)))
    .limit(1);
  if (!own) throw new AppError(10107);
}

/** The version if the actor may use it for this product: 70001 unknown or not usable, 71003 other product. */
async function usableVersion(deps: Deps, actor: Actor, productKey: string, versionId: number) {
  const file = await getFirmwareVersionFile(deps, versionId);
  if (!file || !(await isFirmwareVersionUsable(deps, actor, versionId))) throw new AppError(70001);
  if (file.productKey !== productKey)
    throw new AppError(71003, 400, undefined, [{ field: 'version_id', message: 'other product' }]);
  const [fw] = await deps.db
    .select({ name: firmwares.name })
    .from(firmwares)
    .where(eq(firmwares.id, file.firmwareId));
  return { ...file, firmwareName: fw?.name ?? '' };
}

/**
 * The actor's devices of the product that the targets name, in a stable order (list order for lists, id order
 * otherwise), and the listed serial numbers that are not such devices.
 */
async function resolveTargets(
  deps: Deps,
  actor: Actor,
  productKey: string,
  targets: OtaTargetsParsed,
): Promise<{ devices: TargetDevice[]; notFound: string[] }> {
  const cols = { id: devices.id, sn: devices.sn, fwVersion: devices.fwVersion, online: devices.online };
  const scope = and(eq(devices.productKey, productKey), ownerFilter(actor, devices.uid));
  if (targets.type === 'list' || targets.type === 'pick') {
    const found = new Map<string, TargetDevice>();
    for (let i = 0; i < targets.sns.length; i += 5000) {
      const rows = await deps.db
        .select(cols)
        .from(devices)
        .where(and(scope, inArray(devices.sn, targets.sns.slice(i, i + 5000))));
      for (const r of rows) found.set(r.sn, r);
    }
    const list: TargetDevice[] = [];
    const notFound: string[] = [];
    for (const sn of targets.sns) {
      const d = found.get(sn);
      if (d) list.push(d);
      else notFound.push(sn);
    }
    return { devices: list, notFound };
  }
  const conditions: (SQL | undefined)[] = [scope];
  if (targets.type === 'filter') {
    if (targets.keyword) {
      const like = likeKeyword(targets.keyword);
      conditions.push(or(ilike(devices.sn, like), ilike(devices.name, like)));
    }
    if (targets.online !== undefined) conditions.push(eq(devices.online, targets.online));
    if (targets.fw_version !== undefined) conditions.push(eq(devices.fwVersion, targets.fw_version));
  }
  const rows = await deps.db
    .select(cols)
    .from(devices)
    .where(and(...conditions))
    .orderBy(asc(devices.id))
    .limit(OTA_MAX_TARGETS + 1);
  return { devices: rows, notFound: [] };
}

function tooMany(n: number): void {
  if (n > OTA_MAX_TARGETS)
    throw new AppError(71007, 400, `at most ${OTA_MAX_TARGETS} devices per task`, [
      { field: 'targets', message: `more than ${OTA_MAX_TARGETS} devices` },
    ]);
}

function summarise(targets: OtaTargetsParsed): OtaTargetsSummary {
  if (targets.type === 'list' || targets.type === 'pick')
    return { type: targets.type, sn_count: targets.sns.length };
  if (targets.type === 'filter') {
    const { keyword, online, fw_version } = targets;
    return {
      type: 'filter',
      ...(keyword !== undefined ? { keyword } : {}),
      ...(online !== undefined ? { online } : {}),
      ...(fw_version !== undefined ? { fw_version } : {}),
    };
  }
  return { type: 'all' };
}

const notFoundError = (notFound: string[]) =>
  new AppError(10117, 400, `${notFound.length} of the listed devices are not yours or not of this product`, {
    not_found: notFound.slice(0, 100),
  });

// --- preview and create ---------------------------------------------------------------------------------------

export async function previewTask(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof otaTaskPreviewBody>,
): Promise<OtaTaskPreview> {
  await usableProduct(deps, actor, body.product_key);
  const version = await usableVersion(deps, actor, body.product_key, body.version_id);
  const { devices: list, notFound } = await resolveTargets(deps, actor, body.product_key, body.targets);
  tooMany(list.length);
  const same = list.filter((d) => d.fwVersion === version.version);
  const sending = body.skip_same_version ? list.filter((d) => d.fwVersion !== version.version) : list;
  const verdicts = await simDownloadCheck(
    deps.db,
    sending.map((d) => d.sn),
    version.size,
  );
  let blocked = 0;
  for (const d of sending) if (verdicts.get(d.sn)?.ok === false) blocked++;
  const downloadDevices = sending.length - blocked;
  return {
    device_count: list.length,
    same_version_count: same.length,
    online_count: list.filter((d) => d.online === 1).length,
    sim_blocked_count: blocked,
    download_devices: downloadDevices,
    size: version.size,
    download_bytes: version.size * downloadDevices,
    not_found: notFound.slice(0, 1000),
    version: version.version,
  };
}

/** Rows per wave and number of waves for `n` devices to send. */
export function waveLayout(
  policy: OtaTaskCreateParsed['policy'],
  n: number,
): { size: number; count: number } {
  const size =
    policy.wave_type === 'count'
      ? policy.wave_size
      : Math.max(1, Math.ceil((Math.max(n, 1) * policy.wave_size) / 100));
  return { size, count: Math.max(1, Math.ceil(n / size)) };
}

const INSERT_CHUNK = 10_000;

export async function createTask(
  deps: Deps,
  actor: Actor,
  body: OtaTaskCreateParsed,
): Promise<OtaTaskDetail> {
  await usableProduct(deps, actor, body.product_key);
  const version = await usableVersion(deps, actor, body.product_key, body.version_id);
  const { devices: list, notFound } = await resolveTargets(deps, actor, body.product_key, body.targets);
  if (notFound.length > 0) throw notFoundError(notFound);
  tooMany(list.length);
  if (list.length === 0) throw new AppError(71002);
  const now = deps.now();
  if (body.window_end && Date.parse(body.window_end) <= now.getTime())
    throw new AppError(10113, 400, undefined, [{ field: 'window_end', message: 'in_the_past' }]);
  const skip = (d: TargetDevice) => body.policy.skip_same_version && d.fwVersion === version.version;
  const active = list.filter((d) => !skip(d)).length;
  const waves = waveLayout(body.policy, active);

  const row = await deps.db.transaction(async (tx) => {
    const [task] = await tx
      .insert(otaTasks)
      .values({
        uid: actor.uid,
        name: body.name,
        description: body.description,
        productKey: body.product_key,
        firmwareId: version.firmwareId,
        firmwareName: version.firmwareName,
        versionId: version.id,
        version: version.version,
        size: version.size,
        checksum: version.checksum,
        algorithm: version.algorithm,
        targets: summarise(body.targets),
        policy: body.policy,
        planTime: body.plan_time ? new Date(body.plan_time) : null,
        windowEnd: body.window_end ? new Date(body.window_end) : null,
        waveSize: waves.size,
        waveCount: waves.count,
      })
      .returning();
    if (!task) throw new AppError(10109);
    let index = 0;
    for (let i = 0; i < list.length; i += INSERT_CHUNK) {
      const chunk = list.slice(i, i + INSERT_CHUNK);
      const ids: number[] = [];
      const sns: string[] = [];
      const seqs: number[] = [];
      const wavesOf: number[] = [];
      const phases: string[] = [];
      const results: OtaResult[] = [];
      chunk.forEach((d, j) => {
        ids.push(d.id);
        sns.push(d.sn);
        seqs.push(i + j);
        if (skip(d)) {
          wavesOf.push(0);
          phases.push('skipped');
          results.push(otaResult('already_on_version', { version: version.version }));
        } else {
          wavesOf.push(Math.floor(index++ / waves.size) + 1);
          phases.push('pending');
          results.push(NO_RESULT);
        }
      });
      await tx.execute(sql`
        insert into ota_devices (task_id, device_id, sn, product_key, seq, wave, phase, result, result_code,
          result_params, finished_at)
        select ${task.id}, v.device_id, v.sn, ${body.product_key}, v.seq, v.wave, v.phase, v.result,
          v.result_code, v.result_params, case when v.phase = 'skipped' then ${now.toISOString()}::timestamptz end
        from unnest(${sql.param(ids)}::int[], ${sql.param(sns)}::text[], ${sql.param(seqs)}::int[],
          ${sql.param(wavesOf)}::int[], ${sql.param(phases)}::text[],
          ${sql.param(results.map((r) => r.result))}::text[], ${sql.param(results.map((r) => r.resultCode))}::text[],
          ${sql.param(results.map((r) => JSON.stringify(r.resultParams)))}::jsonb[])
          as v(device_id, sn, seq, wave, phase, result, result_code, result_params)`);
    }
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'ota_task_create',
      target: `ota-task:${task.id}`,
      ip: actor.ip,
      detail: {
        name: task.name,
        product_key: task.productKey,
        version_id: task.versionId,
        version: task.version,
        devices: list.length,
        targets: task.targets,
      },
    });
    return task;
  });
  deps.events.emit({ type: 'ota.task.changed', taskId: row.id });
  return toDetail(deps.db, row);
}

// --- read -----------------------------------------------------------------------------------------------------

export async function listTasks(
  deps: Deps,
  actor: Actor,
  query: z.output<typeof otaTaskListQuery>,
): Promise<{ items: OtaTaskItem[]; total: number }> {
  const where = and(
    ownerFilter(actor, otaTasks.uid),
    query.keyword ? ilike(otaTasks.name, likeKeyword(query.keyword)) : undefined,
    query.status ? eq(otaTasks.status, query.status) : undefined,
    query.product_key ? eq(otaTasks.productKey, query.product_key) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(otaTasks)
      .where(where)
      .orderBy(sql`${otaTasks.id} desc`)
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(otaTasks).where(where),
  ]);
  const [counts, names] = await Promise.all([
    taskCounts(
      deps.db,
      rows.map((r) => r.id),
    ),
    namesOf(deps.db, rows),
  ]);
  return {
    items: rows.map((r) =>
      toItem(
        r,
        counts.get(r.id) ?? emptyCounts(),
        names.owners.get(r.uid) ?? null,
        names.productNames.get(r.productKey) ?? '',
      ),
    ),
    total: total?.n ?? 0,
  };
}

export async function getTask(deps: Deps, actor: Actor, id: number): Promise<OtaTaskDetail> {
  return toDetail(deps.db, await visibleTask(deps.db, actor, id));
}

export async function listTaskDevices(
  deps: Deps,
  actor: Actor,
  id: number,
  query: z.output<typeof otaDeviceListQuery>,
): Promise<{ items: OtaDeviceItem[]; total: number }> {
  const task = await visibleTask(deps.db, actor, id);
  const like = query.keyword ? likeKeyword(query.keyword) : undefined;
  const where = and(
    eq(otaDevices.taskId, id),
    query.status !== undefined ? eq(otaDevices.status, query.status) : undefined,
    query.phase ? eq(otaDevices.phase, query.phase) : undefined,
    like ? or(ilike(otaDevices.sn, like), ilike(devices.name, like)) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ r: otaDevices, name: devices.name })
      .from(otaDevices)
      .innerJoin(devices, eq(devices.id, otaDevices.deviceId))
      .where(where)
      .orderBy(asc(otaDevices.seq))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(otaDevices)
      .innerJoin(devices, eq(devices.id, otaDevices.deviceId))
      .where(where),
  ]);
  return {
    items: rows.map(({ r, name }) => ({
      id: r.id,
      taskid: r.taskId,
      firmwareid: task.firmwareId,
      firmwarename: task.firmwareName,
      devicekey: r.sn,
      devicename: name,
      product_key: r.productKey,
      version: task.version,
      status: r.status,
      phase: r.phase,
      result: r.result,
      result_code: r.resultCode,
      result_params: r.resultParams,
      progress: r.progress,
      attempts: r.attempts,
      retries: Math.max(0, r.attempts - 1),
      timed_out: r.timedOut,
      upgrade_id: r.upgradeId,
      wave: r.wave,
      next_attempt_at: iso(r.nextAttemptAt),
      dispatched_at: iso(r.dispatchedAt),
      reported_at: iso(r.reportedAt),
      finished_at: iso(r.finishedAt),
      downloads: r.downloads,
      createdat: r.createdat.toISOString(),
      updatedat: r.updatedat.toISOString(),
    })),
    total: total?.n ?? 0,
  };
}

// --- actions --------------------------------------------------------------------------------------------------

/** Failed and ended (succeeded + failed) rows now: the failure threshold counts from here after a (re)start. */
async function thresholdBase(tx: DbOrTx, taskId: number): Promise<{ failed: number; ended: number }> {
  const [r] = await tx
    .select({
      failed: sql<number>`count(*) filter (where ${otaDevices.phase} = 'failed')::int`,
      ended: sql<number>`count(*) filter (where ${otaDevices.phase} in ('failed', 'succeeded'))::int`,
    })
    .from(otaDevices)
    .where(eq(otaDevices.taskId, taskId));
  return { failed: Number(r?.failed ?? 0), ended: Number(r?.ended ?? 0) };
}

const refused = (status: string, action: OtaTaskAction) =>
  new AppError(71001, 400, `A task that is ${status} cannot ${action === 'start' ? 'start' : action}`, {
    status,
    action,
  });

/**
 * start (inactive -> running, paused -> running), pause (running -> paused), cancel (inactive, running, paused ->
 * cancelled), delete (inactive, done, cancelled). Checked and changed under the task row's lock, audited in the
 * same transaction; any other combination answers 71001.
 */
export async function taskAction(
  deps: Deps,
  actor: Actor,
  id: number,
  action: OtaTaskAction,
): Promise<OtaTaskDetail | null> {
  const now = deps.now();
  let deleted: { uid: number; productKey: string } | undefined;
  const result = await deps.db.transaction(async (tx) => {
    const [task] = await tx
      .select()
      .from(otaTasks)
      .where(and(eq(otaTasks.id, id), ownerFilter(actor, otaTasks.uid)))
      .for('update');
    if (!task) throw new AppError(10107);
    if (!otaActionAllowed(task.status, action)) throw refused(task.status, action);
    const audit = (detail: Record<string, unknown>) =>
      writeAudit(tx, {
        uid: actor.uid,
        action: `ota_task_${action}`,
        target: `ota-task:${id}`,
        ip: actor.ip,
        detail: { from: task.status, ...detail },
      });
    switch (action) {
      case 'start': {
        if (task.windowEnd && task.windowEnd.getTime() <= now.getTime()) throw new AppError(71006);
        const base = await thresholdBase(tx, id);
        const [changed] = await tx
          .update(otaTasks)
          .set({
            status: 'running',
            pauseReason: null,
            startTime: task.startTime ?? now,
            failBase: base.failed,
            endedBase: base.ended,
          })
          .where(eq(otaTasks.id, id))
          .returning();
        await audit({ to: 'running' });
        return changed!;
      }
      case 'pause': {
        const [changed] = await tx
          .update(otaTasks)
          .set({ status: 'paused', pauseReason: 'manual' })
          .where(eq(otaTasks.id, id))
          .returning();
        await audit({ to: 'paused' });
        return changed!;
      }
      case 'cancel': {
        const [changed] = await tx
          .update(otaTasks)
          .set({ status: 'cancelled', pauseReason: null, endTime: now, nextWaveAt: null })
          .where(eq(otaTasks.id, id))
          .returning();
        // Devices already sent the upgrade keep being followed (their reports and timeouts still land); the
        // others are not sent anything any more.
        const stopped = await tx
          .update(otaDevices)
          .set({ phase: 'cancelled', ...otaResult('task_cancelled'), finishedAt: now, nextAttemptAt: null })
          .where(
            and(eq(otaDevices.taskId, id), inArray(otaDevices.phase, ['pending', 'offline', 'retry_wait'])),
          )
          .returning({ id: otaDevices.id });
        await audit({ to: 'cancelled', devices_cancelled: stopped.length });
        return changed!;
      }
      case 'delete': {
        await tx.delete(otaTasks).where(eq(otaTasks.id, id));
        await audit({ name: task.name });
        deleted = { uid: task.uid, productKey: task.productKey };
        return null;
      }
    }
  });
  deps.events.emit({ type: 'ota.task.changed', taskId: id, deleted: result === null ? deleted : undefined });
  return result ? toDetail(deps.db, result) : null;
}
