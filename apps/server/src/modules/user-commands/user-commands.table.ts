import { index, integer, pgTable, primaryKey, serial, text } from 'drizzle-orm/pg-core';
import { createdat, updatedat } from '../../db/columns';
import { users } from '../users/users.table';

/** Saved commands (seed /device/user-command): owned by one user, sent to many devices. */
export const userCommands = pgTable(
  'user_commands',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: ['hex', 'string'] }).notNull(),
    data: text('data').notNull(),
    description: text('description').notNull().default(''),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('user_commands_uid_idx').on(t.uid, t.id)],
);
export type UserCommandRow = typeof userCommands.$inferSelect;

/** One send of a saved command; type and data are copied because the command may be edited later. */
export const userCommandRuns = pgTable(
  'user_command_runs',
  {
    id: serial('id').primaryKey(),
    userCommandId: integer('user_command_id')
      .notNull()
      .references(() => userCommands.id, { onDelete: 'cascade' }),
    uid: integer('uid').notNull(),
    type: text('type', { enum: ['hex', 'string'] }).notNull(),
    data: text('data').notNull(),
    total: integer('total').notNull(),
    createdat: createdat(),
  },
  (t) => [index('user_command_runs_command_idx').on(t.userCommandId, t.id)],
);

/**
 * One device of a run, in the order asked. The outcome at send time is stored here; the reply (or timeout) is read
 * from device_commands through command_id, so there is one source of truth for it.
 */
export const userCommandResults = pgTable(
  'user_command_results',
  {
    runId: integer('run_id')
      .notNull()
      .references(() => userCommandRuns.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    sn: text('sn').notNull(),
    commandId: text('command_id'),
    status: text('status', { enum: ['sent', 'offline', 'failed', 'not_found'] }).notNull(),
    code: integer('code'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.position] })],
);
