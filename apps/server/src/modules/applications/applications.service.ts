import { and, count, desc, eq, ilike, inArray, ne, or, type SQL, sql } from 'drizzle-orm';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import {
  APPLICATION_LINK_TTL_SECONDS,
  type ApplicationDownloadLink,
  type ApplicationItem,
  type ApplicationLatest,
  type ApplicationListQuery,
  type ApplicationVersion,
  type ApplicationVersionListQuery,
  type applicationCreateBody,
  type applicationUpdateBody,
  type applicationVersionUpdateBody,
  type applicationVersionUploadFields,
  compareVersions,
} from '@cellhub/contract/applications';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import { openToSignedIn, requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { cleanFilename, type FileRef } from '../../lib/file-store';
import { countPerId, likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { signLink, verifyLink } from './application-link';
import {
  applicationFileRef,
  checkIcon,
  removeApplicationFiles,
  storeApplicationStream,
} from './application-file';
import {
  type ApplicationRow,
  applications,
  type ApplicationVersionRow,
  applicationVersions,
} from './applications.table';

/** An unknown application or version (or a version of another application). */
const notFound = () => new AppError(10107);

const versionExists = () =>
  new AppError(10113, 400, 'This application already has this version', [
    { field: 'version', message: 'exists' },
  ]);

/** True when `err` (or its cause) is a unique violation of `index`. */
function violates(err: unknown, index: string): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const pg = e as { code?: unknown; constraint?: unknown; message?: unknown; detail?: unknown };
    if (pg.code !== '23505') continue;
    return pg.constraint === index || `${String(pg.message)} ${String(pg.detail)}`.includes(index);
  }
  return false;
}

export function toVersion(row: ApplicationVersionRow): ApplicationVersion {
  return {
    id: row.id,
    application_id: row.applicationId,
    version: row.version,
    notes_zh: row.notesZh,
    notes_en: row.notesEn,
    filename: row.filename,
    size: row.size,
    sha256: row.sha256,
    content_type: row.contentType,
    latest: row.latest,
    force_update: row.forceUpdate,
    createdat: row.createdat.toISOString(),
  };
}

async function toItems(deps: Deps, rows: ApplicationRow[]): Promise<ApplicationItem[]> {
  const ids = rows.map((r) => r.id);
  const [counts, latest] = await Promise.all([
    countPerId(deps, applicationVersions.applicationId, ids),
    ids.length === 0
      ? Promise.resolve([])
      : deps.db
          .select()
          .from(applicationVersions)
          .where(and(inArray(applicationVersions.applicationId, ids), eq(applicationVersions.latest, true))),
  ]);
  const latestById = new Map(latest.map((v) => [v.applicationId, toVersion(v)]));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    platform: r.platform,
    description: r.description,
    icon: r.icon,
    created_by: r.createdBy,
    version_count: counts.get(r.id) ?? 0,
    latest: latestById.get(r.id) ?? null,
    createdat: r.createdat.toISOString(),
    updatedat: r.updatedat.toISOString(),
  }));
}

async function findApplication(db: DbOrTx, id: number): Promise<ApplicationRow> {
  const [row] = await db.select().from(applications).where(eq(applications.id, id));
  if (!row) throw notFound();
  return row;
}

async function findVersion(
  db: DbOrTx,
  applicationId: number,
  versionId: number,
): Promise<ApplicationVersionRow> {
  const [row] = await db
    .select()
    .from(applicationVersions)
    .where(and(eq(applicationVersions.id, versionId), eq(applicationVersions.applicationId, applicationId)));
  if (!row) throw notFound();
  return row;
}

/**
 * Takes `latest` from the application's other versions. Serialised per application by an advisory lock, so two
 * admins marking two versions at once end with one latest, not a unique violation.
 */
async function clearLatest(tx: DbOrTx, applicationId: number, except?: number): Promise<void> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtext(${`cellhub:application-latest:${applicationId}`}))`,
  );
  await tx
    .update(applicationVersions)
    .set({ latest: false })
    .where(
      and(
        eq(applicationVersions.applicationId, applicationId),
        eq(applicationVersions.latest, true),
        except === undefined ? undefined : ne(applicationVersions.id, except),
      ),
    );
}

// ---------------------------------------------------------------------------------------------------------------
// Applications

export async function listApplications(
  deps: Deps,
  actor: Actor,
  query: ApplicationListQuery,
): Promise<{ items: ApplicationItem[]; total: number }> {
  openToSignedIn(actor);
  const conditions: (SQL | undefined)[] = [
    query.platform ? eq(applications.platform, query.platform) : undefined,
  ];
  if (query.keyword) {
    const like = likeKeyword(query.keyword);
    conditions.push(or(ilike(applications.name, like), ilike(applications.description, like)));
  }
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(applications)
      .where(where)
      .orderBy(desc(applications.updatedat), desc(applications.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(applications).where(where),
  ]);
  return { items: await toItems(deps, rows), total: total?.n ?? 0 };
}

export async function getApplication(deps: Deps, actor: Actor, id: number): Promise<ApplicationItem> {
  openToSignedIn(actor);
  const [item] = await toItems(deps, [await findApplication(deps.db, id)]);
  return item!;
}

export async function createApplication(
  deps: Deps,
  actor: Actor,
  input: z.output<typeof applicationCreateBody>,
): Promise<ApplicationItem> {
  requireAdmin(actor);
  const icon = checkIcon(input.icon);
  const row = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(applications)
      .values({
        name: input.name,
        platform: input.platform,
        description: input.description,
        icon,
        createdBy: actor.uid,
      })
      .returning();
    if (!created) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'application_create',
      target: `application:${created.id}`,
      ip: actor.ip,
      detail: { name: input.name, platform: input.platform },
    });
    return created;
  });
  const [item] = await toItems(deps, [row]);
  return item!;
}

export async function updateApplication(
  deps: Deps,
  actor: Actor,
  id: number,
  input: z.output<typeof applicationUpdateBody>,
): Promise<ApplicationItem> {
  requireAdmin(actor);
  await findApplication(deps.db, id);
  const icon = input.icon === undefined ? undefined : checkIcon(input.icon);
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(applications)
      .set({
        name: input.name,
        platform: input.platform,
        description: input.description,
        icon,
        updatedat: new Date(),
      })
      .where(eq(applications.id, id))
      .returning();
    if (!updated) throw notFound();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'application_update',
      target: `application:${id}`,
      ip: actor.ip,
      detail: { fields: Object.keys(input) },
    });
    return updated;
  });
  const [item] = await toItems(deps, [row]);
  return item!;
}

/** Deletes an application with its versions (cascade) and then their files. */
export async function deleteApplication(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  const app = await findApplication(deps.db, id);
  const fileIds = await deps.db.transaction(async (tx) => {
    const files = await tx
      .select({ fileId: applicationVersions.fileId })
      .from(applicationVersions)
      .where(eq(applicationVersions.applicationId, id));
    await tx.delete(applications).where(eq(applications.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'application_delete',
      target: `application:${id}`,
      ip: actor.ip,
      detail: { name: app.name, versions: files.length },
    });
    return files.map((f) => f.fileId);
  });
  await removeApplicationFiles(deps, fileIds);
}

// ---------------------------------------------------------------------------------------------------------------
// Versions

export async function listApplicationVersions(
  deps: Deps,
  actor: Actor,
  id: number,
  query: ApplicationVersionListQuery,
): Promise<{ items: ApplicationVersion[]; total: number }> {
  openToSignedIn(actor);
  await findApplication(deps.db, id);
  const where = and(
    eq(applicationVersions.applicationId, id),
    query.keyword
      ? or(
          ilike(applicationVersions.version, likeKeyword(query.keyword)),
          ilike(applicationVersions.notesZh, likeKeyword(query.keyword)),
          ilike(applicationVersions.notesEn, likeKeyword(query.keyword)),
        )
      : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(applicationVersions)
      .where(where)
      .orderBy(desc(applicationVersions.createdat), desc(applicationVersions.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(applicationVersions).where(where),
  ]);
  return { items: rows.map(toVersion), total: total?.n ?? 0 };
}

async function assertVersionFree(db: DbOrTx, applicationId: number, version: string, except?: number) {
  const [dup] = await db
    .select({ id: applicationVersions.id })
    .from(applicationVersions)
    .where(
      and(
        eq(applicationVersions.applicationId, applicationId),
        eq(applicationVersions.version, version),
        except === undefined ? undefined : ne(applicationVersions.id, except),
      ),
    );
  if (dup) throw versionExists();
}

/**
 * A version from a package streamed from the request. Its fields are checked before the first byte is stored
 * (application exists, version free); the package is checked while it streams (application-file.ts).
 */
export async function uploadApplicationVersion(
  deps: Deps,
  actor: Actor,
  applicationId: number,
  input: z.output<typeof applicationVersionUploadFields>,
  file: { stream: Readable; filename: string },
): Promise<ApplicationVersion> {
  requireAdmin(actor);
  await findApplication(deps.db, applicationId);
  await assertVersionFree(deps.db, applicationId, input.version);
  const filename = cleanFilename(file.filename, 'package.bin');
  const stored = await storeApplicationStream(deps, file.stream, filename, input.sha256);
  try {
    const row = await deps.db.transaction(async (tx) => {
      if (input.latest) await clearLatest(tx, applicationId);
      const [created] = await tx
        .insert(applicationVersions)
        .values({
          applicationId,
          version: input.version,
          notesZh: input.notes_zh,
          notesEn: input.notes_en,
          fileId: stored.fileId,
          filename,
          size: stored.size,
          sha256: stored.sha256,
          contentType: stored.contentType,
          latest: input.latest,
          forceUpdate: input.force_update,
          createdBy: actor.uid,
        })
        .returning();
      if (!created) throw new AppError(10109);
      await tx.update(applications).set({ updatedat: new Date() }).where(eq(applications.id, applicationId));
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'application_version_create',
        target: `application_version:${created.id}`,
        ip: actor.ip,
        detail: {
          application_id: applicationId,
          version: input.version,
          size: stored.size,
          sha256: stored.sha256,
          latest: input.latest,
        },
      });
      return created;
    });
    return toVersion(row);
  } catch (err) {
    await removeApplicationFiles(deps, [stored.fileId]);
    if (violates(err, 'application_versions_version_uq')) throw versionExists();
    // The application was deleted while its package streamed in.
    if ((err as { code?: unknown }).code === '23503') throw notFound();
    throw err;
  }
}

export async function updateApplicationVersion(
  deps: Deps,
  actor: Actor,
  applicationId: number,
  versionId: number,
  input: z.output<typeof applicationVersionUpdateBody>,
): Promise<ApplicationVersion> {
  requireAdmin(actor);
  await findVersion(deps.db, applicationId, versionId);
  if (input.version !== undefined) await assertVersionFree(deps.db, applicationId, input.version, versionId);
  try {
    const row = await deps.db.transaction(async (tx) => {
      if (input.latest === true) await clearLatest(tx, applicationId, versionId);
      const [updated] = await tx
        .update(applicationVersions)
        .set({
          version: input.version,
          notesZh: input.notes_zh,
          notesEn: input.notes_en,
          latest: input.latest,
          forceUpdate: input.force_update,
        })
        .where(
          and(eq(applicationVersions.id, versionId), eq(applicationVersions.applicationId, applicationId)),
        )
        .returning();
      if (!updated) throw notFound();
      await tx.update(applications).set({ updatedat: new Date() }).where(eq(applications.id, applicationId));
      await writeAudit(tx, {
        uid: actor.uid,
        action: 'application_version_update',
        target: `application_version:${versionId}`,
        ip: actor.ip,
        detail: { application_id: applicationId, fields: Object.keys(input) },
      });
      return updated;
    });
    return toVersion(row);
  } catch (err) {
    if (violates(err, 'application_versions_version_uq')) throw versionExists();
    throw err;
  }
}

export async function deleteApplicationVersion(
  deps: Deps,
  actor: Actor,
  applicationId: number,
  versionId: number,
): Promise<void> {
  requireAdmin(actor);
  const version = await findVersion(deps.db, applicationId, versionId);
  await deps.db.transaction(async (tx) => {
    await tx.delete(applicationVersions).where(eq(applicationVersions.id, versionId));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'application_version_delete',
      target: `application_version:${versionId}`,
      ip: actor.ip,
      detail: { application_id: applicationId, version: version.version },
    });
  });
  await removeApplicationFiles(deps, [version.fileId]);
}

/** The stored package of a version, for any signed-in user's download. */
export async function applicationVersionFile(
  deps: Deps,
  actor: Actor,
  applicationId: number,
  versionId: number,
): Promise<{ file: FileRef; filename: string; size: number; sha256: string; contentType: string }> {
  openToSignedIn(actor);
  const v = await findVersion(deps.db, applicationId, versionId);
  return {
    file: applicationFileRef(v.fileId),
    filename: v.filename,
    size: v.size,
    sha256: v.sha256,
    contentType: v.contentType,
  };
}

/** A signed link to a version's package for the browser (contract: applicationDownloadLink). */
export async function applicationDownloadLink(
  deps: Deps,
  actor: Actor,
  applicationId: number,
  versionId: number,
): Promise<ApplicationDownloadLink> {
  openToSignedIn(actor);
  await findVersion(deps.db, applicationId, versionId);
  const expiresAt = deps.now().getTime() + APPLICATION_LINK_TTL_SECONDS * 1000;
  return {
    url: `/api/application-files/${signLink(deps.box, { versionId, expiresAt })}`,
    expires_at: new Date(expiresAt).toISOString(),
  };
}

/**
 * The package a link names. A wrong, tampered or expired link and a deleted version all answer like a missing
 * resource (10107), so a link says nothing about what exists.
 */
export async function linkedVersionFile(
  deps: Deps,
  token: string,
): Promise<{ file: FileRef; filename: string; size: number; sha256: string; contentType: string }> {
  const grant = verifyLink(deps.box, token);
  const refused = () => new AppError(10107, 400, 'The download link is invalid or has expired');
  if (!grant || grant.expiresAt <= deps.now().getTime()) throw refused();
  const [v] = await deps.db
    .select()
    .from(applicationVersions)
    .where(eq(applicationVersions.id, grant.versionId));
  if (!v) throw refused();
  return {
    file: applicationFileRef(v.fileId),
    filename: v.filename,
    size: v.size,
    sha256: v.sha256,
    contentType: v.contentType,
  };
}

/** What a client tool asks at start: the latest version, and whether the one it runs is older. */
export async function applicationLatest(
  deps: Deps,
  actor: Actor,
  id: number,
  current: string | undefined,
): Promise<ApplicationLatest> {
  openToSignedIn(actor);
  const app = await findApplication(deps.db, id);
  const [row] = await deps.db
    .select()
    .from(applicationVersions)
    .where(and(eq(applicationVersions.applicationId, id), eq(applicationVersions.latest, true)));
  const latest = row ? toVersion(row) : null;
  if (current !== undefined && current !== '' && !/^[\w.+-]+$/.test(current)) {
    throw formError('current', 'version_rule');
  }
  const updateAvailable = Boolean(latest && current && compareVersions(current, latest.version) < 0);
  return {
    application: { id: app.id, name: app.name, platform: app.platform },
    latest,
    update_available: updateAvailable,
    force_update: updateAvailable && Boolean(latest?.force_update),
  };
}
