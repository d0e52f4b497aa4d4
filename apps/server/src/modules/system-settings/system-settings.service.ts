import { eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { SecretBox } from '../../lib/crypto';
import { systemSettings } from './system-settings.table';

/**
 * Settings rows. Secret values are sealed with the master key and bound to their key name, so a sealed value copied
 * to another row does not decrypt. The admin screen for these comes with the system-settings issue.
 */
export async function getSetting(db: DbOrTx, box: SecretBox, key: string): Promise<string | undefined> {
  const [row] = await db.select().from(systemSettings).where(eq(systemSettings.key, key));
  if (!row) return undefined;
  return row.secret ? box.decrypt(row.value, key) : row.value;
}

export async function setSetting(
  db: DbOrTx,
  box: SecretBox,
  key: string,
  value: string,
  options: { secret?: boolean } = {},
): Promise<void> {
  const secret = options.secret ?? false;
  const stored = secret ? box.encrypt(value, key) : value;
  await db
    .insert(systemSettings)
    .values({ key, value: stored, secret })
    .onConflictDoUpdate({ target: systemSettings.key, set: { value: stored, secret } });
}

export async function deleteSetting(db: DbOrTx, key: string): Promise<void> {
  await db.delete(systemSettings).where(eq(systemSettings.key, key));
}

export const SETTING_KEYS = {
  wechatAppid: 'wechat.appid',
  wechatSecret: 'wechat.secret',
  initialAdmin: 'bootstrap.initial_admin',
} as const;

/** Several settings in one query; secret ones decrypted. Missing keys are absent from the map. */
export async function getSettings(
  db: DbOrTx,
  box: SecretBox,
  keys: readonly string[],
): Promise<Map<string, string>> {
  const rows = await db
    .select()
    .from(systemSettings)
    .where(inArray(systemSettings.key, [...keys]));
  return new Map(rows.map((row) => [row.key, row.secret ? box.decrypt(row.value, row.key) : row.value]));
}
