import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = Number(process.env.E2E_PORT ?? 18090);
const dataDir = process.env.E2E_DATA_DIR ?? join(tmpdir(), 'cellhub-e2e');
const smtpPort = Number(process.env.E2E_SMTP_PORT ?? 18025);

/** The one server the browser tests share; every test makes its own users so tests stay independent. */
export const E2E = {
  port,
  mqttPort: Number(process.env.E2E_MQTT_PORT ?? 18883),
  /**
   * The SMTP servers the email specs start on 127.0.0.1. The server reaches exactly these through OUTBOUND_ALLOW, as
   * an install reaches its own mail relay: the SMTP host is fenced like every typed target (docs/outbound.md).
   */
  smtpPorts: { settings: smtpPort, alerts: smtpPort + 1 },
  /**
   * The HTTP receivers forwarding.spec.ts starts on 127.0.0.1, one per test worker running it at once, reached through
   * OUTBOUND_ALLOW like the SMTP servers (a customer's on-premise receiver is allowed the same way).
   */
  receiverPorts: [0, 1, 2].map((i) => Number(process.env.E2E_RECEIVER_PORT ?? smtpPort + 2) + i),
  /**
   * Remote tunnels (docs/tunnels.md): the endpoint devices connect back to (0: any free port) and the ports tunnels
   * are exposed at, kept beside E2E_PORT so runs in parallel do not take each other's ports.
   */
  tunnelPort: Number(process.env.E2E_TUNNEL_PORT ?? 0),
  tunnelPorts: process.env.E2E_TUNNEL_PORTS ?? `${port + 10}-${port + 19}`,
  baseURL: `http://127.0.0.1:${port}`,
  dataDir,
  smsLog: join(dataDir, 'sms-codes.log'),
  adminPassword: 'E2eAdmin1234',
  /** How the server is started; several people working in one tree can run it from sources instead of dist/. */
  serverCommand: process.env.E2E_SERVER_CMD ?? 'node apps/server/dist/main.js',
  /** The built console the server serves (CONSOLE_DIST); unset: apps/console/dist. */
  consoleDist: process.env.E2E_CONSOLE_DIST,
};
