import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../lib/deps';
import { deviceSecretContext } from '../modules/devices/devices.service';
import { devices } from '../modules/devices/devices.table';
import { buildTestApp, type TestApp } from '../test/app';
import { createDevices, eventually, type TestDevice } from '../test/gateway-test-kit';
import { DeviceAuthCache } from './device-auth';
import type { DeviceLink } from './device-link';

// DeviceAuthCache against the app's database: an expired entry answers at once and is reloaded behind the connect
// (issue 12 item 4: a reconnect must not wait for a query queued behind the writes of what is being stored).

let t: TestApp;
let owner: { token: string; uid: number };

beforeAll(async () => {
  t = await buildTestApp();
  owner = await t.createUser();
});
afterAll(() => t.close());

let serial = 0;
const device = async (): Promise<TestDevice> => (await createDevices(t, owner.token, [`AC-${++serial}`]))[0]!;

/** A cache whose entries expire at once (ttl 0), with a link that records kicks. */
function cache() {
  const kicks: [string, string][] = [];
  const link: DeviceLink = {
    send: () => Promise.resolve(),
    online: () => false,
    kick: (sn, reason) => kicks.push([sn, reason]),
    invalidate: () => undefined,
  };
  const deps: Deps = { ...t.app.deps, link };
  return { auth: new DeviceAuthCache(deps, 100, 0), kicks };
}

/** Holds an exclusive lock on the devices table (no device can be read) until `release`. */
async function lockDevices() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const tx = t.app.deps.db.transaction(async (tx) => {
    await tx.execute(sql`lock table devices in access exclusive mode`);
    locked();
    await released;
  });
  await isLocked;
  return async () => {
    release();
    await tx;
  };
}

describe('device auth data past its ttl', () => {
  it('answers a connect at once while the database is busy, and is reloaded behind it', async () => {
    const d = await device();
    const { auth, kicks } = cache();
    expect(await auth.authenticate(d.sn, d.sn, Buffer.from(d.secret))).toMatchObject({ ok: true });
    expect(auth.stats.queries).toBe(1);
    const unlock = await lockDevices();
    try {
      // With the devices table locked, a query would wait for the unlock: the answer comes from the entry.
      expect(await auth.authenticate(d.sn, d.sn, Buffer.from(d.secret))).toMatchObject({ ok: true });
      expect(auth.stats.revalidations).toBe(1);
    } finally {
      await unlock();
    }
    await eventually(async () => (auth.stats.queries === 2 ? true : undefined));
    expect(kicks).toEqual([]);
  });

  it('closes the connection it let in when the reload finds the device disabled, deleted or re-keyed elsewhere', async () => {
    const cases: [string, (d: TestDevice) => Promise<unknown>][] = [
      ['disabled', (d) => t.app.deps.db.update(devices).set({ disabled: true }).where(eq(devices.sn, d.sn))],
      ['deleted', (d) => t.app.deps.db.delete(devices).where(eq(devices.sn, d.sn))],
      [
        'secret changed',
        (d) =>
          t.app.deps.db
            .update(devices)
            .set({
              secret: t.app.deps.box.encrypt('a-new-secret-0123456789abcdef', deviceSecretContext(d.sn)),
            })
            .where(eq(devices.sn, d.sn)),
      ],
    ];
    for (const [reason, change] of cases) {
      const d = await device();
      const { auth, kicks } = cache();
      expect(await auth.authenticate(d.sn, d.sn, Buffer.from(d.secret))).toMatchObject({ ok: true });
      // Changed by another instance: this one's cache is not told.
      await change(d);
      // The stale entry still answers (the connect is let in), and its reload closes the connection.
      expect(await auth.authenticate(d.sn, d.sn, Buffer.from(d.secret))).toMatchObject({ ok: true });
      await eventually(async () => (kicks.length > 0 ? true : undefined));
      expect(kicks).toEqual([[d.sn, reason]]);
      // The next connect is refused from the reloaded entry.
      expect(await auth.authenticate(d.sn, d.sn, Buffer.from(d.secret))).toMatchObject({ ok: false });
    }
  });
});
