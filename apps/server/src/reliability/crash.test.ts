import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/client';
import { figure, sized } from './figures';
import {
  Api,
  compare,
  Fleet,
  freePort,
  MOSQUITTO,
  Mosquitto,
  type ServerChild,
  sharedDatabase,
  startServer,
  storedSeqs,
  tempDir,
  waitFor,
} from './outage-kit';

/**
 * A server killed with SIGKILL in the middle of a burst of QoS 1 messages, then started again on the same data:
 * every message a device saw acknowledged is stored, duplicates are counted, and presence is right again within
 * 1.5 x the devices' keep-alive. Devices are raw MQTT connections (outage-kit.ts) that number their messages and,
 * as firmware does, send again what was not acknowledged when the connection broke.
 *
 * Two setups. Embedded: PGlite in DATA_DIR and the embedded broker, both die with the process; a PUBACK means
 * "stored". External: PostgreSQL and a Mosquitto of the test's own (production settings, docs/operations.md) that
 * keeps running; the broker acknowledges devices on receipt and holds what the server did not acknowledge in the
 * server's persistent session.
 */

const DEVICES = sized(100, 1000);
const MESSAGES = sized(20, 100);
/** Messages a device keeps in flight. */
const WINDOW = 4;
/** The devices' keep-alive (s): presence must be right within 1.5 x this after the restart. */
const KEEPALIVE_S = sized(8, 20);
/** One device in ten does not come back after the crash (it died with the server, or lost power). */
const GONE = Math.max(2, Math.round(DEVICES / 10));
const DRAIN_MS = sized(60_000, 300_000);

interface Setup {
  name: 'embedded' | 'external';
  skip: boolean;
}

const setups: Setup[] = [
  { name: 'embedded', skip: false },
  { name: 'external', skip: !existsSync(MOSQUITTO) },
];

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

describe.each(setups)('server killed mid-burst ($name)', ({ name, skip }) => {
  it.skipIf(skip)(
    `${DEVICES} devices x ${MESSAGES} QoS 1 messages: nothing acknowledged lost, presence right in time`,
    async () => {
      const started = Date.now();
      const dir = tempDir(`crash-${name}`);
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      const log = path.join(dir, 'server.log');
      let env: Record<string, string> = { DATA_DIR: dir };
      let devicePort: number;
      let query: (text: string) => Promise<{ sn: string; seq: number }[]>;
      let broker: Mosquitto | undefined;
      if (name === 'embedded') {
        // The same MQTT port after the restart: the devices come back where they were.
        devicePort = await freePort();
        env.MQTT_PORT = String(devicePort);
        query = async (text) => {
          const db = await openDatabase(undefined, dir);
          try {
            const res = (await db.db.execute(sql.raw(text))) as unknown as {
              rows: { sn: string; seq: number }[];
            };
            return res.rows;
          } finally {
            await db.close();
          }
        };
      } else {
        broker = await Mosquitto.start();
        cleanups.push(() => broker!.destroy());
        const db = await sharedDatabase('crash');
        cleanups.push(() => db.drop());
        devicePort = broker.port;
        env = { ...env, DATABASE_URL: db.url, MQTT_URL: broker.url, MQTT_SHARE_GROUP: 'crash' };
        const pool = new pg.Pool({ connectionString: db.url, max: 2 });
        cleanups.push(() => pool.end());
        query = async (text) => (await pool.query(text)).rows as { sn: string; seq: number }[];
      }

      let server: ServerChild | undefined = await startServer(env, log);
      cleanups.push(() => server?.kill() ?? Promise.resolve());
      if (name === 'embedded') expect(server.mqttPort).toBe(devicePort);
      const api = new Api(server.port);
      await api.login();
      const tag = name === 'embedded' ? 'E' : 'X';
      const sns = Array.from(
        { length: DEVICES },
        (_, i) => `CR${tag}${i < GONE ? 'G' : 'B'}${String(i).padStart(5, '0')}`,
      );
      const fleet = new Fleet(await api.fleet(sns), {
        port: devicePort,
        messages: MESSAGES,
        window: WINDOW,
        keepaliveS: KEEPALIVE_S,
        statusMessages: name === 'external',
      });
      cleanups.push(async () => fleet.close());
      await fleet.connect();
      await waitFor(
        'every device online',
        async () => {
          const n = await api.countOnline(`CR${tag}`, 1);
          return n === DEVICES ? true : undefined;
        },
        60_000,
        250,
      );

      // The burst; the server dies once half of it is acknowledged.
      fleet.start();
      if (name === 'embedded') {
        await fleet.ackedAtLeast((DEVICES * MESSAGES) / 2);
      } else {
        // The broker acknowledges on receipt, far ahead of the server: it dies once it stored half.
        await waitFor(
          'half of the burst stored',
          async () => {
            const [r] = await query(`select count(*)::int as seq, '' as sn from device_properties`);
            return r!.seq >= (DEVICES * MESSAGES) / 2 ? true : undefined;
          },
          DRAIN_MS,
          10,
        );
      }
      await server.kill();
      const killedAt = Date.now();
      const ackedAtKill = fleet.acked;
      const inflightAtKill = fleet.devices.reduce((n, d) => n + d.pending, 0);
      const gone = fleet.devices.slice(0, GONE);
      // These do not come back: their connection ended with the server (embedded), or they lost power (external:
      // the broker publishes their will).
      for (const d of gone) d.drop();

      server = await startServer(env, log);
      const restartedAt = server.readyAt;
      api.port = server.port;
      await api.login();

      // Presence: the gone devices offline, and every other device online, within 1.5 x keep-alive.
      const presenceMs = await waitFor(
        'presence right after the restart',
        async () => {
          const goneOnline = await api.countOnline(`CR${tag}G`, 1);
          const backOnline = await api.countOnline(`CR${tag}B`, 1);
          return goneOnline === 0 && backOnline === DEVICES - GONE ? Date.now() - restartedAt : undefined;
        },
        KEEPALIVE_S * 1500 + 60_000,
        200,
      );

      // The devices that came back finish their burst, resending what was not acknowledged.
      await waitFor('every message acknowledged', () => (fleet.done ? true : undefined), DRAIN_MS, 100);
      let drainedMs = Date.now() - restartedAt;
      const acked = fleet.devices.reduce((n, d) => n + d.acked.size, 0);
      let result: ReturnType<typeof compare>;
      if (name === 'embedded') {
        // PGlite is the server's alone while it runs: read it after a clean stop.
        await server.stop();
        server = undefined;
        result = compare(fleet, await storedSeqs(query));
      } else {
        // The broker acknowledged on receipt: wait for the server to have stored what the broker holds for it.
        result = await waitFor(
          'everything the broker acknowledged stored',
          async () => {
            const r = compare(fleet, await storedSeqs(query));
            return r.lost === 0 ? r : undefined;
          },
          DRAIN_MS,
          200,
        ).catch(async () => compare(fleet, await storedSeqs(query)));
        drainedMs = Date.now() - restartedAt;
      }
      const totals = fleet.totals();
      const detail =
        `${name}: ${DEVICES} devices x ${MESSAGES} msgs, window ${WINDOW}, SIGKILL at ${ackedAtKill} acked ` +
        `(${inflightAtKill} in flight), ${GONE} devices not back; ${totals.resent} resent, ` +
        `all acknowledged and stored ${(drainedMs / 1000).toFixed(1)} s after the restart`;
      figure({ name: `crash.${name}.lost`, value: result.lost, unit: 'messages', target: '0', detail });
      figure({
        name: `crash.${name}.duplicates`,
        value: result.duplicates,
        unit: 'rows',
        target: '0 (QoS 1 is at least once: docs/device-protocol.md)',
        detail: `${result.distinct} distinct (device, seq) stored of ${DEVICES * MESSAGES} sent`,
      });
      figure({
        name: `crash.${name}.presence_s`,
        value: Number((presenceMs / 1000).toFixed(1)),
        unit: 's',
        target: `<= ${1.5 * KEEPALIVE_S} (1.5 x keep-alive ${KEEPALIVE_S} s)`,
        detail: `${GONE} devices gone offline and ${DEVICES - GONE} online, counted from the restart`,
      });
      figure({
        name: `crash.${name}.wall_s`,
        value: Number(((Date.now() - started) / 1000).toFixed(1)),
        unit: 's',
        detail: `kill to ready ${((restartedAt - killedAt) / 1000).toFixed(1)} s`,
      });

      expect(result.lostExamples).toEqual([]);
      expect(result.lost).toBe(0);
      expect(acked).toBe(DEVICES * MESSAGES - gone.reduce((n, d) => n + MESSAGES - d.acked.size, 0));
      // Every device that came back got all of its messages acknowledged, and each is stored.
      expect(result.distinct).toBeGreaterThanOrEqual(acked);
      if (name === 'embedded') {
        // A PUBACK means stored: a message can be stored twice only if it was in flight when the server died
        // (stored, its PUBACK not yet out), and then sent again.
        expect(result.duplicates).toBeLessThanOrEqual(inflightAtKill);
      }
      expect(presenceMs).toBeLessThanOrEqual(KEEPALIVE_S * 1500);
    },
    sized(300_000, 1_800_000),
  );
});
