// Test support (not shipped): one server instance of a scaled deployment in a process of its own, started like
// `npm start` (configured by the environment: DATA_DIR, DATABASE_URL, MQTT_URL, MQTT_SHARE_GROUP, PUBLIC_URL, PORT,
// ...). Test-only knobs: PRESENCE_HEARTBEAT_MS and PRESENCE_INSTANCE_TIMEOUT_MS shorten the presence keeper's
// defaults, OTA_REPUBLISH_AFTER_MS the OTA engine's wait before it sends a command again. Prints one JSON line
// `{"port", "mqttPort", "instance", "pid"}` once it listens; a line `stats` on stdin answers a line
// `{"stats": {...}}` with this instance's ingest counters, so a test sees how the broker split the traffic.
import { createInterface } from 'node:readline';

// Bundled into one file (server-process.ts), main.ts's "am I the entry point" check would see this file as the
// entry and start a second server: it is given another name before main.ts is evaluated.
process.argv[1] = 'cellhub-instance-child';
const { DEFAULT_PRESENCE_OPTIONS } = await import('../gateway/presence-keeper');
const { startServer } = await import('../main');

const env = process.env;
if (env.PRESENCE_HEARTBEAT_MS) DEFAULT_PRESENCE_OPTIONS.heartbeatMs = Number(env.PRESENCE_HEARTBEAT_MS);
if (env.PRESENCE_INSTANCE_TIMEOUT_MS) {
  DEFAULT_PRESENCE_OPTIONS.instanceTimeoutMs = Number(env.PRESENCE_INSTANCE_TIMEOUT_MS);
}

const app = await startServer({ logger: false, config: { host: '127.0.0.1', rateLimitPerMinute: 0 } });
if (env.OTA_REPUBLISH_AFTER_MS) app.ota.options.republishAfterMs = Number(env.OTA_REPUBLISH_AFTER_MS);

createInterface({ input: process.stdin })
  .on('line', (line) => {
    if (line.trim() !== 'stats') return;
    const g = app.gateway.stats;
    process.stdout.write(
      `${JSON.stringify({ stats: { propertyMessages: g.propertyMessages, accepted: g.accepted, rejected: g.rejected } })}\n`,
    );
  })
  .on('close', () => process.exit(0)); // the test that started it is gone

const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({
    port: typeof address === 'object' && address ? address.port : 0,
    mqttPort: app.broker.port ?? 0,
    instance: app.gateway.keeper.instanceId,
    pid: process.pid,
  })}\n`,
);
