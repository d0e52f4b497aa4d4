import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
} from 'drizzle-orm/pg-core';
import type {
  AlertHistoryStatus,
  AlertMethod,
  AlertPushMode,
  AlertSource,
  AlertState,
  AlertTriggerType,
  AlertVerifyChannel,
} from '@cellhub/contract/alerts';
import type { PropertyValue } from '@cellhub/contract/protocol';
import { createdat, tstz, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';
import { users } from '../users/users.table';

/**
 * A property value in a jsonb column, boxed: a bare JSON string such as "5" or "true" would come back as a number or
 * a boolean (the driver parses jsonb, and drizzle parses strings once more).
 */
export interface BoxedValue {
  v: PropertyValue;
}
export const boxValue = (v: PropertyValue): BoxedValue => ({ v });
export const unboxValue = (b: BoxedValue | null | undefined): PropertyValue | null =>
  b && typeof b === 'object' && 'v' in b ? b.v : null;

/** People who receive alerts (seed "Alarm contact"). SMS only to a verified phone, email only to a verified email. */
export const alertContacts = pgTable(
  'alert_contacts',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    phone: text('phone').notNull().default(''),
    email: text('email').notNull().default(''),
    phoneVerified: boolean('phone_verified').notNull().default(false),
    emailVerified: boolean('email_verified').notNull().default(false),
    remark: text('remark').notNull().default(''),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('alert_contacts_uid_idx').on(t.uid, t.id)],
);
export type AlertContactRow = typeof alertContacts.$inferSelect;

/**
 * Verification codes of a contact's phone or email: a keyed hash (deps.box.hmac) bound to the contact, the channel
 * and the address it went to, so a code sent before the address changed cannot verify the new one.
 */
export const alertContactCodes = pgTable(
  'alert_contact_codes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    contactId: integer('contact_id')
      .notNull()
      .references(() => alertContacts.id, { onDelete: 'cascade' }),
    channel: text('channel').$type<AlertVerifyChannel>().notNull(),
    target: text('target').notNull(),
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: tstz('expires_at').notNull(),
    consumedAt: tstz('consumed_at'),
    createdat: createdat(),
  },
  (t) => [index('alert_contact_codes_contact_idx').on(t.contactId, t.channel, t.id)],
);

/**
 * Device triggers (seed "Alarm trigger"). One condition on one device: a property (`key`, types 3-7) or its online
 * state (types 1, 2). A scene trigger (source `scene`) keeps `scene_id` and watches the device property it names.
 */
export const alertTriggers = pgTable(
  'alert_triggers',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enable: smallint('enable').notNull().default(1),
    source: text('source').$type<AlertSource>().notNull().default('device'),
    deviceId: integer('device_id').references(() => devices.id, { onDelete: 'cascade' }),
    sceneId: integer('scene_id'),
    key: text('key'),
    type: smallint('type').$type<AlertTriggerType>().notNull(),
    a: doublePrecision('a'),
    b: doublePrecision('b'),
    pushContent: text('push_content').notNull().default(''),
    recoveryContent: text('recovery_content').notNull().default(''),
    silenceS: integer('silence_s').notNull().default(300),
    pushMode: text('push_mode').$type<AlertPushMode>().notNull().default('once'),
    methods: jsonb('methods').$type<AlertMethod[]>().notNull().default([]),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    index('alert_triggers_uid_idx').on(t.uid, t.id),
    index('alert_triggers_device_idx').on(t.deviceId),
    // The evaluator loads every enabled trigger at start.
    index('alert_triggers_enabled_idx')
      .on(t.id)
      .where(sql`${t.enable} = 1`),
  ],
);
export type AlertTriggerRow = typeof alertTriggers.$inferSelect;

export const alertTriggerContacts = pgTable(
  'alert_trigger_contacts',
  {
    triggerId: integer('trigger_id')
      .notNull()
      .references(() => alertTriggers.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id')
      .notNull()
      .references(() => alertContacts.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.triggerId, t.contactId] }),
    index('alert_trigger_contacts_contact_idx').on(t.contactId),
  ],
);

/** Alert configurations (seed /alert/config): route triggers to further contacts and methods with an interval. */
export const alertConfigs = pgTable(
  'alert_configs',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enable: smallint('enable').notNull().default(1),
    methods: jsonb('methods').$type<AlertMethod[]>().notNull().default([]),
    intervalS: integer('interval_s').notNull(),
    pushMode: text('push_mode').$type<AlertPushMode>().notNull().default('once'),
    remark: text('remark').notNull().default(''),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [index('alert_configs_uid_idx').on(t.uid, t.id)],
);
export type AlertConfigRow = typeof alertConfigs.$inferSelect;

export const alertConfigTriggers = pgTable(
  'alert_config_triggers',
  {
    configId: integer('config_id')
      .notNull()
      .references(() => alertConfigs.id, { onDelete: 'cascade' }),
    triggerId: integer('trigger_id')
      .notNull()
      .references(() => alertTriggers.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.configId, t.triggerId] }),
    index('alert_config_triggers_trigger_idx').on(t.triggerId),
  ],
);

export const alertConfigContacts = pgTable(
  'alert_config_contacts',
  {
    configId: integer('config_id')
      .notNull()
      .references(() => alertConfigs.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id')
      .notNull()
      .references(() => alertContacts.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.configId, t.contactId] }),
    index('alert_config_contacts_contact_idx').on(t.contactId),
  ],
);

/**
 * Push bookkeeping of one recipient group ('t': the trigger's own contacts, 'c<id>': an alert configuration):
 * `at` the last push (silence counts from it, across alerts), `alert` the history row it belongs to, `n` the pushes
 * of that alert so far (0: its raise was silenced).
 */
export interface PushMark {
  at: string | null;
  alert: number | null;
  n: number;
}

/**
 * Evaluation state per (trigger, device), so a restart neither raises an active alert again nor forgets to
 * recover it. Changed only inside a transaction that locks the row (two instances may evaluate one device).
 */
export const alertStates = pgTable(
  'alert_states',
  {
    triggerId: integer('trigger_id')
      .notNull()
      .references(() => alertTriggers.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    status: text('status').$type<AlertState>().notNull().default('normal'),
    since: tstz('since').notNull().defaultNow(),
    /** The active alert (history row) while `active`. */
    historyId: bigint('history_id', { mode: 'number' }),
    lastValue: jsonb('last_value').$type<BoxedValue | null>(),
    /** Last push to the trigger's own recipients. */
    lastSentAt: tstz('last_sent_at'),
    marks: jsonb('marks').$type<Record<string, PushMark>>().notNull().default({}),
    updatedat: updatedat(),
  },
  (t) => [primaryKey({ columns: [t.triggerId, t.deviceId] })],
);
export type AlertStateRow = typeof alertStates.$inferSelect;

/** Alert history: one row per alert, raised once and recovered once, acknowledged by a person. */
export const alertHistory = pgTable(
  'alert_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The trigger's owner when it was raised. */
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    triggerId: integer('trigger_id').references(() => alertTriggers.id, { onDelete: 'set null' }),
    triggerName: text('trigger_name').notNull(),
    // No foreign key: the history outlives a deleted device.
    deviceId: integer('device_id').notNull(),
    sn: text('sn').notNull(),
    deviceName: text('device_name').notNull().default(''),
    productKey: text('product_key').notNull().default(''),
    key: text('key'),
    type: smallint('type').$type<AlertTriggerType>().notNull(),
    a: doublePrecision('a'),
    b: doublePrecision('b'),
    status: text('status').$type<AlertHistoryStatus>().notNull().default('active'),
    raisedAt: tstz('raised_at').notNull(),
    raisedValue: jsonb('raised_value').$type<BoxedValue | null>(),
    recoveredAt: tstz('recovered_at'),
    recoveredValue: jsonb('recovered_value').$type<BoxedValue | null>(),
    /** Messages queued for this alert. */
    pushCount: integer('push_count').notNull().default(0),
    acknowledgedAt: tstz('acknowledged_at'),
    acknowledgedBy: integer('acknowledged_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    index('alert_history_uid_idx').on(t.uid, t.id),
    index('alert_history_trigger_idx').on(t.triggerId, t.id),
    index('alert_history_sn_idx').on(t.sn, t.id),
    index('alert_history_active_idx')
      .on(t.id)
      .where(sql`${t.status} = 'active'`),
  ],
);
export type AlertHistoryRow = typeof alertHistory.$inferSelect;
