import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { SecretBox } from '../../lib/crypto';
import { systemSettings } from './system-settings.table';

/** The settings row that proves which master key sealed this database's secrets. */
export const KEY_CHECK = 'secret_key.check';
const PROOF = 'cellhub-secret-key';

/**
 * Refuses to start on a database whose secrets were sealed under another master key (SECRET_KEY, or DATA_DIR's
 * secret.key): an instance started with the wrong key could open no device secret and would drop every device's
 * messages as from an unknown device (docs/scale-out.md: every instance shares one key). The first start writes a
 * sealed proof; every later start opens it.
 */
export async function checkSecretKey(db: DbOrTx, box: SecretBox): Promise<void> {
  const [row] = await db.select().from(systemSettings).where(eq(systemSettings.key, KEY_CHECK));
  if (!row) {
    await db
      .insert(systemSettings)
      .values({ key: KEY_CHECK, value: box.encrypt(PROOF, KEY_CHECK), secret: true })
      .onConflictDoNothing();
    return;
  }
  let opened: string | undefined;
  try {
    opened = box.decrypt(row.value, KEY_CHECK);
  } catch {
    opened = undefined;
  }
  if (opened !== PROOF)
    throw new Error(
      'SECRET_KEY is not the key this database was sealed with: start every instance with the same SECRET_KEY ' +
        '(or the secret.key of the DATA_DIR that created the database); see docs/scale-out.md',
    );
}
