import { index, integer, jsonb, pgTable, serial, text } from 'drizzle-orm/pg-core';
import type { CommandParam } from '@cellhub/contract/command-groups';
import { createdat, updatedat } from '../../db/columns';
import { products } from '../products/products.table';

/** Groups of predefined commands of one product (seed /product/command_group); admins define them. */
export const commandGroups = pgTable(
  'command_groups',
  {
    id: serial('id').primaryKey(),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('command_groups_product_idx').on(t.productId, t.id)],
);
export type CommandGroupRow = typeof commandGroups.$inferSelect;

/** A predefined command: a template with `{{name}}` placeholders and the definitions of its parameters. */
export const groupCommands = pgTable(
  'group_commands',
  {
    id: serial('id').primaryKey(),
    groupId: integer('group_id')
      .notNull()
      .references(() => commandGroups.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: ['hex', 'string'] }).notNull(),
    data: text('data').notNull(),
    params: jsonb('params').$type<CommandParam[]>().notNull().default([]),
    replyPattern: text('reply_pattern').notNull().default(''),
    timeoutS: integer('timeout_s').notNull().default(30),
    description: text('description').notNull().default(''),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('group_commands_group_idx').on(t.groupId, t.id)],
);
export type GroupCommandRow = typeof groupCommands.$inferSelect;
