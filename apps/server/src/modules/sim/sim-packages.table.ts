import { boolean, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { PackageType, SimOperator, ValidityUnit } from '@cellhub/contract/sim';
import { createdat, updatedat } from '../../db/columns';

/** Data packages (seed "SIM package"). Price in integer fen; flow in whole MB. */
export const simPackages = pgTable(
  'sim_packages',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    code: text('code').notNull(),
    operator: text('operator').$type<SimOperator>().notNull(),
    type: text('type').$type<PackageType>().notNull(),
    validityUnit: text('validity_unit').$type<ValidityUnit>().notNull(),
    validityCount: integer('validity_count').notNull(),
    flowMb: integer('flow_mb').notNull(),
    priceFen: integer('price_fen').notNull(),
    remark: text('remark').notNull().default(''),
    onSale: boolean('on_sale').notNull().default(true),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [uniqueIndex('sim_packages_code_uq').on(t.code)],
);
export type SimPackageRow = typeof simPackages.$inferSelect;
