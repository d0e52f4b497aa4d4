import { and, count, desc, eq, ilike, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import {
  type ScriptBody,
  type ScriptDetail,
  type ScriptItem,
  type ScriptListQuery,
  type ScriptTestBody,
  type ScriptTestResult,
  type ScriptUpdateBody,
  type ScriptVersionItem,
  scriptFunctions,
} from '@cellhub/contract/scripts';
import { AppError } from '../../lib/app-error';
import { isAdmin, openToSignedIn, ownerOfNew, owns, requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { products } from '../products/products.table';
import { users } from '../users/users.table';
import { ScriptCallError, ScriptError, ScriptSandbox } from './sandbox';
import { runDecode, runEncode } from './script-io';
import { type ScriptRow, scriptBindings, scripts, scriptVersions } from './scripts.table';

/**
 * Scripts: a product's own (its owner or an admin reads and edits it) or shared by an admin (everyone reads it and may
 * bind it to a product of theirs; admins edit it). Every saved source is a version; a rollback saves an old source as
 * the newest version. Who may read a script is asked here, through the authorisation layer; another user's product
 * script answers 10107 like a missing one.
 */

interface ProductOf {
  productKey: string;
  name: string;
  uid: number | null;
}

interface Loaded {
  row: ScriptRow;
  product: ProductOf | null;
}

const selectLoaded = {
  row: scripts,
  productKey: products.productKey,
  productName: products.name,
  productUid: products.uid,
};

function loadedOf(r: {
  row: ScriptRow;
  productKey: string | null;
  productName: string | null;
  productUid: number | null;
}): Loaded {
  return {
    row: r.row,
    product:
      r.productKey === null
        ? null
        : { productKey: r.productKey, name: r.productName ?? '', uid: r.productUid },
  };
}

async function load(deps: Deps, id: number): Promise<Loaded | undefined> {
  const [r] = await deps.db
    .select(selectLoaded)
    .from(scripts)
    .leftJoin(products, eq(products.id, scripts.productId))
    .where(eq(scripts.id, id));
  return r ? loadedOf(r) : undefined;
}

/** Readable: shared scripts by everyone signed in, a product's script by its product's owner and admins. */
function canRead(actor: Actor, s: Loaded): boolean {
  if (!s.product) {
    openToSignedIn(actor);
    return true;
  }
  return owns(actor, s.product);
}

/** Editable: a product's script by its owner and admins, a shared script by admins only. */
function canEdit(actor: Actor, s: Loaded): boolean {
  if (!s.product) return isAdmin(actor) && !actor.scopes;
  return owns(actor, s.product);
}

async function readable(deps: Deps, actor: Actor, id: number): Promise<Loaded> {
  const s = await load(deps, id);
  // A missing script is asked about like someone else's (owns() of nothing is false), and answered alike.
  const visible = s ? canRead(actor, s) : owns(actor, undefined);
  if (!s || !visible) throw new AppError(10107);
  return s;
}

async function editable(deps: Deps, actor: Actor, id: number): Promise<Loaded> {
  const s = await readable(deps, actor, id);
  if (!canEdit(actor, s)) throw new AppError(10108);
  return s;
}

async function ownedProduct(deps: Deps, actor: Actor, productKey: string) {
  const [p] = await deps.db
    .select({ id: products.id, productKey: products.productKey, name: products.name, uid: products.uid })
    .from(products)
    .where(eq(products.productKey, productKey));
  if (!p || !owns(actor, p))
    throw new AppError(10107, 400, 'No product with this product_key', [
      { field: 'product_key', message: 'not found' },
    ]);
  return p;
}

/** Compiles the source once in a sandbox: 82005 with the line when it does not. */
async function checkSource(source: string): Promise<void> {
  try {
    const box = await ScriptSandbox.create(source);
    box.dispose();
  } catch (err) {
    if (!(err instanceof ScriptError)) throw err;
    const where = err.line !== null ? `line ${err.line}: ` : '';
    throw new AppError(err.kind === 'syntax' ? 82005 : err.code, 400, undefined, [
      { field: 'source', message: `${where}${err.message}` },
    ]);
  }
  const fns = scriptFunctions(source);
  if (!fns.decode && !fns.encode)
    throw new AppError(82005, 400, undefined, [
      { field: 'source', message: 'define function decode(bytes, ctx) or function encode(command, ctx)' },
    ]);
}

async function bindingsOf(deps: Deps, ids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (ids.length === 0) return out;
  const rows = await deps.db
    .select({ scriptId: scriptBindings.scriptId, productKey: products.productKey })
    .from(scriptBindings)
    .innerJoin(products, eq(products.id, scriptBindings.productId))
    .where(inArray(scriptBindings.scriptId, ids));
  for (const r of rows) out.set(r.scriptId, [...(out.get(r.scriptId) ?? []), r.productKey]);
  return out;
}

async function ownerNames(deps: Deps, uids: (number | null)[]): Promise<Map<number, string>> {
  const ids = [...new Set(uids.filter((u): u is number => u !== null))];
  if (ids.length === 0) return new Map();
  const rows = await deps.db
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(inArray(users.id, ids));
  return new Map(rows.map((r) => [r.id, r.username]));
}

function toItem(s: Loaded, owner: string, bound: string[]): ScriptItem {
  const { row } = s;
  const fns = scriptFunctions(row.source);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    product_key: s.product?.productKey ?? null,
    product_name: s.product?.name ?? null,
    shared: s.product === null,
    owner,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    keep_raw: row.keepRaw,
    version: row.version,
    has_decode: fns.decode,
    has_encode: fns.encode,
    bound_products: bound,
    calls: row.calls,
    errors: row.errors,
    consecutive_errors: row.consecutiveErrors,
    avg_ms: row.calls > 0 ? Math.round((row.totalMs / row.calls) * 1000) / 1000 : 0,
    last_error: row.recentErrors[0] ?? null,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

async function itemsOf(deps: Deps, loaded: Loaded[]): Promise<ScriptItem[]> {
  const [bound, names] = await Promise.all([
    bindingsOf(
      deps,
      loaded.map((s) => s.row.id),
    ),
    ownerNames(
      deps,
      loaded.map((s) => s.row.uid),
    ),
  ]);
  return loaded.map((s) => toItem(s, names.get(s.row.uid ?? -1) ?? '', bound.get(s.row.id) ?? []));
}

async function detailOf(deps: Deps, s: Loaded): Promise<ScriptDetail> {
  const [item] = await itemsOf(deps, [s]);
  return { ...item!, source: s.row.source, recent_errors: s.row.recentErrors };
}

export async function listScripts(
  deps: Deps,
  actor: Actor,
  query: ScriptListQuery,
): Promise<{ items: ScriptItem[]; total: number }> {
  const filters: (SQL | undefined)[] = [];
  if (!isAdmin(actor)) {
    // Their products' scripts and the shared ones.
    openToSignedIn(actor);
    filters.push(or(isNull(scripts.productId), eq(products.uid, actor.uid)));
  }
  if (query.keyword) filters.push(ilike(scripts.name, likeKeyword(query.keyword)));
  if (query.product_key) filters.push(eq(products.productKey, query.product_key));
  if (query.state) filters.push(eq(scripts.enabled, query.state === 'enabled'));
  if (query.scope === 'shared') filters.push(isNull(scripts.productId));
  if (query.scope === 'product') filters.push(sql`${scripts.productId} is not null`);
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select(selectLoaded)
      .from(scripts)
      .leftJoin(products, eq(products.id, scripts.productId))
      .where(where)
      .orderBy(desc(scripts.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(scripts)
      .leftJoin(products, eq(products.id, scripts.productId))
      .where(where),
  ]);
  return { items: await itemsOf(deps, rows.map(loadedOf)), total: total?.n ?? 0 };
}

export async function getScript(deps: Deps, actor: Actor, id: number): Promise<ScriptDetail> {
  return detailOf(deps, await readable(deps, actor, id));
}

export async function createScript(deps: Deps, actor: Actor, body: ScriptBody): Promise<ScriptDetail> {
  const product = body.product_key ? await ownedProduct(deps, actor, body.product_key) : null;
  if (!product) requireAdmin(actor);
  await checkSource(body.source);
  const uid = ownerOfNew(actor);
  const id = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(scripts)
      .values({
        name: body.name,
        description: body.description,
        productId: product?.id ?? null,
        uid,
        source: body.source,
        keepRaw: body.keep_raw,
      })
      .returning({ id: scripts.id });
    if (!row) throw new AppError(10109);
    await tx
      .insert(scriptVersions)
      .values({ scriptId: row.id, version: 1, source: body.source, note: body.note, uid });
    // A product's first script is the one its devices use.
    if (product)
      await tx
        .insert(scriptBindings)
        .values({ productId: product.id, scriptId: row.id })
        .onConflictDoNothing();
    await writeAudit(tx, {
      uid,
      action: 'script_create',
      target: `script:${row.id}`,
      ip: actor.ip,
      detail: { name: body.name, product_key: product?.productKey ?? null },
    });
    return row.id;
  });
  return getScript(deps, actor, id);
}

export async function updateScript(
  deps: Deps,
  actor: Actor,
  id: number,
  body: ScriptUpdateBody,
): Promise<ScriptDetail> {
  const s = await editable(deps, actor, id);
  const changed = body.source !== undefined && body.source !== s.row.source;
  if (changed) await checkSource(body.source!);
  await deps.db.transaction(async (tx) => {
    const [row] = await tx.select().from(scripts).where(eq(scripts.id, id)).for('update');
    if (!row) throw new AppError(10107);
    const version = changed ? row.version + 1 : row.version;
    if (changed) {
      await tx
        .insert(scriptVersions)
        .values({ scriptId: id, version, source: body.source!, note: body.note, uid: actor.uid });
    }
    await tx
      .update(scripts)
      .set({
        name: body.name ?? row.name,
        description: body.description ?? row.description,
        source: changed ? body.source! : row.source,
        version,
        keepRaw: body.keep_raw ?? row.keepRaw,
        // A new source starts its run of failures again.
        consecutiveErrors: changed ? 0 : row.consecutiveErrors,
      })
      .where(eq(scripts.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'script_update',
      target: `script:${id}`,
      ip: actor.ip,
      detail: {
        version,
        source_changed: changed,
        ...(body.keep_raw !== undefined && body.keep_raw !== row.keepRaw ? { keep_raw: body.keep_raw } : {}),
      },
    });
  });
  return getScript(deps, actor, id);
}

export async function setScriptState(
  deps: Deps,
  actor: Actor,
  id: number,
  enabled: boolean,
): Promise<ScriptDetail> {
  await editable(deps, actor, id);
  await deps.db
    .update(scripts)
    .set(
      enabled
        ? { enabled: true, disabledReason: '', consecutiveErrors: 0 }
        : { enabled: false, disabledReason: 'manual' },
    )
    .where(eq(scripts.id, id));
  await writeAudit(deps.db, {
    uid: actor.uid,
    action: 'script_state',
    target: `script:${id}`,
    ip: actor.ip,
    detail: { enabled },
  });
  return getScript(deps, actor, id);
}

export async function deleteScript(deps: Deps, actor: Actor, id: number): Promise<void> {
  await editable(deps, actor, id);
  await deps.db.delete(scripts).where(eq(scripts.id, id));
  await writeAudit(deps.db, {
    uid: actor.uid,
    action: 'script_delete',
    target: `script:${id}`,
    ip: actor.ip,
  });
}

export async function listVersions(deps: Deps, actor: Actor, id: number): Promise<ScriptVersionItem[]> {
  await readable(deps, actor, id);
  const rows = await deps.db
    .select({ v: scriptVersions, author: users.username })
    .from(scriptVersions)
    .leftJoin(users, eq(users.id, scriptVersions.uid))
    .where(eq(scriptVersions.scriptId, id))
    .orderBy(desc(scriptVersions.version));
  return rows.map((r) => ({
    version: r.v.version,
    source: r.v.source,
    note: r.v.note,
    author: r.author ?? '',
    createdat: r.v.createdat.toISOString(),
  }));
}

/** Rollback: the old version's source becomes the newest version. */
export async function restoreVersion(
  deps: Deps,
  actor: Actor,
  id: number,
  version: number,
): Promise<ScriptDetail> {
  await editable(deps, actor, id);
  const [old] = await deps.db
    .select()
    .from(scriptVersions)
    .where(and(eq(scriptVersions.scriptId, id), eq(scriptVersions.version, version)));
  if (!old) throw new AppError(10107, 400, undefined, [{ field: 'version', message: 'not found' }]);
  await deps.db.transaction(async (tx) => {
    const [row] = await tx.select().from(scripts).where(eq(scripts.id, id)).for('update');
    if (!row) throw new AppError(10107);
    const next = row.version + 1;
    await tx.insert(scriptVersions).values({
      scriptId: id,
      version: next,
      source: old.source,
      note: `rollback to v${version}`,
      uid: actor.uid,
    });
    await tx
      .update(scripts)
      .set({ source: old.source, version: next, consecutiveErrors: 0 })
      .where(eq(scripts.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'script_update',
      target: `script:${id}`,
      ip: actor.ip,
      detail: { version: next, rollback_to: version },
    });
  });
  return getScript(deps, actor, id);
}

/** Makes the script the one a product's devices use: a product of the caller's, and the script its own or shared. */
export async function bindScript(
  deps: Deps,
  actor: Actor,
  id: number,
  productKey: string,
): Promise<ScriptDetail> {
  const s = await readable(deps, actor, id);
  const product = await ownedProduct(deps, actor, productKey);
  if (s.product && s.product.productKey !== productKey)
    throw new AppError(70003, 400, undefined, [
      { field: 'product_key', message: "another product's script; only shared scripts serve any product" },
    ]);
  await deps.db
    .insert(scriptBindings)
    .values({ productId: product.id, scriptId: id })
    .onConflictDoUpdate({ target: scriptBindings.productId, set: { scriptId: id, createdat: deps.now() } });
  await writeAudit(deps.db, {
    uid: actor.uid,
    action: 'script_bind',
    target: `script:${id}`,
    ip: actor.ip,
    detail: { product_key: productKey },
  });
  return getScript(deps, actor, id);
}

function sampleBytes(body: ScriptTestBody): Buffer {
  if (body.input_type === 'text') return Buffer.from(body.input, 'utf8');
  const hex = body.input.replace(/\s+/g, '');
  if (!/^(?:[0-9A-Fa-f]{2})*$/.test(hex))
    throw new AppError(70003, 400, undefined, [{ field: 'input', message: 'hex: pairs of 0-9 and A-F' }]);
  return Buffer.from(hex, 'hex');
}

function sampleCommand(body: ScriptTestBody): { id: string; type: string; data: string } {
  if (body.input_type === 'json') {
    let v: unknown;
    try {
      v = JSON.parse(body.input || '{}');
    } catch {
      throw new AppError(70003, 400, undefined, [{ field: 'input', message: 'not JSON' }]);
    }
    const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
    return { id: String(o.id ?? 'test'), type: String(o.type ?? 'string'), data: String(o.data ?? '') };
  }
  if (body.input_type === 'hex') sampleBytes(body);
  return {
    id: 'test',
    type: body.input_type === 'hex' ? 'hex' : 'string',
    data: body.input.replace(/\s+/g, ''),
  };
}

/** Runs a source on a sample; nothing is stored. A script that fails answers `ok: false` with its error and line. */
export async function testRun(deps: Deps, actor: Actor, body: ScriptTestBody): Promise<ScriptTestResult> {
  openToSignedIn(actor);
  const device = { sn: body.sn || 'TEST', productKey: body.product_key || 'test', ts: deps.now().getTime() };
  const fail = (err: ScriptError, logs: string[], ms: number): ScriptTestResult => ({
    ok: false,
    output: null,
    logs,
    error: { code: err.code, kind: err.kind, message: err.message, line: err.line },
    ms: Math.round(ms * 1000) / 1000,
  });
  const started = performance.now();
  let box: ScriptSandbox;
  try {
    box = await ScriptSandbox.create(body.source);
  } catch (err) {
    if (err instanceof ScriptError) return fail(err, [], performance.now() - started);
    throw err;
  }
  try {
    if (body.function === 'decode') {
      const out = runDecode(box, sampleBytes(body), device);
      return {
        ok: true,
        output: { properties: out.properties, events: out.events },
        logs: out.logs,
        error: null,
        ms: Math.round(out.ms * 1000) / 1000,
      };
    }
    const out = runEncode(box, sampleCommand(body), device);
    return {
      ok: true,
      output: { hex: out.bytes.toString('hex'), bytes: Array.from(out.bytes) },
      logs: out.logs,
      error: null,
      ms: Math.round(out.ms * 1000) / 1000,
    };
  } catch (err) {
    if (err instanceof ScriptCallError) return fail(err, err.logs, err.ms);
    throw err;
  } finally {
    box.dispose();
  }
}
