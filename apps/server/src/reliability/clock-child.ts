// Reliability suite support (not shipped): a server in a process of its own, started from source like `npm start`
// (configured by the environment: DATA_DIR, DATABASE_URL, PORT, MQTT_PORT, ...), whose clock (`deps.now()`, the
// clock of every lease, backoff and job-layer time) runs CLOCK_OFFSET_MS ahead of the wall clock. A line
// `advance <ms>` on stdin moves it further, so a test drives leases and backoff the way the in-process tests move
// `t.clock` instead of sleeping through them; `memory` answers a line `{"memory": process.memoryUsage()}`. Prints one JSON line `{"port", "mqttPort", "pid"}` once it listens.
import { createInterface } from 'node:readline';

// Bundled into one file (server-child.ts), main.ts's own "am I the entry point" check would see this file as the
// entry and start a second server: it is given another name before main.ts is evaluated.
process.argv[1] = 'cellhub-clock-child';
const { startServer } = await import('../main');

let offset = Number(process.env.CLOCK_OFFSET_MS ?? 0);
createInterface({ input: process.stdin })
  .on('line', (line) => {
    const [cmd, arg] = line.trim().split(/\s+/);
    if (cmd === 'advance') offset += Number(arg);
    // The soak test's sample of the process's own view of its memory.
    if (cmd === 'memory') process.stdout.write(`${JSON.stringify({ memory: process.memoryUsage() })}\n`);
  })
  .on('close', () => process.exit(0)); // the test that started it is gone

const app = await startServer({
  logger: false,
  config: { host: '127.0.0.1', rateLimitPerMinute: 0 },
  now: () => new Date(Date.now() + offset),
});
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({
    port: typeof address === 'object' && address ? address.port : 0,
    mqttPort: app.broker.port ?? 0,
    pid: process.pid,
  })}\n`,
);
