import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ApplicationPlatform } from '@cellhub/contract/applications';
import { createdat, updatedat } from '../../db/columns';
import { users } from '../users/users.table';

/** An application admins publish (issue 14). The icon is a small data URL checked by the service. */
export const applications = pgTable(
  'applications',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    platform: text('platform').$type<ApplicationPlatform>().notNull(),
    description: text('description').notNull().default(''),
    icon: text('icon').notNull().default(''),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('applications_platform_idx').on(t.platform)],
);
export type ApplicationRow = typeof applications.$inferSelect;

/**
 * One uploaded package of an application, stored at DATA_DIR/files/applications/<file_id>. The partial unique
 * index keeps at most one `latest` version per application; the service clears the others in the same transaction.
 * Deleting an application deletes its versions (cascade); the service removes their files after the commit.
 */
export const applicationVersions = pgTable(
  'application_versions',
  {
    id: serial('id').primaryKey(),
    applicationId: integer('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    version: text('version').notNull(),
    notesZh: text('notes_zh').notNull().default(''),
    notesEn: text('notes_en').notNull().default(''),
    fileId: text('file_id').notNull(),
    filename: text('filename').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    contentType: text('content_type').notNull(),
    latest: boolean('latest').notNull().default(false),
    forceUpdate: boolean('force_update').notNull().default(false),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdat: createdat(),
  },
  (t) => [
    uniqueIndex('application_versions_version_uq').on(t.applicationId, t.version),
    uniqueIndex('application_versions_latest_uq')
      .on(t.applicationId)
      .where(sql`${t.latest}`),
  ],
);
export type ApplicationVersionRow = typeof applicationVersions.$inferSelect;
