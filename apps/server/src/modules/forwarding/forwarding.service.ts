/**
 * Forwarding rules (docs/forwarding.md): owned rows (the owner, or an admin), secrets sealed at rest, every target
 * URL checked by the outbound fence when saved (and again at every connection), devices named by a rule checked
 * against the owner's rights. The engine (forwarding.engine.ts) does the delivering.
 */
import { and, count, desc, eq, gte, ilike, inArray, sql } from 'drizzle-orm';
import {
  FORWARD_RULES_MAX,
  type ForwardCounters,
  type ForwardDeadItem,
  type forwardListQuery,
  type forwardRuleBody,
  type ForwardRuleCreated,
  type ForwardRuleItem,
  type ForwardStats,
  type forwardStatsQuery,
  type forwardTestBody,
  type ForwardTestResult,
  renderTemplate,
  sampleMessage,
  unknownPlaceholders,
} from '@cellhub/contract/forwarding';
import type { PageQuery } from '@cellhub/contract/common';
import type { z } from 'zod';
import { AppError } from '../../lib/app-error';
import { findVisibleOwned, ownerFilter, ownerOfNew, requireDeviceRight } from '../../lib/authz';
import { newToken } from '../../lib/crypto';
import type { Actor, Deps } from '../../lib/deps';
import { checkTarget, OutboundError, outboundRefusal } from '../../lib/outbound';
import { likeKeyword } from '../../lib/paging';
import { wakeWorkers } from '../../jobs/worker';
import { writeAudit } from '../audit/audit.service';
import { withActorShare } from '../devices/device-access';
import { devices } from '../devices/devices.table';
import type { SendOutcome, LoadedTarget } from './forward-send';
import {
  FORWARD_RULES_CHANNEL,
  FORWARDING_KIND,
  loadTarget,
  PASSWORD_CONTEXT,
  SECRET_CONTEXT,
} from './forwarding.engine';
import {
  forwardMessages,
  type ForwardRuleRow,
  forwardRules,
  forwardStats,
  type StoredTarget,
} from './forwarding.table';

type RuleBody = z.output<typeof forwardRuleBody>;
export type Sender = (rule: LoadedTarget, message: ReturnType<typeof sampleMessage>) => Promise<SendOutcome>;

const NOT_FOUND = 86001 as const;

function statusOf(row: ForwardRuleRow): ForwardRuleItem['status'] {
  if (!row.enabled) return 'disabled';
  return row.pausedAt ? 'paused' : 'running';
}

function answeredTarget(row: ForwardRuleRow): ForwardRuleItem['target'] {
  const t = row.target;
  if (t.kind === 'http') return { ...t, batch_max: t.batch_max ?? 1 };
  return { ...t, has_password: row.password !== null };
}

function toItem(row: ForwardRuleRow, counters: ForwardCounters): ForwardRuleItem {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    status: statusOf(row),
    paused_reason: row.pausedAt ? row.pausedReason : null,
    paused_at: row.pausedAt ? row.pausedAt.toISOString() : null,
    product_key: row.productKey,
    sns: row.sns,
    kinds: row.kinds,
    target: answeredTarget(row),
    counters,
    last_error: row.lastError,
    created_at: row.createdat.toISOString(),
    updated_at: row.updatedat.toISOString(),
  };
}

const ZERO: ForwardCounters = { delivered: 0, failed: 0, dead: 0, pending: 0 };

async function countersOf(deps: Deps, ids: number[]): Promise<Map<number, ForwardCounters>> {
  const out = new Map<number, ForwardCounters>(ids.map((id) => [id, { ...ZERO }]));
  if (ids.length === 0) return out;
  const [totals, queued] = await Promise.all([
    deps.db
      .select({
        id: forwardStats.ruleId,
        delivered: sql<number>`coalesce(sum(${forwardStats.delivered}), 0)::int`,
        failed: sql<number>`coalesce(sum(${forwardStats.failed}), 0)::int`,
      })
      .from(forwardStats)
      .where(inArray(forwardStats.ruleId, ids))
      .groupBy(forwardStats.ruleId),
    deps.db
      .select({ id: forwardMessages.ruleId, status: forwardMessages.status, n: count() })
      .from(forwardMessages)
      .where(inArray(forwardMessages.ruleId, ids))
      .groupBy(forwardMessages.ruleId, forwardMessages.status),
  ]);
  for (const t of totals) {
    const c = out.get(t.id)!;
    c.delivered = t.delivered;
    c.failed = t.failed;
  }
  for (const q of queued) {
    const c = out.get(q.id)!;
    if (q.status === 'dead') c.dead += q.n;
    else c.pending += q.n;
  }
  return out;
}

async function itemOf(deps: Deps, row: ForwardRuleRow): Promise<ForwardRuleItem> {
  return toItem(row, (await countersOf(deps, [row.id])).get(row.id)!);
}

/** Tells every instance's engine to read its rules again, and its worker to look for due messages. */
async function rulesChanged(deps: Deps): Promise<void> {
  await deps.channels.notify(FORWARD_RULES_CHANNEL, '').catch(() => undefined);
  await wakeWorkers(deps.channels, FORWARDING_KIND).catch(() => undefined);
}

// --- validation ---------------------------------------------------------------------------------------------------

/** The URL the fence judges for a target: HTTP as typed; MQTT's host and port as an http URL of the same origin. */
function fenceUrl(target: RuleBody['target']): string {
  if (target.kind === 'http') return target.url;
  const u = new URL(target.url);
  const port = u.port || (u.protocol === 'mqtts:' ? '8883' : '1883');
  return `http://${u.hostname}:${port}/`;
}

async function checkBody(deps: Deps, actor: Actor, body: RuleBody): Promise<void> {
  const templates: [string, string][] = [['target.body_template', body.target.body_template]];
  if (body.target.kind === 'mqtt') templates.push(['target.topic', body.target.topic]);
  for (const [field, template] of templates) {
    const bad = unknownPlaceholders(template);
    if (bad.length > 0)
      throw new AppError(86003, 400, undefined, [
        { field, message: `unknown placeholder: ${bad.join(', ')}` },
      ]);
  }
  // A batch is a JSON array of the bodies: each must be JSON, whatever the message (checked with a sample of each
  // kind the rule takes).
  if (body.target.kind === 'http' && body.target.batch_max > 1) {
    const t = body.target;
    const notJson = body.kinds.find((kind) => {
      try {
        JSON.parse(renderTemplate(t.body_template, sampleMessage(kind, 0), 'json'));
        return false;
      } catch {
        return true;
      }
    });
    if (notJson)
      throw new AppError(86003, 400, undefined, [
        {
          field: 'target.body_template',
          message: `a batching rule needs a JSON body (the ${notJson} sample is not JSON)`,
        },
      ]);
  }
  try {
    await checkTarget(fenceUrl(body.target), { allow: deps.config.outboundAllow });
  } catch (err) {
    const refusal = outboundRefusal(err, 'target.url');
    if (refusal) throw refusal;
    // A name that does not resolve now may later: only a malformed URL is refused when saved.
    if (err instanceof OutboundError && err.kind === 'invalid_url') throw err.toAppError('target.url');
    if (!(err instanceof OutboundError)) throw err;
  }
  if (body.sns.length > 0) {
    const rows = await withActorShare(deps.db, actor).where(inArray(devices.sn, body.sns));
    const bySn = new Map(rows.map((r) => [r.device.sn, r]));
    body.sns.forEach((sn, i) => {
      const r = bySn.get(sn);
      try {
        requireDeviceRight(
          actor,
          r ? { ...r.device, ...(r.shared ? { shared: r.shared } : {}) } : undefined,
          'view',
        );
      } catch (err) {
        if (err instanceof AppError)
          throw new AppError(err.code, 400, undefined, [{ field: `sns.${i}`, message: 'no such device' }]);
        throw err;
      }
    });
  }
}

function storedTarget(target: RuleBody['target']): StoredTarget {
  if (target.kind === 'http')
    return {
      kind: 'http',
      method: target.method,
      url: target.url,
      headers: target.headers,
      body_template: target.body_template,
      batch_max: target.batch_max,
    };
  return {
    kind: 'mqtt',
    url: target.url,
    username: target.username,
    topic: target.topic,
    qos: target.qos,
    body_template: target.body_template,
  };
}

// --- rules --------------------------------------------------------------------------------------------------------

export async function listRules(
  deps: Deps,
  actor: Actor,
  query: z.output<typeof forwardListQuery>,
): Promise<{ items: ForwardRuleItem[]; total: number }> {
  const where = and(
    ownerFilter(actor, forwardRules.uid),
    query.keyword ? ilike(forwardRules.name, likeKeyword(query.keyword)) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(forwardRules)
      .where(where)
      .orderBy(desc(forwardRules.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(forwardRules).where(where),
  ]);
  const counters = await countersOf(
    deps,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toItem(r, counters.get(r.id)!)), total: total?.n ?? 0 };
}

export async function getRule(deps: Deps, actor: Actor, id: number): Promise<ForwardRuleItem> {
  return itemOf(deps, await findVisibleOwned(deps.db, actor, forwardRules, id, NOT_FOUND));
}

export async function createRule(deps: Deps, actor: Actor, body: RuleBody): Promise<ForwardRuleCreated> {
  const uid = ownerOfNew(actor);
  await checkBody(deps, actor, body);
  const secret = newToken();
  const row = await deps.db.transaction(async (tx) => {
    const [mine] = await tx.select({ n: count() }).from(forwardRules).where(eq(forwardRules.uid, uid));
    if ((mine?.n ?? 0) >= FORWARD_RULES_MAX) throw new AppError(86002);
    const [created] = await tx
      .insert(forwardRules)
      .values({
        uid,
        name: body.name,
        enabled: body.enabled,
        productKey: body.product_key,
        sns: body.sns,
        kinds: body.kinds,
        target: storedTarget(body.target),
        secret: deps.box.encrypt(secret, SECRET_CONTEXT),
        password:
          body.target.kind === 'mqtt' && body.target.password
            ? deps.box.encrypt(body.target.password, PASSWORD_CONTEXT)
            : null,
      })
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'forward_rule_create',
      target: String(created!.id),
      ip: actor.ip,
      detail: { name: body.name, kind: body.target.kind },
    });
    return created!;
  });
  await rulesChanged(deps);
  return { ...(await itemOf(deps, row)), secret };
}

export async function updateRule(
  deps: Deps,
  actor: Actor,
  id: number,
  body: RuleBody,
): Promise<ForwardRuleItem> {
  await findVisibleOwned(deps.db, actor, forwardRules, id, NOT_FOUND);
  await checkBody(deps, actor, body);
  const row = await deps.db.transaction(async (tx) => {
    const old = await findVisibleOwned(tx, actor, forwardRules, id, NOT_FOUND, true);
    let password = old.password;
    if (body.target.kind !== 'mqtt') password = null;
    else if (body.target.password !== undefined)
      password = body.target.password ? deps.box.encrypt(body.target.password, PASSWORD_CONTEXT) : null;
    const [updated] = await tx
      .update(forwardRules)
      .set({
        name: body.name,
        enabled: body.enabled,
        productKey: body.product_key,
        sns: body.sns,
        kinds: body.kinds,
        target: storedTarget(body.target),
        password,
        ...(body.enabled ? {} : { pausedAt: null, pausedReason: null, failingSince: null }),
      })
      .where(eq(forwardRules.id, id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'forward_rule_update',
      target: String(id),
      ip: actor.ip,
      detail: { name: body.name },
    });
    return updated!;
  });
  await rulesChanged(deps);
  return itemOf(deps, row);
}

export async function deleteRule(deps: Deps, actor: Actor, id: number): Promise<null> {
  await deps.db.transaction(async (tx) => {
    const row = await findVisibleOwned(tx, actor, forwardRules, id, NOT_FOUND, true);
    await tx.delete(forwardRules).where(eq(forwardRules.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'forward_rule_delete',
      target: String(id),
      ip: actor.ip,
      detail: { name: row.name },
    });
  });
  await rulesChanged(deps);
  return null;
}

/** The switch. On: also resumes a paused rule (its queued messages go out again). */
export async function setEnabled(
  deps: Deps,
  actor: Actor,
  id: number,
  enabled: boolean,
): Promise<ForwardRuleItem> {
  const row = await deps.db.transaction(async (tx) => {
    await findVisibleOwned(tx, actor, forwardRules, id, NOT_FOUND, true);
    const [updated] = await tx
      .update(forwardRules)
      .set({ enabled, pausedAt: null, pausedReason: null, failingSince: null })
      .where(eq(forwardRules.id, id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'forward_rule_update',
      target: String(id),
      ip: actor.ip,
      detail: { enabled },
    });
    return updated!;
  });
  await rulesChanged(deps);
  return itemOf(deps, row);
}

/** A new signing secret, answered this once (the old one stops at once). */
export async function rotateSecret(deps: Deps, actor: Actor, id: number): Promise<{ secret: string }> {
  const secret = newToken();
  await deps.db.transaction(async (tx) => {
    await findVisibleOwned(tx, actor, forwardRules, id, NOT_FOUND, true);
    await tx
      .update(forwardRules)
      .set({ secret: deps.box.encrypt(secret, SECRET_CONTEXT) })
      .where(eq(forwardRules.id, id));
    await writeAudit(tx, { uid: actor.uid, action: 'forward_rule_secret', target: String(id), ip: actor.ip });
  });
  await rulesChanged(deps);
  return { secret };
}

// --- test send, statistics, dead letters --------------------------------------------------------------------------

/**
 * Sends one sample message now and answers what the target answered (status, headers, a body excerpt, the time).
 * No answer at all is a 502 (40001 no connection, 40002 otherwise; 90002 for a broker), a refused address 40004.
 */
export async function testSend(
  deps: Deps,
  send: Sender,
  actor: Actor,
  id: number,
  body: z.output<typeof forwardTestBody>,
): Promise<ForwardTestResult> {
  const row = await findVisibleOwned(deps.db, actor, forwardRules, id, NOT_FOUND);
  const message = sampleMessage(body.kind, row.id, undefined, deps.now().getTime());
  const outcome = await send(loadTarget(deps, row), message);
  if (outcome.status === null && !outcome.ok) {
    const details = [{ field: 'target', message: outcome.error ?? 'no answer' }];
    if (outcome.error?.startsWith('refused')) throw new AppError(40004, 400, undefined, details);
    if (row.target.kind === 'mqtt') throw new AppError(90002, 502, undefined, details);
    throw new AppError(outcome.error?.startsWith('connect') ? 40001 : 40002, 502, undefined, details);
  }
  return {
    ok: outcome.ok,
    status: outcome.status,
    headers: outcome.headers,
    body_excerpt: outcome.bodyExcerpt,
    duration_ms: outcome.durationMs,
    error: outcome.error,
    request_body: outcome.requestBody,
    message_id: message.id,
  };
}

const RANGES = { '1h': [3600, 60], '24h': [86_400, 1800], '7d': [604_800, 21_600] } as const;

export async function ruleStats(
  deps: Deps,
  actor: Actor,
  id: number,
  query: z.output<typeof forwardStatsQuery>,
): Promise<ForwardStats> {
  const row = await findVisibleOwned(deps.db, actor, forwardRules, id, NOT_FOUND);
  const [span, step] = RANGES[query.range];
  const nowS = Math.floor(deps.now().getTime() / 1000);
  const end = Math.floor(nowS / step) * step + step;
  const start = end - span;
  const rows = await deps.db
    .select()
    .from(forwardStats)
    .where(and(eq(forwardStats.ruleId, row.id), gte(forwardStats.bucket, new Date(start * 1000))));
  const n = span / step;
  const points = Array.from({ length: n }, (_, i) => ({
    at: new Date((start + i * step) * 1000).toISOString(),
    delivered: 0,
    failed: 0,
    dead: 0,
  }));
  let delivered = 0;
  let sum = 0;
  let max = 0;
  for (const r of rows) {
    const i = Math.floor((r.bucket.getTime() / 1000 - start) / step);
    const p = points[i];
    if (!p) continue;
    p.delivered += r.delivered;
    p.failed += r.failed;
    p.dead += r.dead;
    delivered += r.delivered;
    sum += r.latencySum;
    max = Math.max(max, r.latencyMax);
  }
  return {
    counters: (await countersOf(deps, [row.id])).get(row.id)!,
    step,
    points,
    avg_ms: delivered > 0 ? Math.round(sum / delivered) : null,
    max_ms: delivered > 0 ? max : null,
  };
}

export async function listDead(
  deps: Deps,
  actor: Actor,
  id: number,
  query: PageQuery,
): Promise<{ items: ForwardDeadItem[]; total: number }> {
  const row = await findVisibleOwned(deps.db, actor, forwardRules, id, NOT_FOUND);
  const where = and(eq(forwardMessages.ruleId, row.id), eq(forwardMessages.status, 'dead'));
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(forwardMessages)
      .where(where)
      .orderBy(desc(forwardMessages.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(forwardMessages).where(where),
  ]);
  return {
    items: rows.map((m) => ({
      id: m.id,
      message_id: m.messageId,
      sn: m.sn,
      kind: m.kind,
      attempts: m.attempts,
      last_error: m.lastError,
      stored_at: m.storedAt.toISOString(),
      died_at: (m.diedAt ?? m.storedAt).toISOString(),
      message: m.message as unknown as Record<string, unknown>,
    })),
    total: total?.n ?? 0,
  };
}

/**
 * Dead letters go out again with their own idempotency keys (a receiver that took one before drops it), before the
 * device's newer messages: the queue's order is the rows' order.
 */
export async function replayDead(
  deps: Deps,
  actor: Actor,
  id: number,
  ids: number[] | undefined,
): Promise<{ replayed: number }> {
  const replayed = await deps.db.transaction(async (tx) => {
    const row = await findVisibleOwned(tx, actor, forwardRules, id, NOT_FOUND, true);
    const rows = await tx
      .update(forwardMessages)
      .set({ status: 'pending', attempts: 0, runAt: deps.now(), diedAt: null, lockedUntil: null })
      .where(
        and(
          eq(forwardMessages.ruleId, row.id),
          eq(forwardMessages.status, 'dead'),
          ids ? inArray(forwardMessages.id, ids.length > 0 ? ids : [0]) : undefined,
        ),
      )
      .returning({ id: forwardMessages.id });
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'forward_replay',
      target: String(row.id),
      ip: actor.ip,
      detail: { count: rows.length },
    });
    return rows.length;
  });
  await rulesChanged(deps);
  return { replayed };
}
