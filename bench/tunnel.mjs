// `npm run bench:tunnel [-- --mb 64 --pings 2000 --runs 3]`: remote tunnels (issue 19, docs/tunnels.md). A devsim
// device (`--tunnel`, its own process) in front of two "LAN" servers on 127.0.0.1: a source that sends --mb MiB on
// each connection, and an echo. Measured through a tunnel (user -> exposed port -> server -> reverse connection ->
// devsim -> LAN server) and directly (user -> LAN server) in the same run:
//   - throughput: MiB/s of one download, median of --runs (target: tunnel >= 30 % of direct);
//   - latency: round trips of 32 bytes on one open connection, p50/p99 (target: added p50 < 5 ms);
//   - connection set-up: connect to first echoed byte on a new connection (each one asks the device for a fresh
//     reverse connection over MQTT; reported, no target).
// Ports: the tunnels block 19600-19699 (HTTP 19640, MQTT 19641, endpoint 19642, exposed 19643-19649, LAN 19651/2).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Api, ensureServerBuilt, root, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '64' },
    pings: { type: 'string', default: '2000' },
    runs: { type: 'string', default: '3' },
    connects: { type: 'string', default: '50' },
  },
});
const MB = Number(values.mb);
const PINGS = Number(values.pings);
const RUNS = Number(values.runs);
const CONNECTS = Number(values.connects);
const SOURCE_PORT = 19651;
const ECHO_PORT = 19652;

// --- the device's LAN -------------------------------------------------------------------------------------------
const chunk = Buffer.alloc(64 * 1024, 0x5a);
const source = net.createServer((s) => {
  s.setNoDelay(true);
  s.on('error', () => undefined);
  let left = MB * 16; // 64 KiB chunks
  const pump = () => {
    while (left > 0) {
      left -= 1;
      if (!s.write(chunk)) return void s.once('drain', pump);
    }
    s.end();
  };
  pump();
});
const echo = net.createServer((s) => {
  s.setNoDelay(true);
  s.on('error', () => undefined);
  s.pipe(s);
});
await new Promise((r) => source.listen(SOURCE_PORT, '127.0.0.1', r));
await new Promise((r) => echo.listen(ECHO_PORT, '127.0.0.1', r));

// --- measurements -----------------------------------------------------------------------------------------------
function download(port) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let bytes = 0;
    const s = net.connect({ host: '127.0.0.1', port });
    s.on('data', (d) => (bytes += d.length));
    s.on('error', reject);
    s.on('close', () => {
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      if (bytes !== MB * 1048576) reject(new Error(`got ${bytes} bytes of ${MB * 1048576}`));
      else resolve(MB / seconds);
    });
  });
}

function connectTo(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.setNoDelay(true);
    s.once('error', reject);
  });
}

/** One byte out, one byte back, on a new connection: the cost of opening one. */
async function setup(port) {
  const t0 = process.hrtime.bigint();
  const s = await connectTo(port);
  s.write('x');
  await new Promise((r) => s.once('data', r));
  s.destroy();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function pings(port) {
  const s = await connectTo(port);
  const msg = Buffer.alloc(32, 0x41);
  const times = [];
  for (let i = 0; i < PINGS + 100; i++) {
    const t0 = process.hrtime.bigint();
    s.write(msg);
    let got = 0;
    await new Promise((resolve) => {
      const on = (d) => {
        got += d.length;
        if (got >= msg.length) {
          s.off('data', on);
          resolve();
        }
      };
      s.on('data', on);
    });
    if (i >= 100) times.push(Number(process.hrtime.bigint() - t0) / 1e6); // the first 100 warm up
  }
  s.destroy();
  return times.sort((a, b) => a - b);
}

const q = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// --- the platform and the device --------------------------------------------------------------------------------
ensureServerBuilt();
const server = await startServer({
  PORT: '19640',
  MQTT_PORT: '19641',
  TUNNEL_PORT: '19642',
  TUNNEL_PORTS: '19643-19649',
  TUNNEL_ADDRESS: '127.0.0.1',
  TUNNEL_IDLE_S: '600',
});
let devsim;
try {
  const api = new Api(server.base);
  await api.login();
  const [identity] = await api.createFleet({
    productKey: 'benchtunnel',
    productName: 'Tunnel bench',
    count: 1,
    prefix: 'TUNBENCH',
  });
  const ids = join(tmpdir(), `cellhub-tunnel-bench-${process.pid}.json`);
  writeFileSync(ids, JSON.stringify([identity]));
  devsim = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'apps/devsim/src/cli.ts',
      ...['--file', ids, '--url', `mqtt://127.0.0.1:${server.mqttPort}`, '--rate', '0', '--tunnel'],
      ...['--tunnel-host', '127.0.0.1', '--status-every', '3600', '--info-every', '0'],
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const deadline = Date.now() + 30_000;
  while ((await api.call('GET', `/api/devices/${identity.sn}`)).data.online !== 1) {
    if (Date.now() > deadline) throw new Error('devsim did not come online');
    await new Promise((r) => setTimeout(r, 100));
  }
  const open = async (name, port) =>
    (
      await api.call('POST', `/api/devices/${identity.sn}/tunnels`, {
        name,
        local_ip: '127.0.0.1',
        local_port: port,
      })
    ).data;
  const srcTunnel = await open('source', SOURCE_PORT);
  const echoTunnel = await open('echo', ECHO_PORT);
  const portOf = (t) => Number(t.address.split(':')[1]);

  const direct = { mbps: [], pings: [] };
  const tunnel = { mbps: [], pings: [] };
  for (let i = 0; i < RUNS; i++) {
    direct.mbps.push(await download(SOURCE_PORT));
    tunnel.mbps.push(await download(portOf(srcTunnel)));
  }
  direct.pings = await pings(ECHO_PORT);
  tunnel.pings = await pings(portOf(echoTunnel));
  const setups = { direct: [], tunnel: [] };
  for (let i = 0; i < CONNECTS; i++) {
    setups.direct.push(await setup(ECHO_PORT));
    setups.tunnel.push(await setup(portOf(echoTunnel)));
  }
  setups.direct.sort((a, b) => a - b);
  setups.tunnel.sort((a, b) => a - b);

  const dMb = median(direct.mbps);
  const tMb = median(tunnel.mbps);
  const ratio = (100 * tMb) / dMb;
  const added = q(tunnel.pings, 0.5) - q(direct.pings, 0.5);
  const f = (x, d = 2) => x.toFixed(d);
  console.log(`tunnel bench: ${MB} MiB downloads x ${RUNS}, ${PINGS} pings of 32 B, ${CONNECTS} connects`);
  console.log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log('| path | MiB/s (median) | ping p50 ms | ping p99 ms | connect+1st byte p50 ms | p99 ms |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const [label, m, s] of [
    ['direct loopback TCP', direct, setups.direct],
    ['through a tunnel', tunnel, setups.tunnel],
  ]) {
    console.log(
      `| ${label} | ${f(median(m.mbps), 0)} | ${f(q(m.pings, 0.5), 3)} | ${f(q(m.pings, 0.99), 3)} | ` +
        `${f(q(s, 0.5))} | ${f(q(s, 0.99))} |`,
    );
  }
  console.log(
    `throughput through the tunnel: ${f(ratio, 1)} % of direct (target >= 30 %: ${ratio >= 30 ? 'met' : 'NOT met'})`,
  );
  console.log(`added p50 latency: ${f(added, 3)} ms (target < 5 ms: ${added < 5 ? 'met' : 'NOT met'})`);
  const bytes = (await api.call('GET', `/api/devices/${identity.sn}/tunnels`)).data;
  console.log(
    `tunnel counters: ${bytes.map((t) => `${t.name} in ${t.bytes_in} B out ${t.bytes_out} B, ${t.connections} connections`).join('; ')}`,
  );
} finally {
  devsim?.kill('SIGTERM');
  await server.stop();
  source.close();
  echo.close();
}
