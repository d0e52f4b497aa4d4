// Test support (not shipped): Cellhub servers in processes of their own, started from the current sources, for
// tests that kill one (SIGKILL), stop it (SIGTERM) and start it again, or run several instances of one deployment.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));
const INSTANCE_ENTRY = fileURLToPath(new URL('./instance-child.ts', import.meta.url));

const bundles = new Map<string, Promise<string>>();

/**
 * `entry` bundled from the current sources into one file (as `npm run build` bundles main.ts: our code and the
 * contract's in, dependencies from node_modules), once per test process. Starting it costs a fraction of
 * transpiling a few hundred files with tsx at every start on a busy machine. The entry must rename
 * `process.argv[1]` before it imports main.ts (see instance-child.ts).
 */
export function bundleEntry(entry: string): Promise<string> {
  const name = path.basename(entry, '.ts');
  // Under apps/server (lib/paths.ts finds the package, and so the migrations, from the running file) but outside
  // dist/, which `npm run build` empties.
  const outfile = path.join(
    SERVER_DIR,
    'node_modules',
    '.cache',
    'cellhub-children',
    `${name}-${process.pid}.mjs`,
  );
  let bundled = bundles.get(outfile);
  if (bundled && !existsSync(outfile)) bundled = undefined;
  if (!bundled) {
    bundled = (async () => {
      const { build } = await import('esbuild');
      await build({
        entryPoints: [entry],
        outfile,
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        logLevel: 'error',
        plugins: [
          {
            name: 'dependencies-outside',
            setup(b) {
              b.onResolve({ filter: /^[^./]/ }, (args) =>
                args.path.startsWith('@cellhub/') ? undefined : { path: args.path, external: true },
              );
            },
          },
        ],
      });
      return outfile;
    })();
    bundles.set(outfile, bundled);
  }
  return bundled;
}

/** Removes this process's bundles. */
export function removeBundles(): void {
  for (const b of bundles.values())
    void b.then((file) => rmSync(file, { force: true })).catch(() => undefined);
  bundles.clear();
}

export interface InstanceProcess {
  port: number;
  mqttPort: number;
  /** The presence keeper's instance id. */
  instance: string;
  pid: number;
  /** SIGKILL: no shutdown, nothing flushed, no disconnect written. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful stop (`systemctl stop`); SIGKILL after 15 s. */
  stop(): Promise<void>;
  exited: Promise<void>;
  /** This instance's ingest counters (the gateway's), asked over stdin. */
  stats(): Promise<{ propertyMessages: number; accepted: number; rejected: number }>;
}

/**
 * Starts one instance (src/test/instance-child.ts, bundled) configured by `env` like `npm start`; PORT and
 * MQTT_PORT default to 0 (free ports). Its stderr goes to `logFile` when given, else to the test's.
 */
export async function startInstance(env: Record<string, string>, logFile?: string): Promise<InstanceProcess> {
  const entry = await bundleEntry(INSTANCE_ENTRY);
  const child: ChildProcess = spawn(process.execPath, [entry], {
    cwd: SERVER_DIR,
    env: { ...process.env, PORT: '0', MQTT_PORT: '0', LOG_LEVEL: 'error', ...env },
    stdio: ['pipe', 'pipe', logFile ? 'pipe' : 'inherit'],
  });
  if (logFile) child.stderr!.pipe(createWriteStream(logFile, { flags: 'a' }));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiters: ((s: Awaited<ReturnType<InstanceProcess['stats']>>) => void)[] = [];
  const info = await new Promise<{ port: number; mqttPort: number; instance: string; pid: number }>(
    (resolve, reject) => {
      let rest = '';
      let first = true;
      child.stdout!.on('data', (b: Buffer) => {
        rest += b.toString();
        for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
          const text = rest.slice(0, nl);
          rest = rest.slice(nl + 1);
          if (first) {
            first = false;
            resolve(JSON.parse(text) as { port: number; mqttPort: number; instance: string; pid: number });
          } else if (text.startsWith('{"stats"')) {
            waiters.shift()?.(
              (JSON.parse(text) as { stats: Awaited<ReturnType<InstanceProcess['stats']>> }).stats,
            );
          }
        }
      });
      void exited.then(() =>
        reject(new Error(`the server exited before it listened${logFile ? `; see ${logFile}` : ''}`)),
      );
    },
  );
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = signal === 'SIGTERM' ? setTimeout(() => child.kill('SIGKILL'), 15_000) : undefined;
    await exited;
    clearTimeout(timer);
  };
  return {
    ...info,
    exited,
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
    stats: () =>
      new Promise((resolve) => {
        waiters.push(resolve);
        child.stdin!.write('stats\n');
      }),
  };
}
