import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  real,
  serial,
  smallint,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type {
  OtaDevicePhase,
  OtaPauseReason,
  OtaPolicy,
  OtaResultCode,
  OtaResultParams,
  OtaTargetsSummary,
  OtaTaskStatus,
} from '@cellhub/contract/ota';
import { createdat, tstz, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';
import { users } from '../users/users.table';

/**
 * OTA tasks (seed section 3 "OTA task"). The firmware version's name, version, size and checksum are copied at
 * create time: the task keeps describing what it rolled out even if the firmware is edited later, and the engine
 * needs no join to publish. `version_id` is not a foreign key; firmware's `assertVersionDeletable` refuses to
 * delete a version an unfinished task uses (71005).
 */
export const otaTasks = pgTable(
  'ota_tasks',
  {
    id: serial('id').primaryKey(),
    uid: integer('uid')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    productKey: text('product_key').notNull(),
    firmwareId: integer('firmware_id').notNull(),
    firmwareName: text('firmware_name').notNull(),
    versionId: integer('version_id').notNull(),
    version: text('version').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    checksum: text('checksum').notNull(),
    algorithm: text('algorithm', { enum: ['md5', 'sha256'] }).notNull(),
    status: text('status').$type<OtaTaskStatus>().notNull().default('inactive'),
    pauseReason: text('pause_reason').$type<OtaPauseReason>(),
    targets: jsonb('targets').$type<OtaTargetsSummary>().notNull(),
    policy: jsonb('policy').$type<OtaPolicy>().notNull(),
    planTime: tstz('plan_time'),
    startTime: tstz('start_time'),
    endTime: tstz('end_time'),
    windowEnd: tstz('window_end'),
    /** Rows per wave, fixed at create time (the last wave may be smaller). */
    waveSize: integer('wave_size').notNull(),
    waveCount: integer('wave_count').notNull(),
    /** Waves released so far; 0 before the first start. */
    currentWave: integer('current_wave').notNull().default(0),
    nextWaveAt: tstz('next_wave_at'),
    /**
     * Failed and ended (succeeded + failed) counts when the task was last started or resumed: the failure
     * threshold looks at what happened since, so a resumed task is not paused again at once by old failures.
     */
    failBase: integer('fail_base').notNull().default(0),
    endedBase: integer('ended_base').notNull().default(0),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    index('ota_tasks_uid_idx').on(t.uid, t.id),
    index('ota_tasks_status_idx').on(t.status),
    index('ota_tasks_version_idx').on(t.versionId),
  ],
);
export type OtaTaskRow = typeof otaTasks.$inferSelect;

/**
 * The upgrade log: one row per target device and task (seed section 3 "Upgrade log"). `status` is what the device
 * reported (seed 0-6); `phase` is where the engine is with it (contract OTA_DEVICE_PHASES). A dispatch is committed
 * (phase `dispatched`, attempts + 1, `upgrade_id`) before `P/down/ota` is published and `sent_at` is set after the
 * broker took it, so a restart neither sends a step twice nor loses one (docs/ota.md).
 */
export const otaDevices = pgTable(
  'ota_devices',
  {
    id: serial('id').primaryKey(),
    taskId: integer('task_id')
      .notNull()
      .references(() => otaTasks.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    /** Copied from the device: the topic and the log need them without a join. */
    sn: text('sn').notNull(),
    productKey: text('product_key').notNull(),
    /** Order within the task (waves are ranges of it). */
    seq: integer('seq').notNull(),
    wave: integer('wave').notNull(),
    status: smallint('status').notNull().default(0),
    phase: text('phase').$type<OtaDevicePhase>().notNull().default('pending'),
    result: text('result').notNull().default(''),
    /** `result` as a key and values the console words (contract OTA_RESULT_CODES). */
    resultCode: text('result_code').$type<OtaResultCode>().notNull().default(''),
    resultParams: jsonb('result_params').$type<OtaResultParams>().notNull().default({}),
    progress: real('progress'),
    attempts: integer('attempts').notNull().default(0),
    /** `<task>-<row>-<attempt>`: the id of `P/down/ota`; the same on a re-publish of the same attempt. */
    upgradeId: text('upgrade_id'),
    /** The device's fw_version when the attempt was sent (success by `P/up/info` needs a change to the target). */
    fromVersion: text('from_version'),
    timedOut: boolean('timed_out').notNull().default(false),
    nextAttemptAt: tstz('next_attempt_at'),
    dispatchedAt: tstz('dispatched_at'),
    /** When the broker took the message of the current attempt; null while a publish may still be owed. */
    sentAt: tstz('sent_at'),
    /** dispatched_at + timeout: the attempt fails (timeout) when nothing ended it by then. */
    deadlineAt: tstz('deadline_at'),
    reportedAt: tstz('reported_at'),
    finishedAt: tstz('finished_at'),
    downloads: integer('downloads').notNull().default(0),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    uniqueIndex('ota_devices_task_device_uq').on(t.taskId, t.deviceId),
    index('ota_devices_task_seq_idx').on(t.taskId, t.seq),
    index('ota_devices_task_phase_idx').on(t.taskId, t.phase, t.seq),
    uniqueIndex('ota_devices_upgrade_id_uq').on(t.upgradeId),
    index('ota_devices_device_idx').on(t.deviceId),
    index('ota_devices_deadline_idx')
      .on(t.deadlineAt)
      .where(sql`${t.phase} = 'dispatched'`),
  ],
);
export type OtaDeviceRow = typeof otaDevices.$inferSelect;
