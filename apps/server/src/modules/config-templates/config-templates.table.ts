import { boolean, index, integer, jsonb, pgTable, primaryKey, serial, text } from 'drizzle-orm/pg-core';
import { createdat, updatedat } from '../../db/columns';
import { users } from '../users/users.table';

/** Batch configuration templates (seed /device/config-template): a partial device configuration. */
export const configTemplates = pgTable(
  'config_templates',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('config_templates_uid_idx').on(t.uid, t.id)],
);
export type ConfigTemplateRow = typeof configTemplates.$inferSelect;

/** One application of a template to a set of devices. */
export const configTemplateApplies = pgTable(
  'config_template_applies',
  {
    id: serial('id').primaryKey(),
    templateId: integer('template_id')
      .notNull()
      .references(() => configTemplates.id, { onDelete: 'cascade' }),
    uid: integer('uid').notNull(),
    total: integer('total').notNull(),
    createdat: createdat(),
  },
  (t) => [index('config_template_applies_template_idx').on(t.templateId, t.id)],
);

/**
 * One device of an apply with the expect_config_version it produced. Sync is read from the device row
 * (config_version reached `version`), so progress needs no extra writes when devices report.
 */
export const configApplyResults = pgTable(
  'config_apply_results',
  {
    applyId: integer('apply_id')
      .notNull()
      .references(() => configTemplateApplies.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    sn: text('sn').notNull(),
    /** Null when the sn was not one of the caller's devices. */
    deviceId: integer('device_id'),
    version: integer('version'),
    sent: boolean('sent').notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.applyId, t.position] })],
);
