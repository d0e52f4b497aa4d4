import { index, integer, jsonb, pgTable, primaryKey, serial, text } from 'drizzle-orm/pg-core';
import type { PlatformType } from '@cellhub/contract/platforms';
import { createdat, updatedat } from '../../db/columns';
import { devices } from '../devices/devices.table';

/**
 * Third-party cloud bindings (seed section 3 "Platform"). `config` holds the non-secret fields of platform_config;
 * the secret ones are in `secrets`, a JSON object sealed with deps.box (context `platform:<id>`).
 */
export const platforms = pgTable('platforms', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  platformType: text('platform_type').$type<PlatformType>().notNull(),
  config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
  secrets: text('secrets').notNull().default(''),
  createdat: createdat(),
  updatedat: updatedat(),
});
export type PlatformRow = typeof platforms.$inferSelect;

/**
 * A device's identity in a cloud (aliyun DeviceSecret, tencent PSK, azure device key …), sealed with deps.box
 * (context `platform-credential:<device_id>:<platform_id>`). Gone with the device or the platform.
 */
export const platformDeviceCredentials = pgTable(
  'platform_device_credentials',
  {
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    platformId: integer('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    deviceName: text('device_name').notNull().default(''),
    secret: text('secret').notNull(),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    primaryKey({ columns: [t.deviceId, t.platformId] }),
    index('platform_device_credentials_platform_idx').on(t.platformId),
  ],
);
export type PlatformDeviceCredentialRow = typeof platformDeviceCredentials.$inferSelect;
