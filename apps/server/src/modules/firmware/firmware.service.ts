import type { Readable } from 'node:stream';
import { and, count, desc, eq, ilike, inArray, or, type SQL, sql } from 'drizzle-orm';
import type {
  ChecksumAlgorithm,
  FirmwareItem,
  FirmwareListQuery,
  FirmwareVersion,
  FirmwareVersionListQuery,
  UsableFirmwareQuery,
  UsableFirmwareVersion,
  firmwareCreateBody,
  firmwareUpdateBody,
  firmwareVersionImportBody,
  firmwareVersionUpdateBody,
  firmwareVersionUploadFields,
} from '@cellhub/contract/firmware';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import { isAdmin, ownerFilter, requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { cleanFilename as cleanStoredName, type FileRef } from '../../lib/file-store';
import { countPerId, likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { products } from '../products/products.table';
import { otaTasks } from '../ota/ota.table';
import { fetchFirmware } from './firmware-fetch';
import {
  firmwareFileRef,
  removeFirmwareFiles,
  type StoredFirmwareFile,
  storeFirmwareStream,
} from './firmware-file';
import { type FirmwareRow, firmwares, type FirmwareVersionRow, firmwareVersions } from './firmware.table';

const notFound = () => new AppError(70001);

/** The name of the unique index a statement violated (23505), if that is what failed. */
function violatedUnique(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const pgErr = e as { code?: unknown; constraint?: unknown; message?: unknown; detail?: unknown };
    if (pgErr.code !== '23505') continue;
    if (typeof pgErr.constraint === 'string' && pgErr.constraint) return pgErr.constraint;
    const text = `${String(pgErr.message)} ${String(pgErr.detail)}`;
    return /firmware_versions_latest_uq/.test(text)
      ? 'firmware_versions_latest_uq'
      : 'firmware_versions_version_uq';
  }
  return undefined;
}

const versionExists = () =>
  new AppError(70002, 400, 'This firmware already has this version', [
    { field: 'version', message: 'exists' },
  ]);

async function productNames(db: DbOrTx, keys: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(keys)];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .select({ key: products.productKey, name: products.name })
    .from(products)
    .where(inArray(products.productKey, wanted));
  return new Map(rows.map((r) => [r.key, r.name]));
}

async function latestVersions(db: DbOrTx, firmwareIds: number[]): Promise<Map<number, string>> {
  if (firmwareIds.length === 0) return new Map();
  const rows = await db
    .select({ id: firmwareVersions.firmwareId, version: firmwareVersions.version })
    .from(firmwareVersions)
    .where(and(inArray(firmwareVersions.firmwareId, firmwareIds), eq(firmwareVersions.latest, true)));
  return new Map(rows.map((r) => [r.id, r.version]));
}

function toItem(
  row: FirmwareRow,
  extra: { productName?: string; versions: number; latest?: string },
): FirmwareItem {
  return {
    id: row.id,
    name: row.name,
    product_key: row.productKey,
    product_name: extra.productName ?? '',
    type: row.type,
    objname: row.objname,
    description: row.description,
    public: row.public,
    version_count: extra.versions,
    latest_version: extra.latest ?? null,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

async function toItems(deps: Deps, rows: FirmwareRow[]): Promise<FirmwareItem[]> {
  const ids = rows.map((r) => r.id);
  const [names, counts, latest] = await Promise.all([
    productNames(
      deps.db,
      rows.map((r) => r.productKey),
    ),
    countPerId(deps, firmwareVersions.firmwareId, ids),
    latestVersions(deps.db, ids),
  ]);
  return rows.map((r) =>
    toItem(r, {
      productName: names.get(r.productKey),
      versions: counts.get(r.id) ?? 0,
      latest: latest.get(r.id),
    }),
  );
}

const checksumOf = (v: Pick<FirmwareVersionRow, 'algorithm' | 'md5' | 'sha256'>) =>
  v.algorithm === 'sha256' ? v.sha256 : v.md5;

function toVersion(v: FirmwareVersionRow): FirmwareVersion {
  return {
    id: v.id,
    firmware_id: v.firmwareId,
    product_key: v.productKey,
    version: v.version,
    url: v.url,
    filename: v.filename,
    size: v.size,
    checksum: checksumOf(v),
    algorithm: v.algorithm,
    md5: v.md5,
    sha256: v.sha256,
    description: v.description,
    latest: v.latest,
    createdat: v.createdat.toISOString(),
    updatedat: v.updatedat.toISOString(),
  };
}

async function findFirmware(db: DbOrTx, id: number): Promise<FirmwareRow> {
  const [row] = await db.select().from(firmwares).where(eq(firmwares.id, id));
  if (!row) throw notFound();
  return row;
}

async function findVersion(db: DbOrTx, firmwareId: number, versionId: number): Promise<FirmwareVersionRow> {
  const [row] = await db
    .select()
    .from(firmwareVersions)
    .where(and(eq(firmwareVersions.id, versionId), eq(firmwareVersions.firmwareId, firmwareId)));
  if (!row) throw notFound();
  return row;
}

async function requireProduct(db: DbOrTx, productKey: string): Promise<void> {
  const [row] = await db
    .select({ id: products.id })
    .from(products)
    .where(eq(products.productKey, productKey));
  if (!row) throw formError('product_key', 'no such product');
}

/**
 * Takes `latest` from every other version of the product. The transaction-scoped advisory lock per product
 * serialises two requests setting latest at once (on PostgreSQL each would otherwise miss the other's new row and
 * one would fail on the partial unique index); the index stays the last word.
 */
async function clearLatest(tx: DbOrTx, productKey: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`cellhub:firmware-latest:${productKey}`}))`);
  await tx
    .update(firmwareVersions)
    .set({ latest: false })
    .where(and(eq(firmwareVersions.productKey, productKey), eq(firmwareVersions.latest, true)));
}

// ---------------------------------------------------------------------------------------------------------------
// Export for the OTA module

export interface FirmwareVersionFile {
  id: number;
  firmwareId: number;
  productKey: string;
  version: string;
  /** Bytes. */
  size: number;
  /** The digest of `algorithm` (lower-case hex): what the device checks. */
  checksum: string;
  algorithm: ChecksumAlgorithm;
  sha256: string;
  md5: string;
  /** The stored binary in the file store (lib/file-store.ts). */
  file: FileRef;
  /** The name it was uploaded or fetched with. */
  filename: string;
}

/** The stored binary of a version and its digests, or null when the version does not exist. No access check. */
export async function getFirmwareVersionFile(
  deps: Pick<Deps, 'db' | 'config'>,
  versionId: number,
): Promise<FirmwareVersionFile | null> {
  const [v] = await deps.db.select().from(firmwareVersions).where(eq(firmwareVersions.id, versionId));
  if (!v) return null;
  return {
    id: v.id,
    firmwareId: v.firmwareId,
    productKey: v.productKey,
    version: v.version,
    size: v.size,
    checksum: checksumOf(v),
    algorithm: v.algorithm,
    sha256: v.sha256,
    md5: v.md5,
    file: firmwareFileRef(v.fileId),
    filename: v.filename,
  };
}

/** Users may roll out versions of public firmware and of their own products; admins any version. */
const usableBy = (actor: Actor): SQL | undefined =>
  isAdmin(actor)
    ? undefined
    : or(
        eq(firmwares.public, true),
        inArray(
          firmwares.productKey,
          sql`(select ${products.productKey} from ${products} where ${ownerFilter(actor, products.uid)})`,
        ),
      );

/** Whether the actor may use this version in an OTA task (false also when it does not exist). */
export async function isFirmwareVersionUsable(
  deps: Pick<Deps, 'db'>,
  actor: Actor,
  versionId: number,
): Promise<boolean> {
  const [row] = await deps.db
    .select({ id: firmwareVersions.id })
    .from(firmwareVersions)
    .innerJoin(firmwares, eq(firmwares.id, firmwareVersions.firmwareId))
    .where(and(eq(firmwareVersions.id, versionId), usableBy(actor)));
  return !!row;
}

/**
 * Refuses to delete a version that must stay: it must exist (70001) and no OTA task that is not finished
 * (inactive, running or paused) may roll it out (71005, `details: {task_id, status}`): its devices still download
 * the file. Every deletion path (a version, a whole firmware) calls it inside the deleting transaction.
 */
export async function assertVersionDeletable(tx: DbOrTx, versionId: number): Promise<void> {
  const [row] = await tx
    .select({ id: firmwareVersions.id })
    .from(firmwareVersions)
    .where(eq(firmwareVersions.id, versionId));
  if (!row) throw notFound();
  const [task] = await tx
    .select({ id: otaTasks.id, status: otaTasks.status })
    .from(otaTasks)
    .where(
      and(eq(otaTasks.versionId, versionId), inArray(otaTasks.status, ['inactive', 'running', 'paused'])),
    )
    .limit(1);
  if (task) {
    throw new AppError(71005, 400, `The firmware version is used by OTA task ${task.id} (${task.status})`, {
      task_id: task.id,
      status: task.status,
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Firmware

export async function listFirmware(
  deps: Deps,
  actor: Actor,
  query: FirmwareListQuery,
): Promise<{ items: FirmwareItem[]; total: number }> {
  requireAdmin(actor);
  const conditions: (SQL | undefined)[] = [];
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    conditions.push(or(ilike(firmwares.name, like), ilike(firmwares.objname, like)));
  }
  if (query.product_key) conditions.push(eq(firmwares.productKey, query.product_key));
  if (query.type !== undefined) conditions.push(eq(firmwares.type, query.type));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(firmwares)
      .where(where)
      .orderBy(desc(firmwares.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(firmwares).where(where),
  ]);
  return { items: await toItems(deps, rows), total: total?.n ?? 0 };
}

export async function getFirmware(deps: Deps, actor: Actor, id: number): Promise<FirmwareItem> {
  requireAdmin(actor);
  const [item] = await toItems(deps, [await findFirmware(deps.db, id)]);
  return item!;
}

export async function createFirmware(
  deps: Deps,
  actor: Actor,
  input: z.output<typeof firmwareCreateBody>,
): Promise<FirmwareItem> {
  requireAdmin(actor);
  await requireProduct(deps.db, input.product_key);
  const row = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(firmwares)
      .values({
        name: input.name,
        productKey: input.product_key,
        type: input.type,
        objname: input.objname,
        description: input.description,
        public: input.public,
        uid: actor.uid,
      })
      .returning();
    if (!created) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'firmware_create',
      target: `firmware:${created.id}`,
      ip: actor.ip,
      detail: { name: input.name, product_key: input.product_key },
    });
    return created;
  });
  const [item] = await toItems(deps, [row]);
  return item!;
}

export async function updateFirmware(
  deps: Deps,
  actor: Actor,
  id: number,
  input: z.output<typeof firmwareUpdateBody>,
): Promise<FirmwareItem> {
  requireAdmin(actor);
  const current = await findFirmware(deps.db, id);
  const productChanges = input.product_key !== undefined && input.product_key !== current.productKey;
  if (productChanges) await requireProduct(deps.db, input.product_key!);
  const row = await deps.db.transaction(async (tx) => {
    if (productChanges) {
      // Versions carry the product (one latest per product); moving them could break that rule silently.
      const [n] = await tx
        .select({ n: count() })
        .from(firmwareVersions)
        .where(eq(firmwareVersions.firmwareId, id));
      if ((n?.n ?? 0) > 0) {
        throw new AppError(70003, 400, 'The product of a firmware with versions cannot change', [
          { field: 'product_key', message: 'the firmware has versions' },
        ]);
      }
    }
    const [updated] = await tx
      .update(firmwares)
      .set({
        name: input.name,
        productKey: input.product_key,
        type: input.type,
        objname: input.objname,
        description: input.description,
        public: input.public,
      })
      .where(eq(firmwares.id, id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'firmware_update',
      target: `firmware:${id}`,
      ip: actor.ip,
      detail: { fields: Object.keys(input) },
    });
    return updated ?? current;
  });
  const [item] = await toItems(deps, [row]);
  return item!;
}

/** Deletes the firmware with its versions (each must be deletable) and then their files. */
export async function deleteFirmware(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await findFirmware(deps.db, id);
  const fileIds = await deps.db.transaction(async (tx) => {
    const versions = await tx
      .select({ id: firmwareVersions.id, fileId: firmwareVersions.fileId })
      .from(firmwareVersions)
      .where(eq(firmwareVersions.firmwareId, id));
    for (const v of versions) await assertVersionDeletable(tx, v.id);
    await tx.delete(firmwareVersions).where(eq(firmwareVersions.firmwareId, id));
    const deleted = await tx.delete(firmwares).where(eq(firmwares.id, id)).returning({ id: firmwares.id });
    if (deleted.length === 0) throw notFound();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'firmware_delete',
      target: `firmware:${id}`,
      ip: actor.ip,
      detail: { versions: versions.length },
    });
    return versions.map((v) => v.fileId);
  });
  await removeFirmwareFiles(deps, fileIds);
}

// ---------------------------------------------------------------------------------------------------------------
// Versions

export async function listFirmwareVersions(
  deps: Deps,
  actor: Actor,
  firmwareId: number,
  query: FirmwareVersionListQuery,
): Promise<{ items: FirmwareVersion[]; total: number }> {
  requireAdmin(actor);
  await findFirmware(deps.db, firmwareId);
  const where = and(
    eq(firmwareVersions.firmwareId, firmwareId),
    query.keyword
      ? or(
          ilike(firmwareVersions.version, likeKeyword(query.keyword)),
          ilike(firmwareVersions.description, likeKeyword(query.keyword)),
        )
      : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(firmwareVersions)
      .where(where)
      .orderBy(desc(firmwareVersions.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(firmwareVersions).where(where),
  ]);
  return { items: rows.map(toVersion), total: total?.n ?? 0 };
}

export async function getFirmwareVersion(
  deps: Deps,
  actor: Actor,
  firmwareId: number,
  versionId: number,
): Promise<FirmwareVersion> {
  requireAdmin(actor);
  return toVersion(await findVersion(deps.db, firmwareId, versionId));
}

type NewVersion = z.output<typeof firmwareVersionUploadFields> & { url?: string };

async function assertVersionFree(db: DbOrTx, firmwareId: number, version: string): Promise<void> {
  const [dup] = await db
    .select({ id: firmwareVersions.id })
    .from(firmwareVersions)
    .where(and(eq(firmwareVersions.firmwareId, firmwareId), eq(firmwareVersions.version, version)));
  if (dup) throw versionExists();
}

/** Records a stored binary as a version; the file is removed again when the row cannot be written. */
async function insertVersion(
  deps: Deps,
  actor: Actor,
  firmware: FirmwareRow,
  input: NewVersion,
  file: StoredFirmwareFile,
  filename: string,
): Promise<FirmwareVersion> {
  try {
    const row = await deps.db.transaction(async (tx) => {
      if (input.latest) await clearLatest(tx, firmware.productKey);
      const [created] = await tx
        .insert(firmwareVersions)
        .values({
          firmwareId: firmware.id,
          productKey: firmware.productKey,
          version: input.version,
          url: input.url ?? '',
          filename,
          fileId: file.fileId,
          size: file.size,
          md5: file.md5,
          sha256: file.sha256,
          algorithm: input.algorithm,
          description: input.description,
          latest: input.latest,
          uid: actor.uid,
        })
        .returning();
      if (!created) throw new AppError(10109);
      await tx.update(firmwares).set({ updatedat: new Date() }).where(eq(firmwares.id, firmware.id));
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'firmware_version_create',
        target: `firmware_version:${created.id}`,
        ip: actor.ip,
        detail: {
          firmware_id: firmware.id,
          version: input.version,
          size: file.size,
          sha256: file.sha256,
          latest: input.latest,
          ...(input.url ? { url: input.url } : {}),
        },
      });
      return created;
    });
    return toVersion(row);
  } catch (err) {
    await removeFirmwareFiles(deps, [file.fileId]);
    if (violatedUnique(err) === 'firmware_versions_version_uq') throw versionExists();
    throw err;
  }
}

/** The name a binary is recorded with: its base name, printable, at most 255 characters. */
const cleanFilename = (name: string) => cleanStoredName(name, 'firmware.bin');

/**
 * A version from an uploaded file streamed from the request. Its fields are checked before the first byte is
 * stored (firmware exists, version free); the binary is checked while it streams (see storeFirmwareStream).
 */
export async function uploadFirmwareVersion(
  deps: Deps,
  actor: Actor,
  firmwareId: number,
  input: z.output<typeof firmwareVersionUploadFields>,
  file: { stream: Readable; filename: string },
): Promise<FirmwareVersion> {
  requireAdmin(actor);
  const firmware = await findFirmware(deps.db, firmwareId);
  await assertVersionFree(deps.db, firmwareId, input.version);
  const filename = cleanFilename(file.filename);
  const stored = await storeFirmwareStream(deps, file.stream, {
    filename,
    expect: input.checksum ? { algorithm: input.algorithm, checksum: input.checksum } : undefined,
    drainOnFailure: true,
  });
  return insertVersion(deps, actor, firmware, input, stored, filename);
}

/** A version from a URL: the server downloads it once, with the same checks, and serves it from then on. */
export async function importFirmwareVersion(
  deps: Deps,
  actor: Actor,
  firmwareId: number,
  input: z.output<typeof firmwareVersionImportBody>,
): Promise<FirmwareVersion> {
  requireAdmin(actor);
  const firmware = await findFirmware(deps.db, firmwareId);
  await assertVersionFree(deps.db, firmwareId, input.version);
  let filename = '';
  const stored = await fetchFirmware(deps, input.url, ({ body, filename: name }) => {
    filename = cleanFilename(name);
    return storeFirmwareStream(deps, body, {
      filename,
      allowNoExtension: true,
      expect: input.checksum ? { algorithm: input.algorithm, checksum: input.checksum } : undefined,
      drainOnFailure: false,
    });
  });
  return insertVersion(deps, actor, firmware, input, stored, filename);
}

export async function updateFirmwareVersion(
  deps: Deps,
  actor: Actor,
  firmwareId: number,
  versionId: number,
  input: z.output<typeof firmwareVersionUpdateBody>,
): Promise<FirmwareVersion> {
  requireAdmin(actor);
  const current = await findVersion(deps.db, firmwareId, versionId);
  try {
    const row = await deps.db.transaction(async (tx) => {
      if (input.latest === true && !current.latest) await clearLatest(tx, current.productKey);
      const [updated] = await tx
        .update(firmwareVersions)
        .set({
          version: input.version,
          description: input.description,
          algorithm: input.algorithm,
          latest: input.latest,
        })
        .where(eq(firmwareVersions.id, versionId))
        .returning();
      if (!updated) throw notFound();
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'firmware_version_update',
        target: `firmware_version:${versionId}`,
        ip: actor.ip,
        detail: {
          firmware_id: firmwareId,
          fields: Object.keys(input),
          ...(input.latest ? { latest: true } : {}),
        },
      });
      return updated;
    });
    return toVersion(row);
  } catch (err) {
    if (violatedUnique(err) === 'firmware_versions_version_uq') throw versionExists();
    throw err;
  }
}

export async function deleteFirmwareVersion(
  deps: Deps,
  actor: Actor,
  firmwareId: number,
  versionId: number,
): Promise<void> {
  requireAdmin(actor);
  const version = await findVersion(deps.db, firmwareId, versionId);
  await deps.db.transaction(async (tx) => {
    await assertVersionDeletable(tx, versionId);
    await tx.delete(firmwareVersions).where(eq(firmwareVersions.id, versionId));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'firmware_version_delete',
      target: `firmware_version:${versionId}`,
      ip: actor.ip,
      detail: { firmware_id: firmwareId, version: version.version },
    });
  });
  await removeFirmwareFiles(deps, [version.fileId]);
}

/** The stored binary of a version, for an admin's download. */
export async function firmwareVersionDownload(
  deps: Deps,
  actor: Actor,
  firmwareId: number,
  versionId: number,
): Promise<{ file: FileRef; filename: string; size: number; sha256: string }> {
  requireAdmin(actor);
  const v = await findVersion(deps.db, firmwareId, versionId);
  return { file: firmwareFileRef(v.fileId), filename: v.filename, size: v.size, sha256: v.sha256 };
}

// ---------------------------------------------------------------------------------------------------------------
// Usable versions (any signed-in user)

export async function listUsableFirmwareVersions(
  deps: Deps,
  actor: Actor,
  query: UsableFirmwareQuery,
): Promise<{ items: UsableFirmwareVersion[]; total: number }> {
  const productKey = query.product_key ?? query.productKey;
  const where = and(
    usableBy(actor),
    productKey ? eq(firmwareVersions.productKey, productKey) : undefined,
    query.keyword
      ? or(
          ilike(firmwares.name, likeKeyword(query.keyword)),
          ilike(firmwareVersions.version, likeKeyword(query.keyword)),
        )
      : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ v: firmwareVersions, f: firmwares })
      .from(firmwareVersions)
      .innerJoin(firmwares, eq(firmwares.id, firmwareVersions.firmwareId))
      .where(where)
      .orderBy(desc(firmwareVersions.latest), desc(firmwareVersions.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(firmwareVersions)
      .innerJoin(firmwares, eq(firmwares.id, firmwareVersions.firmwareId))
      .where(where),
  ]);
  const names = await productNames(
    deps.db,
    rows.map((r) => r.f.productKey),
  );
  return {
    items: rows.map(({ v, f }) => {
      const { url: _url, ...version } = toVersion(v);
      return {
        ...version,
        firmware_name: f.name,
        product_name: names.get(f.productKey) ?? '',
        type: f.type,
        objname: f.objname,
        public: f.public,
      };
    }),
    total: total?.n ?? 0,
  };
}
