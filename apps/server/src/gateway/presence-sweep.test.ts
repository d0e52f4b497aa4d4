import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../test/app';
import { createDevices, eventually } from '../test/gateway-test-kit';
import { REBUILT_REASON } from './presence-keeper';
import { PresenceWriter } from './presence-writer';

/**
 * When the sweep sets offline the devices of an instance that died: 1.5 x keep-alive after the instance was last
 * known alive, which a restart at its address bounds (docs/reliability.md, presence after a quick restart). The
 * killed instance is a row of `server_instances` and the connections its writer recorded.
 */

let t: TestApp;
let owner: { token: string; uid: number };

beforeAll(async () => {
  t = await buildTestApp();
  owner = await t.createUser();
});
afterAll(() => t.close());

const online = async (sn: string) =>
  (
    (await t.inject({ method: 'GET', url: `/api/devices/${sn}`, token: owner.token })).json() as {
      data: { online: number };
    }
  ).data.online;

/**
 * A device held by instance `id`, whose last heartbeat was `beatAgoMs` before now and which a restart at its
 * address marked stopped now, the way a new start does it (presence-keeper.ts, `start`).
 */
async function heldByDeadInstance(id: string, sn: string, keepalive: number, beatAgoMs: number) {
  const d = (await createDevices(t, owner.token, [sn]))[0]!;
  const ref = (await t.app.gateway.auth.get(d.sn))!;
  const now = t.app.deps.now();
  const beat = new Date(now.getTime() - beatAgoMs).toISOString();
  await t.app.deps.db.execute(sql`
    insert into server_instances (id, address, startedat, heartbeatat)
    values (${id}, ${`127.0.0.1:${id}`}, ${beat}::timestamptz, ${beat}::timestamptz)`);
  const writer = new PresenceWriter(t.app.deps);
  writer.holder = id;
  await writer.online(ref, { ip: '', protocol: 'mqtt/4', keepalive });
  await t.app.deps.db.execute(sql`
    update server_instances set stoppedat = ${now.toISOString()}::timestamptz where id = ${id}`);
  expect(await online(sn)).toBe(1);
  return now;
}

describe('the sweep after a quick restart', () => {
  it('sets a device offline 1.5 x its keep-alive after the restart, not a heartbeat later', async () => {
    const keeper = t.app.gateway.keeper;
    // The instance beat 1 s before it died and was restarted at once: the device's connection ended by then.
    await heldByDeadInstance('dead-quick', 'SWEEP-QUICK', 60, 1000);
    t.clock.advance(59_000);
    await keeper.runNow();
    expect(await online('SWEEP-QUICK')).toBe(1);
    // Just past 1.5 x 60 s from the restart (before: from the last heartbeat plus a heartbeat of grace, 99 s).
    t.clock.advance(31_001);
    await keeper.runNow();
    expect(await online('SWEEP-QUICK')).toBe(0);
    const logs = (
      (
        await t.inject({
          method: 'GET',
          url: '/api/devices/SWEEP-QUICK/logs?event=disconnect',
          token: owner.token,
        })
      ).json() as { data: { detail: { reason?: string; instance?: string } }[] }
    ).data.map((l) => l.detail);
    expect(logs).toEqual([{ reason: REBUILT_REASON, instance: 'dead-quick' }]);
  });

  it('counts from the last heartbeat plus its grace when that is earlier than the stop', async () => {
    const keeper = t.app.gateway.keeper;
    const grace = keeper.options.heartbeatMs;
    // Silent for a long while before anyone marked it stopped: its heartbeat bounds it.
    const restart = await heldByDeadInstance('dead-long', 'SWEEP-LONG', 60, 10 * 60_000);
    expect(await keeper.nextDue()).toEqual(new Date(restart.getTime() - 10 * 60_000 + grace + 90_000));
    await keeper.runNow();
    expect(await online('SWEEP-LONG')).toBe(0);
  });

  it('wakes at the due time instead of waiting for the next heartbeat', async () => {
    const keeper = t.app.gateway.keeper;
    // Heartbeats come every 10 s; the device falls due 1.5 x 2 s after the restart.
    expect(keeper.options.heartbeatMs).toBeGreaterThanOrEqual(10_000);
    await heldByDeadInstance('dead-wake', 'SWEEP-WAKE', 2, 500);
    await keeper.runNow();
    expect(await online('SWEEP-WAKE')).toBe(1);
    // Before: the next heartbeat's sweep, and only one 10 s after the last heartbeat plus 3 s.
    await eventually(async () => ((await online('SWEEP-WAKE')) === 0 ? true : undefined), 8000);
  });
});

describe('instances alive beside this one', () => {
  it('counts another instance with a fresh heartbeat, not a stopped or a silent one', async () => {
    const keeper = t.app.gateway.keeper;
    const before = await keeper.othersAlive();
    const now = t.app.deps.now().getTime();
    const at = (ms: number) => new Date(now - ms).toISOString();
    await t.app.deps.db.execute(sql`
      insert into server_instances (id, address, startedat, heartbeatat, stoppedat) values
        ('alive-peer', '', ${at(60_000)}::timestamptz, ${at(1_000)}::timestamptz, null),
        ('stopped-peer', '', ${at(60_000)}::timestamptz, ${at(1_000)}::timestamptz, ${at(500)}::timestamptz),
        ('silent-peer', '', ${at(600_000)}::timestamptz, ${at(300_000)}::timestamptz, null)`);
    expect(await keeper.othersAlive()).toBe(before + 1);
    await t.app.deps.db.execute(
      sql`delete from server_instances where id in ('alive-peer', 'stopped-peer', 'silent-peer')`,
    );
  });
});
