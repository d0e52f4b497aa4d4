import {
  bigint,
  bigserial,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { PackageType, SimCardStatus, SimImportFailure, SimOperator } from '@cellhub/contract/sim';
import { createdat, tstz, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';
import { users } from '../users/users.table';
import { simPackages } from './sim-packages.table';
import { simProviders } from './sim-providers.table';

const bytes = (name: string) => bigint(name, { mode: 'number' });

/**
 * SIM cards. The current allowance comes from the package the card is on: `allowance_bytes` a month (`monthly`) or
 * for the whole period since `period_start` (`pool`); what is used against it is read from sim_usage_monthly.
 * `expires_at` is the package expiry Cellhub manages (orders extend it); `operator_expires_at` what the operator
 * reports. `exhausted` is refreshed whenever usage or the allowance changes, so lists can filter on it.
 */
export const simCards = pgTable(
  'sim_cards',
  {
    id: serial('id').primaryKey(),
    iccid: text('iccid').notNull(),
    msisdn: text('msisdn').notNull().default(''),
    imsi: text('imsi').notNull().default(''),
    operator: text('operator').$type<SimOperator>().notNull(),
    providerId: integer('provider_id')
      .notNull()
      .references(() => simProviders.id),
    packageId: integer('package_id').references(() => simPackages.id),
    /** Assigned user; null = visible only through a device that reports the iccid (or to admins). */
    uid: integer('uid').references(() => users.id, { onDelete: 'set null' }),
    status: text('status').$type<SimCardStatus>().notNull().default('inactive'),
    rawStatus: text('raw_status'),
    activatedAt: tstz('activated_at'),
    expiresAt: tstz('expires_at'),
    operatorExpiresAt: tstz('operator_expires_at'),
    allowanceType: text('allowance_type').$type<PackageType>(),
    allowanceBytes: bytes('allowance_bytes'),
    periodStart: tstz('period_start'),
    /** The operator's own quota figures, when it offers them. */
    quotaTotalBytes: bytes('quota_total_bytes'),
    quotaUsedBytes: bytes('quota_used_bytes'),
    quotaRemainingBytes: bytes('quota_remaining_bytes'),
    exhausted: boolean('exhausted').notNull().default(false),
    lastSyncedAt: tstz('last_synced_at'),
    syncError: text('sync_error'),
    remark: text('remark').notNull().default(''),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('sim_cards_iccid_uq').on(t.iccid),
    index('sim_cards_provider_idx').on(t.providerId, t.id),
    index('sim_cards_uid_idx').on(t.uid),
    index('sim_cards_package_idx').on(t.packageId),
    index('sim_cards_expires_idx').on(t.expiresAt),
  ],
);
export type SimCardRow = typeof simCards.$inferSelect;

/** Data used per card and UTC day (operator daily figures, imports). */
export const simUsageDaily = pgTable(
  'sim_usage_daily',
  {
    cardId: integer('card_id')
      .notNull()
      .references(() => simCards.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    usedBytes: bytes('used_bytes').notNull(),
    source: text('source').$type<'sync' | 'import'>().notNull(),
    updatedat: updatedat(),
  },
  (t) => [primaryKey({ columns: [t.cardId, t.day] })],
);

/** Data used per card and calendar month `YYYY-MM` (the operator's month figure, or the sum of imported days). */
export const simUsageMonthly = pgTable(
  'sim_usage_monthly',
  {
    cardId: integer('card_id')
      .notNull()
      .references(() => simCards.id, { onDelete: 'cascade' }),
    month: text('month').notNull(),
    usedBytes: bytes('used_bytes').notNull(),
    source: text('source').$type<'sync' | 'import'>().notNull(),
    updatedat: updatedat(),
  },
  (t) => [primaryKey({ columns: [t.cardId, t.month] })],
);

/** Stock creation log: one row per batch file or single card created by an admin. */
export const simCardLogs = pgTable(
  'sim_card_logs',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid').references(() => users.id, { onDelete: 'set null' }),
    source: text('source').$type<'batch' | 'single'>().notNull(),
    filename: text('filename').notNull().default(''),
    total: integer('total').notNull(),
    created: integer('created').notNull(),
    failed: integer('failed').notNull(),
    failures: jsonb('failures').$type<SimImportFailure[]>().notNull().default([]),
    iccids: jsonb('iccids').$type<string[]>().notNull().default([]),
    createdat: createdat(),
  },
  (t) => [index('sim_card_logs_createdat_idx').on(t.createdat)],
);

/**
 * SIM swaps seen by the gateway: a device that had reported `old_iccid` now reports `new_iccid`. Written by the
 * device info handler; the card detail shows them as a warning.
 */
export const simSwaps = pgTable(
  'sim_swaps',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    sn: text('sn').notNull(),
    oldIccid: text('old_iccid').notNull(),
    newIccid: text('new_iccid').notNull(),
    at: tstz('at').notNull().defaultNow(),
  },
  (t) => [
    index('sim_swaps_old_idx').on(t.oldIccid, t.at),
    index('sim_swaps_new_idx').on(t.newIccid, t.at),
    index('sim_swaps_device_idx').on(t.deviceId),
  ],
);
