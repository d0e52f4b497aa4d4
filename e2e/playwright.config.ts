import { defineConfig } from '@playwright/test';
import { E2E } from './env';

// Browser tests drive Debian's Chromium against the real server (built console, embedded PGlite and broker)
// started fresh for the run in a temporary DATA_DIR.
export default defineConfig({
  testDir: './tests',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  // `npm test` reads the JSON report from PLAYWRIGHT_JSON_OUTPUT_NAME; a manual run only lists.
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  outputDir: '../test-results/e2e',
  use: {
    baseURL: E2E.baseURL,
    viewport: { width: 1440, height: 900 },
    locale: 'zh-CN',
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `rm -rf ${E2E.dataDir} && ${E2E.serverCommand}`,
    cwd: '..',
    url: `${E2E.baseURL}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(E2E.port),
      HOST: '127.0.0.1',
      MQTT_PORT: String(E2E.mqttPort),
      DATA_DIR: E2E.dataDir,
      CELLHUB_ADMIN_PASSWORD: E2E.adminPassword,
      SMS_PROVIDER: 'log',
      SMS_CODE_LOG_FILE: E2E.smsLog,
      PUBLIC_URL: E2E.baseURL,
      OUTBOUND_ALLOW: [E2E.smtpPorts.settings, E2E.smtpPorts.alerts, ...E2E.receiverPorts]
        .map((p) => `127.0.0.1:${p}`)
        .join(','),
      TUNNEL_PORT: String(E2E.tunnelPort),
      TUNNEL_PORTS: E2E.tunnelPorts,
      ...(E2E.consoleDist ? { CONSOLE_DIST: E2E.consoleDist } : {}),
    },
  },
});
