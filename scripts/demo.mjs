#!/usr/bin/env node
// `npm run demo`: a living console in one command. Builds if needed, starts the server on the embedded defaults
// (DATA_DIR ./data-demo, port 8080, a fixed admin password), makes sure the demo product "DTU-4G 演示" exists, and
// runs a devsim fleet of 50 devices reporting temperature, humidity and signal, some going offline and back, with
// alert triggers on three of them (weak signal) so the Workplace and the message box have something to show.
// Ctrl-C stops the fleet, then the server. Environment: PORT, MQTT_PORT, DATA_DIR, DEMO_DEVICES,
// CELLHUB_ADMIN_PASSWORD, LOG_LEVEL.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PORT = Number(process.env.PORT ?? 8080);
const PASSWORD = process.env.CELLHUB_ADMIN_PASSWORD ?? 'cellhub-demo';
const DEVICES = Number(process.env.DEMO_DEVICES ?? 50);
const PRODUCT = { product_key: 'dtu4g-demo', name: 'DTU-4G 演示' };
/** Never connected by the fleet: it keeps a queued command pending. */
const QUEUE_SN = 'DEMO-OFFLINE-1';
const PROPERTIES = [
  {
    key: 'temperature',
    name: '温度',
    name_us: 'Temperature',
    unit: '°C',
    datatype: 'number',
    charttype: 'line',
    cycles: 5,
  },
  {
    key: 'humidity',
    name: '湿度',
    name_us: 'Humidity',
    unit: '%',
    datatype: 'number',
    charttype: 'line',
    cycles: 5,
  },
  {
    key: 'rssi',
    name: '信号强度',
    name_us: 'Signal (RSSI)',
    unit: 'dBm',
    datatype: 'number',
    charttype: 'line',
    cycles: 5,
  },
];

const say = (line) => console.log(`[demo] ${line}`);

async function portFree(port) {
  const s = createServer();
  return new Promise((resolve) => {
    s.once('error', () => resolve(false));
    s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
  });
}

/** MQTT_PORT as given, else 1883, else (another broker holds 1883) the first free port from 18830. */
async function mqttPort() {
  if (process.env.MQTT_PORT) return Number(process.env.MQTT_PORT);
  if (await portFree(1883)) return 1883;
  for (let p = 18830; p < 18900; p++) if (await portFree(p)) return p;
  throw new Error('no free port for MQTT');
}

/** Newest modification time under a folder (sources), to tell a stale build from a fresh one. */
function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}
const stale = (bundle, ...sourceDirs) =>
  !existsSync(bundle) || sourceDirs.some((d) => newestMtime(join(root, d)) > statSync(bundle).mtimeMs);

function buildIfNeeded() {
  const server = join(root, 'apps/server/dist/main.js');
  const consoleIndex = join(root, 'apps/console/dist/index.html');
  const built =
    !stale(server, 'apps/server/src', 'packages/contract/src') &&
    !stale(consoleIndex, 'apps/console/src', 'packages/contract/src');
  if (built) return;
  say('building the console and the server (missing or older than their sources) ...');
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** Runs a child in its own process group, so Ctrl-C reaches only this script and the stop order is ours. */
function run(name, args, env) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const prefix = (stream, out) => {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) out.write(`[${name}] ${line}\n`);
    });
  };
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return child;
}

async function stopChild(child, signal, ms) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  await child.exited;
  clearTimeout(timer);
}

/** A data template with one slave and its variables (docs/data-templates.md); answers the template. */
async function demoTemplate(base, token, template, slave, variables) {
  const tpl = await api(base, 'POST', '/api/data-templates', template, token);
  const made = await api(base, 'POST', `/api/data-templates/${tpl.id}/slaves`, slave, token);
  for (const v of variables) {
    await api(base, 'POST', `/api/data-templates/${tpl.id}/slaves/${made.id}/variables`, v, token);
  }
  return tpl;
}

/** A call of the API; `body` is JSON, or a FormData sent as multipart (file uploads). */
async function api(base, method, path, body, token) {
  const form = body instanceof FormData;
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(body === undefined || form ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined || form ? body : JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok || json.status !== true)
    throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Asks `ready` every half second for about a minute: false if it never was, or the demo is stopping. */
async function waitUntil(ready) {
  for (let i = 0; i <= 120; i++) {
    if (await ready()) return true;
    if (stopping) return false;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

buildIfNeeded();
const MQTT_PORT = await mqttPort();
if (!(await portFree(PORT))) {
  console.error(
    `[demo] port ${PORT} is in use: stop what runs there or start with PORT=<another port> npm run demo`,
  );
  process.exit(1);
}

// Forwarding (docs/forwarding.md): a receiver on loopback stands in for the user's own system. It only counts what
// it gets; the server may reach exactly this address (OUTBOUND_ALLOW), nothing else on this machine.
let forwarded = 0;
const receiver = createHttpServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    // The demo rule batches: a body is an array of messages (docs/forwarding.md "Batches").
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      forwarded += Array.isArray(body) ? body.length : 1;
    } catch {
      forwarded++;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
receiver.unref();
const RECEIVER = `http://127.0.0.1:${receiver.address().port}`;

let server;
let devsim;
/** The raw-frame sensors of the scripts demo (docs/scripts.md). */
let devsimRaw;
/** The Modbus DTUs of the platform-polling demo (docs/modbus-polling.md). */
let devsimModbus;
/** The gateway with sub-devices of the gateway rules demo (docs/gateway-rules.md). */
let devsimGateway;
let stopping = false;
async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  say('stopping the fleet, then the server ...');
  await stopChild(devsim, 'SIGINT', 10_000);
  await stopChild(devsimRaw, 'SIGINT', 10_000);
  await stopChild(devsimModbus, 'SIGINT', 10_000);
  await stopChild(devsimGateway, 'SIGINT', 10_000);
  await stopChild(server, 'SIGTERM', 15_000);
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));

server = run('server', [join(root, 'apps/server/dist/main.js')], {
  PORT: String(PORT),
  MQTT_PORT: String(MQTT_PORT),
  DATA_DIR: process.env.DATA_DIR ?? './data-demo',
  CELLHUB_ADMIN_PASSWORD: PASSWORD,
  OUTBOUND_ALLOW: [process.env.OUTBOUND_ALLOW, RECEIVER.slice('http://'.length)].filter(Boolean).join(','),
  // Request logs would drown the fleet's status lines; LOG_LEVEL=info brings them back.
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
});
void server.exited.then((code) => {
  if (!stopping) {
    console.error(`[demo] the server exited (${code}); stopping`);
    void stopAll(1);
  }
});

const base = `http://127.0.0.1:${PORT}`;
for (let i = 0; ; i++) {
  try {
    const res = await fetch(`${base}/api/health`);
    if (res.ok) break;
  } catch {
    // not up yet
  }
  if (i > 300 || stopping) {
    console.error('[demo] the server did not become healthy within 60 s');
    await stopAll(1);
  }
  await new Promise((r) => setTimeout(r, 200));
}

try {
  const { token } = await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD });
  const products = await api(
    base,
    'GET',
    `/api/products?keyword=${encodeURIComponent(PRODUCT.name)}`,
    undefined,
    token,
  );
  if (!products.some((p) => p.product_key === PRODUCT.product_key)) {
    await api(
      base,
      'POST',
      '/api/products',
      {
        ...PRODUCT,
        description: 'Demo product: virtual 4G DTUs from the device simulator',
        property_interval: 5,
        properties: PROPERTIES,
      },
      token,
    );
    say(`created product ${PRODUCT.name} (${PRODUCT.product_key})`);
  }
  // The demo product's thing model: its properties plus two events the devsim fleet reports (--event-every), so the
  // device page's events card and chart marks have occurrences (docs/product-tooling.md).
  try {
    await api(
      base,
      'PUT',
      `/api/thing-models/${PRODUCT.product_key}`,
      {
        properties: PROPERTIES,
        events: [
          {
            key: 'overheat',
            name: '过热',
            name_us: 'Overheat',
            level: 'warn',
            output: [{ key: 'temp', name: '温度', datatype: 'float', unit: '°C' }],
          },
          { key: 'door_open', name: '柜门打开', name_us: 'Door opened', level: 'info', output: [] },
        ],
        services: [],
      },
      token,
    );
  } catch (err) {
    console.error(`[demo] could not set the demo product's thing model: ${err.message}`);
  }
  // A device the fleet never connects, holding a command queued for it (docs/api-conventions.md "Commands for
  // offline devices"): the console shows it pending, with its expiry and a Cancel action.
  await api(base, 'POST', '/api/devices', { product_key: PRODUCT.product_key, sn: [QUEUE_SN] }, token);
  const queued = await api(base, 'GET', `/api/devices/${QUEUE_SN}/commands`, undefined, token);
  if (!queued.some((c) => c.status === 'pending')) {
    const body = { type: 'string', data: 'AT+CFUN=1,1', offline: 'queue', ttl_seconds: 7 * 86_400 };
    await api(base, 'POST', `/api/devices/${QUEUE_SN}/commands`, body, token);
    say(`queued a command for the offline device ${QUEUE_SN} (pending for 7 days)`);
  }
  // A sample application with one version (docs/applications.md): a small generated zip package.
  const apps = await api(base, 'GET', '/api/applications?keyword=DTU%20Config%20Tool', undefined, token);
  if (apps.length === 0) {
    const app = await api(
      base,
      'POST',
      '/api/applications',
      { name: 'DTU Config Tool', platform: 'windows', description: 'Configure DTUs over the serial port' },
      token,
    );
    const form = new FormData();
    form.append('version', '1.0.0');
    form.append('notes_zh', '首个版本：串口配置、参数导入导出');
    form.append('notes_en', 'First release: serial configuration, parameter import and export');
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(8188, 7)]);
    form.append('file', new Blob([zip]), 'dtu-config-tool-1.0.0.zip');
    const res = await fetch(`${base}/api/applications/${app.id}/versions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    if (!res.ok) throw new Error(`upload of the sample application: HTTP ${res.status} ${await res.text()}`);
    say('created the sample application DTU Config Tool 1.0.0');
  }
  // A command group on the demo product (docs/product-tooling.md): Modbus reads with typed parameters.
  const groups = await api(
    base,
    'GET',
    `/api/command-groups?product_key=${PRODUCT.product_key}`,
    undefined,
    token,
  );
  if (groups.length === 0) {
    const group = await api(
      base,
      'POST',
      '/api/command-groups',
      { product_key: PRODUCT.product_key, name: 'Modbus RTU', description: '读写从站寄存器' },
      token,
    );
    await api(
      base,
      'POST',
      `/api/command-groups/${group.id}/commands`,
      {
        name: '读保持寄存器',
        type: 'hex',
        data: '{{slave}}03{{addr}}{{count}}',
        params: [
          { name: 'slave', label: '从站地址', type: 'int', min: 1, max: 247, bytes: 1 },
          { name: 'addr', label: '起始地址', type: 'hex', bytes: 2 },
          { name: 'count', label: '数量', type: 'int', min: 1, max: 125, bytes: 2 },
        ],
        reply_pattern: '^[0-9A-F]{2}03',
        timeout_s: 10,
      },
      token,
    );
    await api(
      base,
      'POST',
      `/api/command-groups/${group.id}/commands`,
      {
        name: '设置 APN',
        type: 'string',
        data: 'AT+CGDCONT=1,"IP","{{apn}}"',
        params: [{ name: 'apn', label: 'APN', type: 'string', max_length: 32, pattern: '[A-Za-z0-9.-]+' }],
      },
      token,
    );
    say('created the command group Modbus RTU on the demo product');
  }
  // Production (docs/production.md): a hardware group and a finished task of 10 devices in stock.
  const hwGroups = await api(base, 'GET', '/api/hw/groups?keyword=DTU-4G%20B', undefined, token);
  if (hwGroups.length === 0) {
    const valueIds = [];
    for (const [type, value] of [
      ['module_model', 'EC200U-CN'],
      ['mcu', 'STM32F103'],
      ['board_revision', 'V1.2'],
    ]) {
      const found = await api(base, 'GET', `/api/hw/values?type=${type}&keyword=${value}`, undefined, token);
      const v =
        found.find((f) => f.value.toLowerCase() === value.toLowerCase()) ??
        (await api(base, 'POST', '/api/hw/values', { type, value }, token));
      valueIds.push(v.id);
    }
    const group = await api(
      base,
      'POST',
      '/api/hw/groups',
      { name: 'DTU-4G B 版', value_ids: valueIds },
      token,
    );
    const task = await api(
      base,
      'POST',
      '/api/production/tasks',
      {
        name: '演示批次',
        product_key: PRODUCT.product_key,
        hw_group_id: group.id,
        quantity: 10,
        sn_rule: { type: 'rule', prefix: 'DEMOP', digits: 3, start: 1 },
        planned_date: new Date().toISOString().slice(0, 10),
      },
      token,
    );
    await api(base, 'POST', `/api/production/tasks/${task.id}/start`, undefined, token);
    await api(base, 'POST', `/api/production/tasks/${task.id}/finish`, undefined, token);
    say('created the hardware group DTU-4G B 版 and a finished production task of 10 stock devices');
  }
} catch (err) {
  console.error(`[demo] could not prepare the demo product: ${err.message}`);
  console.error(
    `[demo] (a data-demo folder from another password? delete ./data-demo or set CELLHUB_ADMIN_PASSWORD)`,
  );
  await stopAll(1);
}

devsim = run(
  'devsim',
  [
    join(root, 'node_modules/tsx/dist/cli.mjs'),
    join(root, 'apps/devsim/src/cli.ts'),
    '--api',
    base,
    '--password',
    PASSWORD,
    '--product',
    PRODUCT.product_key,
    '--create',
    String(DEVICES),
    '--prefix',
    'DEMO',
    '--url',
    `mqtt://127.0.0.1:${MQTT_PORT}`,
    '--rate',
    '0.2',
    '--connect-rate',
    '20',
    '--flap-ratio',
    '0.2',
    '--offline-every',
    '90',
    '--offline-for',
    '30',
    '--info-every',
    '60',
    // Thing model events (the demo product's model below defines them): one every ~10 s across the fleet.
    '--event-every',
    String(DEVICES * 10),
    '--status-every',
    '30',
  ],
  {},
);
void devsim.exited.then((code) => {
  if (!stopping) say(`the device simulator exited (${code}); the server keeps running (Ctrl-C to stop)`);
});

// Scripts (docs/scripts.md): a product whose sensors send 5-byte binary frames on P/up/raw, decoded into properties
// by its script (the script text is the one devsim's frame encoder documents); three devsim sensors send them.
const RAW_PRODUCT = { product_key: 'rawsensor-demo', name: '温湿度传感器（原始帧）' };
void (async () => {
  try {
    const { token } = await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD });
    const found = await api(
      base,
      'GET',
      `/api/products?keyword=${encodeURIComponent('rawsensor')}`,
      undefined,
      token,
    );
    if (!found.some((p) => p.product_key === RAW_PRODUCT.product_key)) {
      await api(
        base,
        'POST',
        '/api/products',
        {
          ...RAW_PRODUCT,
          dataformat: 'raw',
          description: 'Demo product: binary frames decoded by a script',
          properties: PROPERTIES,
        },
        token,
      );
      const source = /RAW_FRAME_SCRIPT = `([\s\S]*?)`;/.exec(
        readFileSync(join(root, 'apps/devsim/src/raw-frame.ts'), 'utf8'),
      )?.[1];
      if (source)
        await api(
          base,
          'POST',
          '/api/scripts',
          {
            name: '温湿度帧解析',
            description: 'devsim --raw-frames: 01 <temperature x10> <humidity> <rssi>',
            product_key: RAW_PRODUCT.product_key,
            source,
            note: 'demo',
            // The demo's few frames are kept raw as well, to compare with their decoded values.
            keep_raw: true,
          },
          token,
        );
      say(`created product ${RAW_PRODUCT.name} (${RAW_PRODUCT.product_key}) with a decoding script`);
    }
    devsimRaw = run(
      'devsim-raw',
      [
        join(root, 'node_modules/tsx/dist/cli.mjs'),
        join(root, 'apps/devsim/src/cli.ts'),
        ...['--api', base, '--password', PASSWORD, '--product', RAW_PRODUCT.product_key, '--create', '3'],
        ...['--prefix', 'RAW', '--url', `mqtt://127.0.0.1:${MQTT_PORT}`, '--rate', '0.2', '--raw-frames'],
        ...['--status-every', '60'],
      ],
      {},
    );
  } catch (err) {
    say(`could not set up the scripts demo: ${err.message}`);
  }
})();

// Forwarding (docs/forwarding.md): the demo product's properties and presence go to the local receiver above. Its
// port changes with every start, so an existing rule gets the new URL.
void (async () => {
  try {
    const { token } = await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD });
    const name = '推送到本机接收器（演示）';
    const body = {
      name,
      product_key: PRODUCT.product_key,
      kinds: ['property', 'online', 'offline'],
      // Up to 20 messages of a device per request when several wait (a JSON array).
      target: { kind: 'http', method: 'POST', url: `${RECEIVER}/demo-hook`, batch_max: 20 },
    };
    const found = await api(
      base,
      'GET',
      `/api/forwarding?keyword=${encodeURIComponent(name)}`,
      undefined,
      token,
    );
    const rule = found[0]
      ? await api(
          base,
          'PUT',
          `/api/forwarding/${found[0].id}`,
          { ...body, enabled: found[0].enabled },
          token,
        )
      : await api(base, 'POST', '/api/forwarding', body, token);
    say(`forwarding: rule ${name} sends to ${RECEIVER} (/data-transmit/forward/detail/${rule.id})`);
    const tick = setInterval(
      () => forwarded > 0 && say(`forwarding: the local receiver got ${forwarded} messages`),
      60_000,
    );
    tick.unref();
  } catch (err) {
    say(`could not set up the forwarding demo: ${err.message}`);
  }
})();

// Data transmission (docs/data-transmit.md): a rule that makes RAW000001 and RAW000002 (edge) and RAW000003
// (management) one virtual serial bus; their frames flow through it and its detail page counts them live.
void (async () => {
  try {
    const { token } = await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD });
    const name = '传感器汇聚（演示）';
    const found = await api(
      base,
      'GET',
      `/api/data-transmit?keyword=${encodeURIComponent(name)}`,
      undefined,
      token,
    );
    if (found.length > 0) return;
    const sns = ['RAW000001', 'RAW000002', 'RAW000003'];
    // devsim-raw creates the sensors once it runs.
    await waitUntil(async () => {
      const have = await api(base, 'GET', '/api/devices?keyword=RAW00000&per_page=20', undefined, token);
      return sns.every((sn) => have.some((d) => d.sn === sn));
    });
    const rule = await api(
      base,
      'POST',
      '/api/data-transmit',
      { name, group: '演示', management: ['RAW000003'], edge: [{ sn: 'RAW000001' }, { sn: 'RAW000002' }] },
      token,
    );
    say(
      `data transmission: rule ${name} links RAW000001/2 with RAW000003 (/data-transmit/detail/${rule.id})`,
    );
  } catch (err) {
    say(`could not set up the data transmission demo: ${err.message}`);
  }
})();

// Modbus polled by the platform (docs/modbus-polling.md): two DTUs in transparent mode with devsim's demo meter
// behind their serial port (`--modbus`, demoMeter in apps/devsim/src/modbus.ts); their product's default data
// template, in `platform` collect mode, describes that meter, so the server polls them and the device page's "Modbus
// variables" card shows live values, test reads and writes.
const MODBUS_PRODUCT = { product_key: 'meter-demo', name: '配电柜 DTU（Modbus 电表）' };
void (async () => {
  try {
    const { token } = await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD });
    const found = await api(base, 'GET', '/api/products?keyword=meter-demo', undefined, token);
    if (!found.some((p) => p.product_key === MODBUS_PRODUCT.product_key)) {
      await api(
        base,
        'POST',
        '/api/products',
        { ...MODBUS_PRODUCT, description: 'Demo product: a Modbus meter polled by the platform' },
        token,
      );
      const tpl = await demoTemplate(
        base,
        token,
        { name: '配电柜电表', type: 'modbus_rtu', remark: 'devsim demoMeter', collect_mode: 'platform' },
        { name: '电表', address: 1, serial_port: 'rs485' },
        [
          {
            name: '柜内温度',
            tag: 'cabinet_temp',
            unit: '°C',
            register_type: 'holding',
            register_address: 1,
            data_format: 'int16',
            decimals: 1,
            capture_formula: 'x*0.1',
          },
          {
            name: '电压',
            tag: 'voltage',
            unit: 'V',
            register_type: 'holding',
            register_address: 2,
            data_format: 'float32',
            byte_order: 'ABCD',
            decimals: 1,
          },
          {
            name: '电能',
            tag: 'energy',
            unit: 'kWh',
            register_type: 'input',
            register_address: 4,
            data_format: 'uint32',
            byte_order: 'CDAB',
            decimals: 2,
            capture_formula: 'x*0.01',
          },
          {
            name: '门磁',
            tag: 'door_open',
            register_type: 'discrete_input',
            register_address: 1,
            data_format: 'bool',
            report_method: 'change',
          },
          {
            name: '设定值',
            tag: 'setpoint',
            register_type: 'holding',
            register_address: 11,
            data_format: 'uint16',
            access: 'rw',
          },
          {
            name: '继电器',
            tag: 'relay',
            register_type: 'coil',
            register_address: 1,
            data_format: 'bool',
            access: 'rw',
          },
        ].map((v) => ({ sampling_cycle_s: 5, ...v })),
      );
      await api(
        base,
        'PUT',
        `/api/products/${MODBUS_PRODUCT.product_key}/data-template`,
        { template_id: tpl.id },
        token,
      );
      say(
        `created product ${MODBUS_PRODUCT.name} (${MODBUS_PRODUCT.product_key}) with a platform-polled template`,
      );
    }
    devsimModbus = run(
      'devsim-modbus',
      [
        join(root, 'node_modules/tsx/dist/cli.mjs'),
        join(root, 'apps/devsim/src/cli.ts'),
        ...['--api', base, '--password', PASSWORD, '--product', MODBUS_PRODUCT.product_key, '--create', '2'],
        ...['--prefix', 'METER', '--url', `mqtt://127.0.0.1:${MQTT_PORT}`, '--rate', '0', '--modbus'],
        ...['--status-every', '60'],
      ],
      {},
    );
    say(
      'Modbus: METER000001 and METER000002 are polled by the platform (device page, Modbus variables card)',
    );
  } catch (err) {
    say(`could not set up the Modbus demo: ${err.message}`);
  }
})();

// Gateway rules (docs/gateway-rules.md): a gateway (GW000001) speaking for three RS485 sensors behind it, bound to its
// rule; devsim's gateway mode (--sub-devices) reports their readings on P/up/sub_property and answers their commands,
// so each shows as a device of its own, online while the gateway is.
const GATEWAY_PRODUCT = { product_key: 'gateway-demo', name: '边缘网关（演示）', nodetype: 'gateway' };
const SUB_PRODUCT = {
  product_key: 'subsensor-demo',
  name: 'RS485 温湿度子设备（演示）',
  nodetype: 'sub_device',
};
void (async () => {
  const gatewaySn = 'GW000001';
  const subs = ['S01', 'S02', 'S03'].map((s) => `${gatewaySn}-${s}`);
  try {
    const { token } = await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD });
    const found = await api(base, 'GET', '/api/products?keyword=-demo&per_page=100', undefined, token);
    for (const [product, properties] of [
      [GATEWAY_PRODUCT, []],
      [SUB_PRODUCT, PROPERTIES.filter((p) => p.key === 'temperature' || p.key === 'humidity')],
    ]) {
      if (!found.some((p) => p.product_key === product.product_key))
        await api(base, 'POST', '/api/products', { ...product, properties }, token);
    }
    const rules = await api(base, 'GET', `/api/gateway-rules?keyword=${gatewaySn}`, undefined, token);
    if (rules.length === 0) {
      const have = await api(base, 'GET', `/api/devices?keyword=${gatewaySn}&per_page=20`, undefined, token);
      if (!have.some((d) => d.sn === gatewaySn))
        await api(
          base,
          'POST',
          '/api/devices',
          { product_key: GATEWAY_PRODUCT.product_key, sn: [gatewaySn] },
          token,
        );
      const missing = subs.filter((sn) => !have.some((d) => d.sn === sn));
      if (missing.length > 0)
        await api(base, 'POST', '/api/devices', { product_key: SUB_PRODUCT.product_key, sn: missing }, token);
      const rule = await api(
        base,
        'POST',
        '/api/gateway-rules',
        { name: '锅炉房网关', gateway_sn: gatewaySn },
        token,
      );
      const sub_devices = subs.map((sn, i) => ({ sn, address: String(i + 1), name: `温湿度 ${i + 1}` }));
      await api(base, 'POST', `/api/gateway-rules/${rule.id}/bind`, { sub_devices }, token);
      say(
        `gateway rules: ${gatewaySn} speaks for ${subs.join(', ')} (/rule-setting/gate-way/detail/${rule.id})`,
      );
    }
    devsimGateway = run(
      'devsim-gateway',
      [
        join(root, 'node_modules/tsx/dist/cli.mjs'),
        join(root, 'apps/devsim/src/cli.ts'),
        ...['--api', base, '--password', PASSWORD, '--product', GATEWAY_PRODUCT.product_key],
        ...['--url', `mqtt://127.0.0.1:${MQTT_PORT}`, '--rate', '0.2', '--sub-devices', '3'],
        ...['--status-every', '60'],
      ],
      {},
    );
  } catch (err) {
    say(`could not set up the gateway rules demo: ${err.message}`);
  }
})();

// Alert triggers on a few fleet devices (once they exist): weak signal raises alerts now and then, so the Workplace
// lists active alerts and the bell's message box gets messages (docs/inbox.md).
void (async () => {
  const sns = ['DEMO000001', 'DEMO000002', 'DEMO000003'];
  try {
    const { token } = await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD });
    const existing = await api(base, 'GET', '/api/alert/triggers?per_page=100', undefined, token);
    for (const sn of sns) {
      const name = `信号弱 ${sn}`;
      if (existing.some((tr) => tr.name === name)) continue;
      const there = await waitUntil(async () => {
        const found = await api(base, 'GET', `/api/devices?keyword=${sn}`, undefined, token);
        return found.some((d) => d.sn === sn);
      });
      if (!there) return;
      await api(base, 'POST', '/api/alert/triggers', { name, type: 3, sn, key: 'rssi', a: -75 }, token);
    }
    say(`alert triggers: rssi < -75 on ${sns.join(', ')}`);
  } catch (err) {
    say(`could not create the demo alert triggers: ${err.message}`);
  }
})();

// Shipping, sharing and the open API (docs/device-stock.md, docs/sharing.md, docs/open-api.md): the fleet is stock
// of the admin's; three devices are shipped to the customer "alice", who shares two with "operator" to watch and one
// to control, keeps a share link in My Shares, and holds an access key that still needs verifying (from its list,
// by SMS or email once a channel is set up in System Settings).
const CUSTOMER = { username: 'alice', password: 'Alice2026', nickname: '客户 Alice' };
const OPERATOR = { username: 'operator', password: 'Operator2026', nickname: '值班员' };
void (async () => {
  const shared = { view: ['DEMO000004', 'DEMO000005'], control: ['DEMO000006'] };
  const shipped = [...shared.view, ...shared.control];
  try {
    const admin = (await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD }))
      .token;
    for (const user of [CUSTOMER, OPERATOR]) {
      const found = await api(base, 'GET', `/api/users?keyword=${user.username}`, undefined, admin);
      if (!found.some((u) => u.username === user.username))
        await api(base, 'POST', '/api/users', user, admin);
    }
    const alice = (await api(base, 'POST', '/api/auth/login', CUSTOMER)).token;
    const mine = await api(base, 'GET', '/api/devices?keyword=DEMO00000&per_page=20', undefined, alice);
    if (mine.length === 0) {
      const there = await waitUntil(async () => {
        const found = await api(base, 'GET', '/api/devices?keyword=DEMO00000&per_page=20', undefined, admin);
        return shipped.every((sn) => found.some((d) => d.sn === sn));
      });
      if (!there) return;
      const body = { customer: CUSTOMER.username, sns: shipped, note: 'demo order' };
      await api(base, 'POST', '/api/device-stock/shipments', body, admin);
      for (const [right, sns] of Object.entries(shared))
        await api(base, 'POST', '/api/shares', { sns, to: OPERATOR.username, right }, alice);
      await api(
        base,
        'POST',
        '/api/share-links',
        { sns: [shared.view[0]], right: 'view', max_uses: 3 },
        alice,
      );
      await api(
        base,
        'POST',
        '/api/access-keys',
        { name: 'ERP 同步', scopes: ['devices:read', 'devices:control'], ip_allow: ['127.0.0.1'] },
        alice,
      );
      // A data template (docs/data-templates.md): one Modbus slave with three variables, applied to one of
      // alice's devices; its variables become that device's properties and travel in its configuration.
      const tpl = await demoTemplate(
        base,
        alice,
        { name: '锅炉房', type: 'modbus_rtu', remark: '温度、压力与水泵', collect_mode: 'dtu' },
        { name: '锅炉仪表', address: 1, serial_port: 'rs485' },
        [
          {
            name: '出水温度',
            tag: 'boiler_temp',
            unit: '°C',
            register_type: 'holding',
            register_address: 1,
            data_format: 'int16',
            decimals: 1,
            capture_formula: 'x*0.1',
            sampling_cycle_s: 10,
          },
          {
            name: '管道压力',
            tag: 'pipe_pressure',
            unit: 'MPa',
            register_type: 'input',
            register_address: 3,
            data_format: 'float32',
            decimals: 2,
            sampling_cycle_s: 10,
          },
          {
            name: '水泵',
            tag: 'pump_on',
            register_type: 'coil',
            register_address: 1,
            data_format: 'bool',
            access: 'rw',
            report_method: 'change',
            sampling_cycle_s: 5,
          },
        ],
      );
      await api(base, 'POST', `/api/data-templates/${tpl.id}/devices`, { sns: [shared.control[0]] }, alice);
      // A scene (docs/scenes.md): a boiler-room model whose slot takes any device with that template, made into a
      // live scene of the device and shared read-only with "operator" (who sees it through their device share).
      const box = (x, y, w = 200, h = 64) => ({ x, y, w, h });
      const model = await api(
        base,
        'POST',
        '/api/scene-models',
        {
          name: '锅炉房监控',
          remark: '出水温度、管道压力与水泵',
          slots: [{ name: 'boiler', label: '锅炉', template_id: tpl.id }],
          document: {
            format: 'cellhub.scene',
            version: 1,
            canvas: { width: 960, height: 540, background_color: '#0b1a2e', grid: 10 },
            widgets: [
              {
                id: 'title',
                kind: 'text',
                ...box(40, 24, 400, 48),
                text: '锅炉房 Boiler room',
                style: { color: '#ffffff', font_size: 28 },
              },
              {
                id: 'temp',
                kind: 'value',
                ...box(40, 110),
                binding: { slot: 'boiler', key: 'boiler_temp' },
                unit: '°C',
                decimals: 1,
                thresholds: [{ from: 85, color: '#f53f3f' }],
              },
              {
                id: 'temp_gauge',
                kind: 'gauge',
                ...box(280, 90, 200, 200),
                binding: { slot: 'boiler', key: 'boiler_temp' },
                min: 0,
                max: 120,
                unit: '°C',
              },
              {
                id: 'pressure',
                kind: 'bar',
                ...box(520, 90, 60, 200),
                binding: { slot: 'boiler', key: 'pipe_pressure' },
                min: 0,
                max: 2,
              },
              {
                id: 'pump_lamp',
                kind: 'lamp',
                ...box(640, 110, 64, 64),
                binding: { slot: 'boiler', key: 'pump_on' },
              },
              {
                id: 'pump',
                kind: 'switch',
                ...box(740, 110, 160, 64),
                binding: { slot: 'boiler', key: 'pump_on' },
                write: { mode: 'property' },
              },
              {
                id: 'trend',
                kind: 'trend',
                ...box(40, 320, 620, 180),
                binding: { slot: 'boiler', key: 'boiler_temp' },
                minutes: 60,
              },
              {
                id: 'open',
                kind: 'link',
                ...box(700, 420, 200, 48),
                target: { slot: 'boiler' },
                label: '设备详情',
              },
            ],
          },
        },
        alice,
      );
      const scene = await api(
        base,
        'POST',
        '/api/scenes/from-model',
        { model_id: model.id, name: `锅炉房 ${shared.control[0]}`, bindings: { boiler: shared.control[0] } },
        alice,
      );
      await api(base, 'POST', `/api/scenes/${scene.id}/shares`, { to: OPERATOR.username }, alice);
    }
    say(
      `shipped ${shipped.join(', ')} to "${CUSTOMER.username}" (password ${CUSTOMER.password}), who shares them ` +
        `with "${OPERATOR.username}" (password ${OPERATOR.password}) and holds a share link, an access key and a ` +
        `data template applied to ${shared.control[0]}, with a scene of it`,
    );
  } catch (err) {
    say(`could not set up the shipping and sharing demo: ${err.message}`);
  }
})();

// Firmware and OTA (docs/ota.md): the demo product's main firmware with the version the fleet runs and a newer one;
// a canary task upgrades four devsim DTUs in waves of two (devsim downloads, checks and installs it), and a second
// task for the whole fleet (the canaries skipped as already upgraded) waits to be started from the console.
const OTA_CANARY = ['DEMO000007', 'DEMO000008', 'DEMO000009', 'DEMO000010'];
void (async () => {
  if (DEVICES < 10) return;
  try {
    const { token } = await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD });
    const name = 'DTU-4G 主固件';
    const existing = await api(
      base,
      'GET',
      `/api/firmware?keyword=${encodeURIComponent(name)}`,
      undefined,
      token,
    );
    if (existing.some((f) => f.name === name)) return;
    const fw = await api(
      base,
      'POST',
      '/api/firmware',
      {
        name,
        product_key: PRODUCT.product_key,
        // Release firmware (0 is test firmware).
        type: 1,
        objname: 'mcu',
        description: 'Demo firmware: the image devsim DTUs download, check and install',
      },
      token,
    );
    const versions = {};
    for (const [version, latest, description] of [
      ['1.0.0', false, '出厂版本'],
      ['1.1.0', true, '修复断线重连；新增 Modbus 轮询间隔设置'],
    ]) {
      // A made-up binary image of 96 KiB: devsim checks its size and checksum, not what it holds.
      const bytes = Buffer.alloc(96 * 1024);
      for (let i = 0; i < bytes.length; i++)
        bytes[i] = (i * 131 + version.length * 17 + (i >> 7) + (latest ? 1 : 0)) & 0xff;
      const form = new FormData();
      form.append('version', version);
      form.append('description', description);
      form.append('latest', String(latest));
      form.append('file', new Blob([bytes]), `dtu4g-${version}.bin`);
      versions[version] = await api(base, 'POST', `/api/firmware/${fw.id}/versions`, form, token);
    }
    // The canary devices must be online to take the upgrade at once (the task would wait for them otherwise).
    const online = await waitUntil(async () => {
      const found = await Promise.all(
        OTA_CANARY.map((sn) => api(base, 'GET', `/api/devices/${sn}`, undefined, token).catch(() => null)),
      );
      return found.every((d) => d?.online);
    });
    if (!online) return;
    const policy = { wave_type: 'count', wave_size: 2, wave_pause_s: 5 };
    const canary = await api(
      base,
      'POST',
      '/api/ota/tasks',
      {
        name: 'DTU-4G 1.1.0 灰度升级（演示）',
        description: '四台设备，每批两台',
        product_key: PRODUCT.product_key,
        version_id: versions['1.1.0'].id,
        targets: { type: 'pick', sns: OTA_CANARY },
        policy,
      },
      token,
    );
    await api(base, 'POST', `/api/ota/tasks/${canary.id}/start`, undefined, token);
    await api(
      base,
      'POST',
      '/api/ota/tasks',
      {
        name: 'DTU-4G 1.1.0 全量升级（演示）',
        description: '整个车队（已是 1.1.0 的跳过），从控制台启动',
        product_key: PRODUCT.product_key,
        version_id: versions['1.1.0'].id,
        // The fleet's serial numbers (DEMO-OFFLINE-1 never connects); devices already on 1.1.0 are skipped.
        targets: { type: 'filter', keyword: 'DEMO0' },
        policy: { ...policy, wave_size: 10 },
      },
      token,
    );
    say(
      `OTA: ${name} 1.0.0 and 1.1.0; a canary task upgrades ${OTA_CANARY.join(', ')} (/ota/task/${canary.id})`,
    );
  } catch (err) {
    say(`could not set up the OTA demo: ${err.message}`);
  }
})();

// Configuration templates and saved commands (docs/device-protocol.md "Configuration"): an APN template
// applied to two DTUs (devsim takes it and reports the new configuration: both sync), and a saved Modbus read sent to
// three, whose replies fill the run's table.
void (async () => {
  if (DEVICES < 10) return;
  try {
    const { token } = await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD });
    const name = '移动物联网 APN（演示）';
    const found = await api(
      base,
      'GET',
      `/api/config-templates?keyword=${encodeURIComponent('演示')}`,
      undefined,
      token,
    );
    if (found.some((t) => t.name === name)) return;
    const sns = ['DEMO000001', 'DEMO000003'];
    const online = await waitUntil(async () => {
      const have = await api(base, 'GET', '/api/devices?keyword=DEMO00000&per_page=20', undefined, token);
      return sns.every((sn) => have.some((d) => d.sn === sn && d.online));
    });
    if (!online) return;
    const template = await api(
      base,
      'POST',
      '/api/config-templates',
      {
        name,
        description: 'APN cmiot；Socket 2 连到数据中心',
        config: { global: { apn: { name: 'cmiot' } }, socket: [{}, { server: 'tcp.example.com' }] },
      },
      token,
    );
    await api(base, 'POST', `/api/config-templates/${template.id}/apply`, { sns }, token);
    const command = await api(
      base,
      'POST',
      '/api/user-commands',
      {
        name: '读取保持寄存器（演示）',
        type: 'hex',
        data: '01030000000AC5CD',
        description: '从站 1，地址 0 起 10 个寄存器',
      },
      token,
    );
    await api(
      base,
      'POST',
      `/api/user-commands/${command.id}/send`,
      { sns: ['DEMO000001', 'DEMO000002', 'DEMO000003'] },
      token,
    );
    say(
      `configuration template ${name} applied to ${sns.join(', ')} (/device/config-template/${template.id}); ` +
        `saved command sent to DEMO000001-3`,
    );
  } catch (err) {
    say(`could not set up the configuration template and command demo: ${err.message}`);
  }
})();

// SIM cards (docs/sim.md): a manual provider account holds the cards the first ten DTUs report, on a monthly
// package; "alice" gets a balance top-up and renews the card of one of her devices with a yearly package.
void (async () => {
  if (DEVICES < 10) return;
  try {
    const admin = (await api(base, 'POST', '/api/auth/login', { username: 'admin', password: PASSWORD }))
      .token;
    const providerName = '中国移动（手工维护，演示）';
    const providers = await api(
      base,
      'GET',
      `/api/card-admin/providers?keyword=${encodeURIComponent('演示')}`,
      undefined,
      admin,
    );
    if (providers.some((p) => p.name === providerName)) return;
    const provider = await api(
      base,
      'POST',
      '/api/card-admin/providers',
      { name: providerName, kind: 'manual', operator: 'china_mobile', remark: 'demo' },
      admin,
    );
    const pkg = (body) => api(base, 'POST', '/api/packages', { operator: 'china_mobile', ...body }, admin);
    const monthly = await pkg({
      name: '月包 1GB',
      code: 'DEMO-M1G',
      type: 'monthly',
      validity_unit: 'month',
      validity_count: 1,
      flow_mb: 1024,
      price_fen: 1000,
      remark: '按月续费，适合每 5 秒上报的 DTU',
    });
    const yearly = await pkg({
      name: '年包 每月 500MB',
      code: 'DEMO-Y500M',
      type: 'monthly',
      validity_unit: 'year',
      validity_count: 1,
      flow_mb: 500,
      price_fen: 6000,
      remark: '一次买一年，每月 1 日重置流量',
    });
    // Devices report their ICCID with P/up/info when they connect.
    const sns = Array.from({ length: 10 }, (_, i) => `DEMO${String(i + 1).padStart(6, '0')}`);
    const iccids = new Map();
    const reported = await waitUntil(async () => {
      for (const sn of sns.filter((s) => !iccids.has(s))) {
        const d = await api(base, 'GET', `/api/devices/${sn}`, undefined, admin).catch(() => null);
        if (d?.iccid) iccids.set(sn, d.iccid);
      }
      return iccids.size === sns.length;
    });
    if (!reported) return;
    for (const [sn, iccid] of iccids) {
      await api(
        base,
        'POST',
        '/api/card-admin/cards',
        { iccid, operator: 'china_mobile', provider_id: provider.id, package_id: monthly.id, remark: sn },
        admin,
      );
      // In service, as the cards of devices that are online are.
      await api(base, 'POST', `/api/card-admin/cards/${iccid}/status`, { action: 'activate' }, admin);
    }
    // Daily usage of the last ten days, as a manual provider's operator export would give it.
    const lines = ['iccid,date,used_mb'];
    [...iccids.values()].forEach((iccid, n) => {
      for (let d = 9; d >= 0; d--) {
        const date = new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
        lines.push(`${iccid},${date},${(((n + 3) * (d + 7) * 37) % 90) / 2 + 3}`);
      }
    });
    const usage = new FormData();
    usage.append('file', new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }), 'usage.csv');
    await api(base, 'POST', '/api/card-admin/usage/import', usage, admin);
    // One card out of service: the status filter and tag show it, and the full OTA rollout skips its device.
    await api(
      base,
      'POST',
      `/api/card-admin/cards/${iccids.get('DEMO000002')}/status`,
      { action: 'suspend' },
      admin,
    );

    // Alice exists and owns DEMO000004 once the shipping demo above has run.
    let alice;
    let aliceToken;
    const shipped = await waitUntil(async () => {
      const users = await api(base, 'GET', `/api/users?keyword=${CUSTOMER.username}`, undefined, admin);
      alice = users.find((u) => u.username === CUSTOMER.username);
      if (!alice) return false;
      aliceToken ??= (await api(base, 'POST', '/api/auth/login', CUSTOMER)).token;
      const mine = await api(base, 'GET', '/api/devices?keyword=DEMO000004', undefined, aliceToken);
      return mine.length > 0;
    });
    if (!shipped) return;
    await api(
      base,
      'POST',
      '/api/balance/topups',
      { uid: alice.uid, amount_fen: 20000, note: '演示充值' },
      admin,
    );
    await api(
      base,
      'POST',
      '/api/orders',
      { package_id: yearly.id, iccids: [iccids.get('DEMO000004')], pay: true },
      aliceToken,
    );
    say(
      `SIM: ${iccids.size} cards of DEMO000001-10 on ${monthly.name}; alice renewed DEMO000004 with ${yearly.name}`,
    );
  } catch (err) {
    say(`could not set up the SIM demo: ${err.message}`);
  }
})();

say('');
say(`console:  http://localhost:${PORT}   user admin   password ${PASSWORD}`);
say(
  `devices:  ${DEVICES} x ${PRODUCT.name}, MQTT on port ${MQTT_PORT}, about a fifth of them drop off and come back`,
);
say('Ctrl-C stops both.');
say('');
