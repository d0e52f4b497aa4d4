#!/usr/bin/env -S npx tsx
// `npm run devsim -- --devices 1000 --rate 1 ...`: see README.md for every option.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CellhubApi, ensureFleet } from './api-client';
import type { DeviceIdentity } from './device';
import { Fleet } from './fleet';
import { gatewayHandlers, newGatewayStats, SubDeviceReporter, subDeviceSns } from './gateway';
import { demoMeter, ModbusBus } from './modbus';
import { newOtaStats, otaHandler } from './ota';
import { PROPERTY_KEYS, type PropertyKey } from './telemetry';
import { newTunnelStats, tunnelHandler } from './tunnel';
import { DEFAULT_SOCKET_OPTIONS, runSocketFleet } from './socket-dtu';

const HELP = `devsim: a fleet of virtual DTUs speaking the Cellhub MQTT protocol

Identities (one of):
  --file FILE            JSON array of {"sn", "product_key", "secret"}
  --api URL              Cellhub server, e.g. http://127.0.0.1:8080, with --product and
    --user NAME          (default admin)
    --password PW        (or env CELLHUB_PASSWORD)
    --product KEY        product_key of the fleet
    --create N           make sure N devices <prefix>000001.. exist (creates the missing ones)
    --prefix TEXT        sn prefix for --create (default SIM)
  --devices N            simulate only the first N identities
  --save FILE            write the identities used to FILE (reuse with --file)

Connection:
  --url URL              broker: mqtt://host:1883 or ws://host:8080/mqtt
                         (default: the --api host on port 1883, else mqtt://127.0.0.1:1883)
  --hmac                 sign in with hmac:<ms>:<sig> instead of the plain secret
  --mqtt-version V       MQTT protocol: 4 (3.1.1, default) or 5
  --mqtt5                same as --mqtt-version 5
  --keepalive S          keep-alive seconds (default 60)
  --connect-rate N       new connections per second, fleet-wide (default 100; 0 = no limit)

Behaviour:
  --rate N               property reports per device per second (default 1; 0.1 = every 10 s; 0 = none)
  --props LIST           reported keys, from ${PROPERTY_KEYS.join(',')} (default temperature,humidity,rssi)
  --info-every S         re-send P/up/info with the current signal every S seconds (default 300; 0 = never)
  --flap-ratio R         share of devices that go offline and come back (default 0)
  --offline-every S      mean seconds online between two outages of a flapping device (default 60)
  --offline-for S        mean seconds an outage lasts (default 20)
  --buffer-offline N     readings kept while offline, sent as one batch on reconnect (default 100; 0 = none)
  --bad-ratio R          share of reports replaced by invalid JSON, schema violations or wrong topics (default 0)
  --cmd-delay MS         wait before answering a command (default 0)
  --seed N               seed for who flaps and when (default 1)

Firmware upgrades (P/down/ota; every ratio is drawn per upgrade, so a retry may go right):
  --fw-version V         firmware version reported on P/up/info until an upgrade (default 1.0.0)
  --ota-refuse R         share of upgrades refused (status 6) (default 0)
  --ota-fail-download R  share of downloads that arrive corrupted: checksum fails, status 2 (default 0)
  --ota-fail-update R    share of updates that fail after a good download, status 3 (default 0)
  --ota-interrupt R      share of downloads that break midway and are resumed with Range (default 0)
  --ota-update-ms MS     time to flash and reboot before reporting success (default 200)
  --ota-progress STEP    report download progress every STEP percent (default 0 = only statuses)

Output:
  --modbus               put a demo Modbus meter (slave 1, see docs/modbus.md) behind every device's serial port:
                         frames on P/down/raw are answered on P/up/raw (platform polling, transparent mode)
  --raw-frames           send readings as 5-byte binary frames on P/up/raw (temperature, humidity, rssi; see
                         docs/scripts.md for the decoding script) instead of JSON property messages
  --event-every S        mean seconds between two thing model events per device (P/up/event: overheat with the
                         temperature, or door_open; the product's model must define them) (default 0 = none)
  --tunnel               answer P/down/tunnel (remote tunnels, docs/tunnels.md): connect to local_ip:local_port,
                         then back to the platform's tunnel endpoint, and pipe bytes; a closed local port is
                         reported as refused (the platform shows 11016)
  --tunnel-host HOST     connect back to HOST instead of the message's host (e.g. 127.0.0.1)
  --tunnel-local HOST    connect to HOST instead of local_ip (a demo's "LAN" is this machine)
  --sub-devices N        gateway mode: every device is a gateway speaking for N sub-devices <sn>-S01.. (bound to
                         its gateway rule, docs/gateway-rules.md): their status and readings (at --rate) on
                         P/up/sub_status and P/up/sub_property, and answers to P/down/sub_cmd, sub_config, sub_raw
                         (default 0 = none)
  --socket tcp|udp       socket mode (docs/device-hosts.md): talk to a device host instead of MQTT; registration
                         packet first, then heartbeats and a raw frame per 1/--rate s (--modbus: answer requests)
    --host-port N        the device host's port (required with --socket)
    --socket-host HOST   its address (default: the --api host, else 127.0.0.1)
    --register TEXT      registration packet, {sn} replaced by the sn (default {sn})
    --heartbeat TEXT     heartbeat packet ('' for none; default PING)
    --heartbeat-every S  seconds between heartbeats (default 30)
    --frame-bytes N      pad each raw frame to N bytes (default 0: the 5-byte frame)
  --status-every S       status line interval (default 5)
  --duration S           stop after S seconds (default: run until Ctrl-C)
  --help`;

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    api: { type: 'string' },
    user: { type: 'string', default: 'admin' },
    password: { type: 'string' },
    product: { type: 'string' },
    create: { type: 'string' },
    prefix: { type: 'string', default: 'SIM' },
    devices: { type: 'string' },
    save: { type: 'string' },
    url: { type: 'string' },
    hmac: { type: 'boolean', default: false },
    mqtt5: { type: 'boolean', default: false },
    'mqtt-version': { type: 'string' },
    keepalive: { type: 'string', default: '60' },
    'connect-rate': { type: 'string', default: '100' },
    rate: { type: 'string', default: '1' },
    props: { type: 'string', default: 'temperature,humidity,rssi' },
    'info-every': { type: 'string', default: '300' },
    'flap-ratio': { type: 'string', default: '0' },
    'offline-every': { type: 'string', default: '60' },
    'offline-for': { type: 'string', default: '20' },
    'buffer-offline': { type: 'string', default: '100' },
    'bad-ratio': { type: 'string', default: '0' },
    'cmd-delay': { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    'fw-version': { type: 'string', default: '1.0.0' },
    'ota-refuse': { type: 'string', default: '0' },
    'ota-fail-download': { type: 'string', default: '0' },
    'ota-fail-update': { type: 'string', default: '0' },
    'ota-interrupt': { type: 'string', default: '0' },
    'ota-update-ms': { type: 'string', default: '200' },
    'ota-progress': { type: 'string', default: '0' },
    modbus: { type: 'boolean', default: false },
    'raw-frames': { type: 'boolean', default: false },
    'event-every': { type: 'string', default: '0' },
    tunnel: { type: 'boolean', default: false },
    'tunnel-host': { type: 'string' },
    'tunnel-local': { type: 'string' },
    'sub-devices': { type: 'string', default: '0' },
    socket: { type: 'string' },
    'host-port': { type: 'string' },
    'socket-host': { type: 'string' },
    register: { type: 'string', default: '{sn}' },
    heartbeat: { type: 'string', default: 'PING' },
    'heartbeat-every': { type: 'string', default: '30' },
    'frame-bytes': { type: 'string', default: '0' },
    'status-every': { type: 'string', default: '5' },
    duration: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  console.error(`devsim: ${message}`);
  process.exit(1);
}

function num(name: keyof typeof values, min: number, max = Infinity): number {
  const raw = values[name];
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isFinite(n) || n < min || n > max)
    fail(`--${name} must be a number between ${min} and ${max}, got ${String(raw)}`);
  return n;
}

if (values.help || (!values.file && !values.api)) {
  console.log(HELP);
  process.exit(values.help ? 0 : 1);
}

const props = values.props.split(',').map((p) => p.trim());
for (const p of props)
  if (!(PROPERTY_KEYS as readonly string[]).includes(p)) fail(`unknown property ${p} in --props`);

async function loadIdentities(): Promise<DeviceIdentity[]> {
  const limit = values.devices === undefined ? Infinity : num('devices', 1);
  if (values.file) {
    const list = JSON.parse(readFileSync(values.file, 'utf8')) as DeviceIdentity[];
    if (!Array.isArray(list)) fail(`${values.file} is not a JSON array`);
    return list.slice(0, limit);
  }
  const api = new CellhubApi(values.api!, (line) => console.log(line));
  const password = values.password ?? process.env.CELLHUB_PASSWORD;
  if (!password) fail('--api needs --password (or CELLHUB_PASSWORD)');
  if (!values.product) fail('--api needs --product');
  await api.login(values.user, password);
  if (values.create !== undefined) {
    const count = Math.min(num('create', 1), limit);
    console.log(`making sure ${count} devices ${values.prefix}000001.. exist in ${values.product}`);
    return ensureFleet(api, values.product, count, values.prefix);
  }
  const sns = (await api.listDeviceSns(values.product)).slice(0, limit);
  if (sns.length === 0) fail(`product ${values.product} has no devices (add --create N)`);
  return api.identities(sns);
}

function mqttVersion(): 4 | 5 {
  const v = values['mqtt-version'];
  if (v === undefined) return values.mqtt5 ? 5 : 4;
  const version = v === '5' || v === '5.0' ? 5 : v === '4' || v === '3.1.1' ? 4 : undefined;
  if (version === undefined) fail(`--mqtt-version must be 4 (3.1.1) or 5, got ${v}`);
  if (values.mqtt5 && version !== 5) fail('--mqtt5 and --mqtt-version 4 contradict each other');
  return version;
}

const otaStats = newOtaStats();
/** The upgrade part of the status line, once the fleet got an upgrade. */
const otaLine = () => {
  const o = otaStats;
  if (o.commands === 0) return '';
  return (
    `  ota: got ${o.commands} ok ${o.succeeded} refused ${o.refused} download-failed ${o.downloadFailed}` +
    ` update-failed ${o.updateFailed} resumed ${o.resumed} download-retries ${o.downloadRetries}` +
    ` ${(o.downloadBytes / 1048576).toFixed(1)} MB` +
    (o.lastDownloadError ? `  last download error: ${o.lastDownloadError}` : '')
  );
};

const tunnelStats = newTunnelStats();
/** The tunnel part of the status line, once a tunnel was asked for. */
const tunnelLine = () => {
  const t = tunnelStats;
  if (t.opened + t.refused === 0) return '';
  return `  tunnels: opened ${t.opened} refused ${t.refused} up ${t.bytesUp} B down ${t.bytesDown} B`;
};

const subDevices = num('sub-devices', 0, 1000);
const gatewayStats = newGatewayStats();
/** The gateway part of the status line, in gateway mode. */
const gatewayLine = () =>
  subDevices === 0
    ? ''
    : `  sub-devices: ${subDevices}/gateway reports ${gatewayStats.reports} commands ${gatewayStats.commands}`;

const defaultUrl = values.api ? `mqtt://${new URL(values.api).hostname}:1883` : 'mqtt://127.0.0.1:1883';
const options = {
  url: values.url ?? defaultUrl,
  hmac: values.hmac,
  protocolVersion: mqttVersion(),
  keepalive: num('keepalive', 1, 65535),
  connectRate: num('connect-rate', 0),
  rate: num('rate', 0),
  properties: props as PropertyKey[],
  infoEvery: num('info-every', 0),
  flapRatio: num('flap-ratio', 0, 1),
  offlineEvery: num('offline-every', 1),
  offlineFor: num('offline-for', 1),
  bufferOffline: num('buffer-offline', 0, 1000),
  badRatio: num('bad-ratio', 0, 1),
  commandDelayMs: num('cmd-delay', 0),
  seed: num('seed', 0),
  fwVersion: values['fw-version'],
  modbus: values.modbus ? () => new ModbusBus([demoMeter()]) : undefined,
  rawFrames: values['raw-frames'],
  eventEvery: num('event-every', 0),
  handlers: {
    ota: otaHandler(
      {
        refuse: num('ota-refuse', 0, 1),
        failDownload: num('ota-fail-download', 0, 1),
        failUpdate: num('ota-fail-update', 0, 1),
        interrupt: num('ota-interrupt', 0, 1),
        updateMs: num('ota-update-ms', 0),
        progressStep: num('ota-progress', 0, 100),
        seed: num('seed', 0),
      },
      otaStats,
    ),
    ...(subDevices > 0 ? gatewayHandlers(gatewayStats, num('cmd-delay', 0)) : {}),
    ...(values.tunnel
      ? {
          tunnel: tunnelHandler(
            { platformHost: values['tunnel-host'], localHost: values['tunnel-local'] },
            tunnelStats,
          ),
        }
      : {}),
  },
};
if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/.test(values['fw-version']))
  fail('--fw-version: letters, digits, . _ + -');
const statusEvery = num('status-every', 0.1);
const duration = values.duration === undefined ? undefined : num('duration', 0);

let identities: DeviceIdentity[];
try {
  identities = await loadIdentities();
} catch (err) {
  fail((err as Error).message);
}
if (values.save) writeFileSync(values.save, JSON.stringify(identities, null, 2));

if (values.socket !== undefined) {
  const protocol = values.socket;
  if (protocol !== 'tcp' && protocol !== 'udp') fail(`--socket must be tcp or udp, got ${protocol}`);
  if (values['host-port'] === undefined) fail('--socket needs --host-port');
  await runSocketFleet(
    identities,
    {
      ...DEFAULT_SOCKET_OPTIONS,
      protocol,
      host: values['socket-host'] ?? (values.api ? new URL(values.api).hostname : '127.0.0.1'),
      port: num('host-port', 1, 65535),
      register: values.register,
      heartbeat: values.heartbeat,
      heartbeatEvery: num('heartbeat-every', 0),
      rate: num('rate', 0),
      frameBytes: num('frame-bytes', 0, 65535),
      modbus: values.modbus ? () => new ModbusBus([demoMeter()]) : undefined,
      connectRate: num('connect-rate', 0),
    },
    {
      statusEvery: num('status-every', 0.1),
      duration: values.duration === undefined ? undefined : num('duration', 0),
    },
  );
}

const fleet = new Fleet(identities, options);
const subReporter =
  subDevices > 0
    ? new SubDeviceReporter(
        () => fleet.devices,
        (g) => subDeviceSns(g.identity.sn, subDevices),
        { rate: options.rate },
        gatewayStats,
      )
    : undefined;
subReporter?.start();
console.log(
  `devsim: ${fleet.size} devices -> ${options.url}` +
    ` (rate ${options.rate}/s each, connect-rate ${options.connectRate || 'unlimited'}/s` +
    `${options.flapRatio ? `, flap ${options.flapRatio}` : ''}${options.badRatio ? `, bad ${options.badRatio}` : ''})`,
);
let previous = { sent: 0, at: Date.now() };
const statusTimer = setInterval(() => {
  console.log(fleet.statusLine(previous) + otaLine() + gatewayLine() + tunnelLine());
  previous = { sent: fleet.stats.sent, at: Date.now() };
}, statusEvery * 1000);

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(statusTimer);
  subReporter?.stop();
  await fleet.stop();
  console.log(fleet.statusLine() + otaLine() + gatewayLine() + tunnelLine());
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
if (duration !== undefined) setTimeout(() => void stop(0), duration * 1000);

await fleet.start();
console.log(`devsim: every device tried once; ${fleet.connectedCount()}/${fleet.size} connected`);
