import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = Number(process.env.E2E_PORT ?? 18090);
const dataDir = process.env.E2E_DATA_DIR ?? join(tmpdir(), 'cellhub-e2e');

/** The one server the browser tests share; every test makes its own users so tests stay independent. */
export const E2E = {
  port,
  mqttPort: Number(process.env.E2E_MQTT_PORT ?? 18883),
  baseURL: `http://127.0.0.1:${port}`,
  dataDir,
  smsLog: join(dataDir, 'sms-codes.log'),
  adminPassword: 'E2eAdmin1234',
};
