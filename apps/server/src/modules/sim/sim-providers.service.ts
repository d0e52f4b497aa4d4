import { and, count, desc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import {
  SIM_PROVIDER_SECRET_FIELDS,
  SIM_SECRET_MASK,
  type SimProviderBodyParsed,
  type SimProviderItem,
  type SimProviderKind,
  type SimProviderListQuery,
  type SimProviderTestResult,
} from '@cellhub/contract/sim';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { outboundRefusal } from '../../lib/outbound';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { AuthError, NotFoundError, RateLimitError, SimProviderError } from './providers/errors';
import { getSimAdapter } from './providers/registry';
import type { SimAdapter } from './providers/types';
import { simCards } from './sim-cards.table';
import { type SimProviderRow, simProviders } from './sim-providers.table';
import { simSyncRuns } from './sim-sync.table';

const secretsContext = (id: number) => `sim-provider:${id}`;

/** Fields of a provider config that configure our side, not the operator account (kept out of the adapter's config). */
const LOCAL_FIELDS = ['base_url'];

function split(
  kind: SimProviderKind,
  config: Record<string, unknown>,
): { plain: Record<string, unknown>; secret: Record<string, string> } {
  const plain: Record<string, unknown> = {};
  const secret: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) {
    if (SIM_PROVIDER_SECRET_FIELDS[kind].includes(k)) secret[k] = typeof v === 'string' ? v : '';
    else plain[k] = v;
  }
  return { plain, secret };
}

function providerSecrets(deps: Deps, row: SimProviderRow): Record<string, string> {
  if (!row.secrets) return {};
  return JSON.parse(deps.box.decrypt(row.secrets, secretsContext(row.id))) as Record<string, string>;
}

function masked(deps: Deps, row: SimProviderRow): Record<string, unknown> {
  const secrets = providerSecrets(deps, row);
  const out: Record<string, unknown> = { ...row.config };
  for (const field of SIM_PROVIDER_SECRET_FIELDS[row.kind])
    out[field] = secrets[field] ? SIM_SECRET_MASK : '';
  return out;
}

/** The adapter of a provider, built from its decrypted config. Never leaves the server. */
export function adapterOf(deps: Deps, row: SimProviderRow): SimAdapter {
  const full: Record<string, unknown> = { ...row.config, ...providerSecrets(deps, row) };
  const baseUrl = typeof full.base_url === 'string' && full.base_url ? full.base_url : undefined;
  for (const f of LOCAL_FIELDS) delete full[f];
  return getSimAdapter(row.kind, full, { baseUrl, now: deps.now, outboundAllow: deps.config.outboundAllow });
}

interface ProviderStats {
  cardCount: Map<number, number>;
  lastRun: Map<number, { at: Date; status: SimProviderItem['last_sync_status']; error: string | null }>;
}

async function statsOf(db: DbOrTx, ids: number[]): Promise<ProviderStats> {
  const stats: ProviderStats = { cardCount: new Map(), lastRun: new Map() };
  if (ids.length === 0) return stats;
  const [counts, runs] = await Promise.all([
    db
      .select({ id: simCards.providerId, n: count() })
      .from(simCards)
      .where(inArray(simCards.providerId, ids))
      .groupBy(simCards.providerId),
    db
      .selectDistinctOn([simSyncRuns.providerId], {
        providerId: simSyncRuns.providerId,
        status: simSyncRuns.status,
        error: simSyncRuns.error,
        createdat: simSyncRuns.createdat,
        finishedAt: simSyncRuns.finishedAt,
      })
      .from(simSyncRuns)
      .where(inArray(simSyncRuns.providerId, ids))
      .orderBy(simSyncRuns.providerId, desc(simSyncRuns.id)),
  ]);
  for (const c of counts) stats.cardCount.set(c.id, c.n);
  for (const r of runs)
    stats.lastRun.set(r.providerId, { at: r.finishedAt ?? r.createdat, status: r.status, error: r.error });
  return stats;
}

function toItem(deps: Deps, row: SimProviderRow, stats: ProviderStats): SimProviderItem {
  const run = stats.lastRun.get(row.id);
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    operator: row.operator,
    config: masked(deps, row),
    sync_interval_min: row.syncIntervalMin,
    enabled: row.enabled,
    remark: row.remark,
    card_count: stats.cardCount.get(row.id) ?? 0,
    last_sync_at: run ? run.at.toISOString() : null,
    last_sync_status: run?.status ?? null,
    last_sync_error: run?.error ?? null,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

export async function findProvider(db: DbOrTx, id: number): Promise<SimProviderRow | undefined> {
  const [row] = await db.select().from(simProviders).where(eq(simProviders.id, id));
  return row;
}

async function existingProvider(deps: Deps, id: number): Promise<SimProviderRow> {
  const row = await findProvider(deps.db, id);
  if (!row) throw new AppError(10107);
  return row;
}

export async function listProviders(
  deps: Deps,
  actor: Actor,
  query: SimProviderListQuery & { current: number; per_page: number },
): Promise<{ items: SimProviderItem[]; total: number }> {
  requireAdmin(actor);
  const conditions: (SQL | undefined)[] = [];
  if (query.keyword) conditions.push(ilike(simProviders.name, likeKeyword(query.keyword)));
  if (query.kind) conditions.push(eq(simProviders.kind, query.kind));
  if (query.operator) conditions.push(eq(simProviders.operator, query.operator));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(simProviders)
      .where(where)
      .orderBy(desc(simProviders.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(simProviders).where(where),
  ]);
  const stats = await statsOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toItem(deps, r, stats)), total: total?.n ?? 0 };
}

export async function getProvider(deps: Deps, actor: Actor, id: number): Promise<SimProviderItem> {
  requireAdmin(actor);
  const row = await existingProvider(deps, id);
  return toItem(deps, row, await statsOf(deps.db, [id]));
}

/** Secrets sent blank or masked keep the stored value (same kind only); a new provider needs them set. */
function mergeSecrets(
  input: SimProviderBodyParsed,
  secret: Record<string, string>,
  old: Record<string, string>,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const field of SIM_PROVIDER_SECRET_FIELDS[input.kind]) {
    const sent = secret[field] ?? '';
    const value = sent === '' || sent === SIM_SECRET_MASK ? (old[field] ?? '') : sent;
    if (!value) {
      throw new AppError(10113, 400, undefined, [{ field: `config.${field}`, message: 'required' }]);
    }
    merged[field] = value;
  }
  return merged;
}

export async function createProvider(
  deps: Deps,
  actor: Actor,
  input: SimProviderBodyParsed,
): Promise<SimProviderItem> {
  requireAdmin(actor);
  const { plain, secret } = split(input.kind, input.config);
  const merged = mergeSecrets(input, secret, {});
  const row = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(simProviders)
      .values({
        name: input.name,
        kind: input.kind,
        operator: input.operator,
        config: plain,
        syncIntervalMin: input.sync_interval_min,
        enabled: input.enabled,
        remark: input.remark,
      })
      .returning();
    if (!created) throw new AppError(10109);
    const [sealed] = await tx
      .update(simProviders)
      .set({ secrets: deps.box.encrypt(JSON.stringify(merged), secretsContext(created.id)) })
      .where(eq(simProviders.id, created.id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'sim_provider_create',
      target: `sim-provider:${created.id}`,
      ip: actor.ip,
      detail: { name: input.name, kind: input.kind, operator: input.operator },
    });
    return sealed ?? created;
  });
  return toItem(deps, row, await statsOf(deps.db, [row.id]));
}

/** Replaces the provider. The kind cannot change while cards belong to it (their data came from that API). */
export async function updateProvider(
  deps: Deps,
  actor: Actor,
  id: number,
  input: SimProviderBodyParsed,
): Promise<SimProviderItem> {
  requireAdmin(actor);
  const row = await existingProvider(deps, id);
  const stats = await statsOf(deps.db, [id]);
  if (input.kind !== row.kind && (stats.cardCount.get(id) ?? 0) > 0) {
    throw new AppError(10110, 400, 'Move the cards of this provider before changing its kind', [
      { field: 'kind', message: 'cards belong to this provider' },
    ]);
  }
  const old = row.kind === input.kind ? providerSecrets(deps, row) : {};
  const { plain, secret } = split(input.kind, input.config);
  const merged = mergeSecrets(input, secret, old);
  const updated = await deps.db.transaction(async (tx) => {
    const [u] = await tx
      .update(simProviders)
      .set({
        name: input.name,
        kind: input.kind,
        operator: input.operator,
        config: plain,
        secrets: deps.box.encrypt(JSON.stringify(merged), secretsContext(id)),
        syncIntervalMin: input.sync_interval_min,
        enabled: input.enabled,
        remark: input.remark,
      })
      .where(eq(simProviders.id, id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'sim_provider_update',
      target: `sim-provider:${id}`,
      ip: actor.ip,
      detail: { name: input.name, kind: input.kind, operator: input.operator },
    });
    return u ?? row;
  });
  return toItem(deps, updated, stats);
}

/** Refused (60009, details.card_count) while cards belong to it. */
export async function deleteProvider(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await existingProvider(deps, id);
  const stats = await statsOf(deps.db, [id]);
  const cards = stats.cardCount.get(id) ?? 0;
  if (cards > 0) throw new AppError(60009, 400, undefined, { card_count: cards });
  await deps.db.transaction(async (tx) => {
    await tx.delete(simProviders).where(eq(simProviders.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'sim_provider_delete',
      target: `sim-provider:${id}`,
      ip: actor.ip,
    });
  });
}

export function providerErrorKind(err: unknown): SimProviderTestResult['error_kind'] {
  if (err instanceof AuthError) return 'auth';
  if (err instanceof RateLimitError) return 'rate_limit';
  if (err instanceof NotFoundError) return 'not_found';
  return 'provider';
}

/**
 * Signs in with the stored credentials and makes one cheap read; failures are answered, not thrown, except a
 * base URL the outbound client refuses (400 / 40004, before any connection: no answer tells which ports are open).
 */
export async function testProvider(deps: Deps, actor: Actor, id: number): Promise<SimProviderTestResult> {
  requireAdmin(actor);
  const row = await existingProvider(deps, id);
  const started = Date.now();
  try {
    await adapterOf(deps, row).testConnection();
    return { ok: true, error_kind: null, message: 'ok', latency_ms: Date.now() - started };
  } catch (err) {
    const refused = outboundRefusal(err, 'config.base_url');
    if (refused) throw refused;
    if (!(err instanceof SimProviderError)) deps.log.warn({ err, provider: id }, 'sim provider test failed');
    return {
      ok: false,
      error_kind: providerErrorKind(err),
      message: err instanceof SimProviderError ? err.message : 'unexpected failure',
      latency_ms: Date.now() - started,
    };
  }
}
