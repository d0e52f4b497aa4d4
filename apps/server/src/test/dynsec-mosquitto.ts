import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const MOSQUITTO = '/usr/sbin/mosquitto';
export const DYNSEC_PLUGIN = '/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so';
export const haveDynsecMosquitto = (): boolean => existsSync(MOSQUITTO) && existsSync(DYNSEC_PLUGIN);

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

/**
 * A Mosquitto of the test's own with the dynamic-security plugin and no anonymous access, on a free loopback port:
 * the plugin's file is made by `mosquitto_ctrl dynsec init` with an admin client (`admin` / `adminPassword`), as
 * docs/external-brokers.md sets one up.
 */
export class DynsecMosquitto {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  readonly adminPassword = 'dynsec-admin-pw-0123';

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  url(username: string, password: string): string {
    return `mqtt://${encodeURIComponent(username)}:${encodeURIComponent(password)}@127.0.0.1:${this.port}`;
  }

  get plainUrl(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<DynsecMosquitto> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'cellhub-dynsec-'));
    const m = new DynsecMosquitto(port, dir);
    const file = path.join(dir, 'dynamic-security.json');
    await run('mosquitto_ctrl', ['dynsec', 'init', file, 'admin', m.adminPassword]);
    // Mosquitto started as root drops to the mosquitto user: the plugin rewrites its file after every change.
    if (process.getuid?.() === 0) {
      const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
        run('id', ['-u', 'mosquitto']),
        run('id', ['-g', 'mosquitto']),
      ]);
      for (const f of [dir, ...readdirSync(dir).map((n) => path.join(dir, n))])
        chownSync(f, Number(uid.trim()), Number(gid.trim()));
    }
    writeFileSync(
      path.join(dir, 'mosquitto.conf'),
      [
        'per_listener_settings false',
        'allow_anonymous false',
        `listener ${port} 127.0.0.1`,
        `plugin ${DYNSEC_PLUGIN}`,
        `plugin_opt_config_file ${file}`,
        'persistence false',
        'log_dest none',
        '',
      ].join('\n'),
    );
    const child = spawn(MOSQUITTO, ['-c', path.join(dir, 'mosquitto.conf')], { stdio: 'ignore' });
    m.child = child;
    m.exited = new Promise((r) => child.once('exit', () => r()));
    const end = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (child.exitCode !== null || Date.now() > end) {
        await m.destroy();
        throw new Error('mosquitto with dynamic security did not start');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return m;
  }

  async destroy(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await this.exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
