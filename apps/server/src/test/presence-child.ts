// Test support (not shipped): a server in a process of its own, for tests that kill it (SIGKILL: no shutdown, no
// disconnects written) and start another on the same database. Configured by the environment like `npm start`
// (DATA_DIR, DATABASE_URL, MQTT_URL, SECRET_KEY, CELLHUB_ADMIN_PASSWORD; PORT and MQTT_PORT 0 pick free ports);
// PRESENCE_HEARTBEAT_MS and PRESENCE_INSTANCE_TIMEOUT_MS shorten the presence keeper's defaults. Prints one JSON
// line `{"port", "mqttPort", "instance"}` once it listens.
import { DEFAULT_PRESENCE_OPTIONS } from '../gateway/presence-keeper';
import { startServer } from '../main';

const env = process.env;
if (env.PRESENCE_HEARTBEAT_MS) DEFAULT_PRESENCE_OPTIONS.heartbeatMs = Number(env.PRESENCE_HEARTBEAT_MS);
if (env.PRESENCE_INSTANCE_TIMEOUT_MS) {
  DEFAULT_PRESENCE_OPTIONS.instanceTimeoutMs = Number(env.PRESENCE_INSTANCE_TIMEOUT_MS);
}

const app = await startServer({ logger: false, config: { host: '127.0.0.1', rateLimitPerMinute: 0 } });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({
    port: typeof address === 'object' && address ? address.port : 0,
    mqttPort: app.broker.port ?? 0,
    instance: app.gateway.keeper.instanceId,
  })}\n`,
);
