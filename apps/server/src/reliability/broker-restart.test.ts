import path from 'node:path';
import { existsSync, rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { figure, sized } from './figures';
import {
  Api,
  compare,
  Fleet,
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
 * The external broker restarted in the middle of a stream of QoS 1 messages. The Mosquitto runs with the
 * settings docs/operations.md gives for production (persistence on, large queues, the server's session kept),
 * and is restarted as `systemctl restart` does (SIGTERM, which writes its persistence, then a new process on the
 * same port). Devices lose their connection, come back and resend what the broker had not acknowledged; the
 * server's client reconnects to its persistent session and subscribes again. Asserted: a message published once the
 * server is back is stored (it subscribed again). Measured: messages the broker acknowledged and nobody stored
 * (`broker.lost`), duplicates, and whether a command sent through the API right after reaches its device.
 */

const DEVICES = sized(50, 500);
const MESSAGES = sized(40, 100);
const INTERVAL_MS = sized(100, 200);

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/**
 * `plain`: one instance with an ordinary subscription (MQTT_SUBSCRIPTION=plain), which Mosquitto restores with the
 * session: asserted nothing lost and a command delivered. `shared`: the share group several instances use, which
 * Mosquitto 2.0 does not restore: measured (docs/operations.md says so and when to use which).
 */
const modes = [{ mode: 'plain' as const }, { mode: 'shared' as const }];

describe.skipIf(!existsSync(MOSQUITTO)).each(modes)(
  'Mosquitto restarted under the server ($mode)',
  ({ mode }) => {
    it(
      `${DEVICES} devices x ${MESSAGES} QoS 1 messages: resubscribed, commands delivered, nothing lost`,
      async () => {
        const dir = tempDir('broker-restart');
        cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
        const broker = await Mosquitto.start({ persistence: true });
        cleanups.push(() => broker.destroy());
        const db = await sharedDatabase(`broker_${mode}`);
        cleanups.push(() => db.drop());
        const pool = new pg.Pool({ connectionString: db.url, max: 2 });
        cleanups.push(() => pool.end());
        const query = async (text: string) => (await pool.query(text)).rows as { sn: string; seq: number }[];

        let server: ServerChild | undefined = await startServer(
          {
            DATA_DIR: dir,
            DATABASE_URL: db.url,
            MQTT_URL: broker.url,
            MQTT_SHARE_GROUP: 'restart',
            MQTT_SUBSCRIPTION: mode,
            LOG_LEVEL: 'info',
          },
          path.join(dir, 'server.log'),
        );
        cleanups.push(() => server?.kill() ?? Promise.resolve());
        const api = new Api(server.port);
        await api.login();
        const sns = Array.from({ length: DEVICES }, (_, i) => `BRK${String(i).padStart(5, '0')}`);
        const [probeDevice, ...devices] = await api.fleet(['BRKPROBE', ...sns]);
        if (!probeDevice) throw new Error('no probe device');
        const fleet = new Fleet(devices, {
          port: broker.port,
          messages: MESSAGES,
          window: 4,
          keepaliveS: 30,
          intervalMs: INTERVAL_MS,
          statusMessages: true,
          subscribeDown: true,
          retryMs: 500,
        });
        cleanups.push(async () => fleet.close());
        await fleet.connect();
        await waitFor(
          'every device online',
          async () => ((await api.countOnline('BRK0', 1)) === DEVICES ? true : undefined),
          60_000,
          250,
        );
        fleet.start();
        await fleet.ackedAtLeast((DEVICES * MESSAGES) / 3);

        // The restart: the devices' connections and the server's drop; Mosquitto writes its state and comes back.
        const beforeRestart = fleet.totals();
        await broker.restart();
        const upAt = Date.now();

        // The server's client reconnects (every 2 s) to its persistent session.
        const reconnectedMs = await waitFor(
          'the server connected to the broker again',
          async () => ((await api.call('GET', '/api/health')).status === 200 ? Date.now() - upAt : undefined),
          60_000,
          100,
        );
        // A message sent after that reaches the server, which stores it: its subscription is back. (Mosquitto 2.0
        // restores the server's session without its shared subscription: without the server subscribing again,
        // nothing would arrive.)
        const probe = new Fleet([probeDevice], {
          port: broker.port,
          messages: 1,
          window: 1,
          keepaliveS: 30,
          retryMs: 100,
        });
        cleanups.push(async () => probe.close());
        await probe.connect(30_000);
        probe.start();
        const resubscribeMs = await waitFor(
          'a message published after the restart stored',
          async () =>
            (await storedSeqs(query)).get(probeDevice.sn)?.includes(0) ? Date.now() - upAt : undefined,
          60_000,
          100,
        );

        // A command through the API after the restart (asserted for `plain` below). With `shared`: Mosquitto publishes
        // the devices' wills when it stops, and their `{"online":1}` sent on reconnecting may reach the broker before
        // the server subscribed again and be dropped, so the server takes them for offline and refuses commands (20401)
        // until they report their status again.
        const target = fleet.devices[1]!;
        let lastAnswer = '';
        const commandMs = await waitFor(
          'a command delivered after the restart',
          async () => {
            if (!target.received.some((m) => m.topic.endsWith('/down/cmd'))) {
              const r = await api.call('POST', `/api/devices/${target.device.sn}/commands`, {
                type: 'string',
                data: 'after-restart',
              });
              lastAnswer = `${r.status}/${r.json.code ?? 'ok'}`;
              return undefined;
            }
            return Date.now() - upAt;
          },
          20_000,
          500,
        ).catch(() => -1);

        await waitFor('every message acknowledged', () => (fleet.done ? true : undefined), 120_000, 100);
        const result = await waitFor(
          'everything the broker acknowledged stored',
          async () => {
            const r = compare(fleet, await storedSeqs(query));
            return r.lost === 0 ? r : undefined;
          },
          60_000,
          250,
        ).catch(async () => compare(fleet, await storedSeqs(query)));
        const storedMs = Date.now() - upAt;
        const totals = fleet.totals();
        await server.stop();
        server = undefined;

        const detail =
          `${DEVICES} devices x ${MESSAGES} msgs, one per ${INTERVAL_MS} ms each; Mosquitto 2 persistence on, ` +
          `restarted (SIGTERM) at ${beforeRestart.published} sent; ${totals.resent - beforeRestart.resent} resent after`;
        figure({
          name: `broker.${mode}.resubscribe_s`,
          value: Number((resubscribeMs / 1000).toFixed(1)),
          unit: 's',
          target: 'a few s (the server reconnects every 2 s)',
          detail: `from the broker listening again: server reconnected after ${(reconnectedMs / 1000).toFixed(1)} s, a message published then stored; a command: ${commandMs < 0 ? `not delivered within 20 s, last answer ${lastAnswer}` : `delivered after ${(commandMs / 1000).toFixed(1)} s`}`,
        });
        figure({ name: `broker.${mode}.lost`, value: result.lost, unit: 'messages', target: '0', detail });
        figure({
          name: `broker.${mode}.duplicates`,
          value: result.duplicates,
          unit: 'rows',
          target: '0 (QoS 1 is at least once)',
          detail: `${result.distinct} distinct stored of ${DEVICES * MESSAGES}, all ${(storedMs / 1000).toFixed(1)} s after the restart`,
        });

        expect(resubscribeMs).toBeLessThanOrEqual(15_000);
        if (mode === 'plain') {
          // The subscription came back with the session: what devices published before the server reconnected
          // waited for it, their `{"online":1}` included, so commands go out.
          expect(result.lost).toBe(0);
          expect(commandMs).toBeGreaterThan(0);
        }
        // `shared`, not asserted: messages the broker acknowledged between its restart and the server's new SUBSCRIBE
        // have no subscriber to go to (Mosquitto 2.0.11 does not restore shared subscriptions); the figure reports it.
      },
      sized(300_000, 900_000),
    );
  },
);
