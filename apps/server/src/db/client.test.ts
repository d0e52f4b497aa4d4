import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../lib/crypto';
import { getSetting, setSetting } from '../modules/system-settings/system-settings.service';
import { buildTestApp, type TestApp } from '../test/app';

/** Both drivers answer `execute` with `{ rows }`. */
const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe(`migrations (${process.env.TEST_DB === 'postgres' ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('create every table of the schema', async () => {
    const res = await t.app.deps.db.execute(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    const rows = rowsOf<{ table_name: string }>(res);
    expect(rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        'audit_logs',
        'rate_limits',
        'sessions',
        'sms_codes',
        'system_settings',
        'users',
        'wechat_tickets',
      ]),
    );
  });

  it('record what was applied, so a restart applies nothing twice', async () => {
    const res = await t.app.deps.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(rowsOf<{ n: number }>(res)[0]?.n).toBeGreaterThan(0);
  });

  it('create the first admin once', async () => {
    const res = await t.app.deps.db.execute(
      sql`select count(*)::int as n from users where username = 'admin'`,
    );
    expect(rowsOf<{ n: number }>(res)[0]?.n).toBe(1);
  });
});

describe('system settings', () => {
  it('store secret values sealed and read them back', async () => {
    const { db, box } = t.app.deps;
    await setSetting(db, box, 'smtp.password', 'hunter2-smtp', { secret: true });
    await setSetting(db, box, 'smtp.host', 'smtp.example.com');
    const res = await db.execute(
      sql`select key, value from system_settings where key like 'smtp.%' order by key`,
    );
    const rows = rowsOf<{ key: string; value: string }>(res);
    expect(rows.find((r) => r.key === 'smtp.host')?.value).toBe('smtp.example.com');
    const sealed = rows.find((r) => r.key === 'smtp.password')?.value ?? '';
    expect(sealed).not.toContain('hunter2');
    expect(sealed).toMatch(/^v1:/);
    expect(await getSetting(db, box, 'smtp.password')).toBe('hunter2-smtp');
    // Another master key cannot read it.
    await expect(
      getSetting(db, createSecretBox('another-key-'.repeat(4)), 'smtp.password'),
    ).rejects.toThrow();
  });
});
