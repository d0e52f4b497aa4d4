#!/usr/bin/env node
// `npm run bench:console`: what a browser must download before the /login form is usable, and how long until
// the sign-in button is visible in Chromium with a cold cache, at 1x and 4x CPU throttling.
// Targets (issue 2): <= 130 KB gzipped JS, <= 20 KB gzipped CSS, <= 1.2 s at 4x.
// Then, signed in against the real server (apps/server/dist, in-memory database), the Workplace, the device list
// and a device detail: requests and compressed bytes (gz and br copies the build wrote) before the content shows,
// and the median time to content at 1x and 4x CPU. Targets (issue 13): <= 300 KB compressed JS and <= 20
// requests before the content, content within 2 s at 4x. Prints the load average (the machine may be shared).
// Options: --runs N (default 7), --no-build (reuse apps/console/dist and apps/server/dist), --dist DIR, --list
// (print each signed-in page's requests before its content).
import { spawn, spawnSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
// --dist DIR: a console built elsewhere (with --no-build), e.g. while others rebuild apps/console/dist.
const dist = argv.includes('--dist')
  ? resolve(argv[argv.indexOf('--dist') + 1])
  : join(root, 'apps/console/dist');
const runs = Number(argv[argv.indexOf('--runs') + 1]) || 7;
const TARGET = { js: 130 * 1024, css: 20 * 1024, ms4x: 1200 };

if (!argv.includes('--no-build')) {
  const r = spawnSync('npm', ['run', 'build', '-w', 'apps/console'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
if (!existsSync(join(dist, 'index.html'))) {
  console.error('apps/console/dist/index.html is missing');
  process.exit(1);
}

const TYPES = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

// A plain static server with the SPA fallback; /api answers "not signed in" like the real server would.
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname.startsWith('/api/')) {
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 10102, message: 'Login expired, please sign in again' }));
    return;
  }
  let file = normalize(join(dist, decodeURIComponent(url.pathname)));
  if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory())
    file = join(dist, 'index.html');
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'cache-control': 'no-store',
  });
  createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});

/** The sign-in button of the login form, visible and enabled: the moment the form is usable. */
/* global document, getComputedStyle, window */
const signInVisible = () => {
  const b = document.querySelector('[data-testid="login-submit"]');
  if (!b) return false;
  const r = b.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(b).visibility !== 'hidden'
    ? performance.now()
    : false;
};

async function once(rate, collect) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (rate > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  const assets = new Map();
  let ready = false;
  page.on('response', (r) => {
    if (ready) return;
    const t = r.request().resourceType();
    if (t === 'script' || t === 'stylesheet') assets.set(new URL(r.url()).pathname, t);
  });
  await page.goto(`${base}/login`, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(signInVisible, null, { polling: 'raf', timeout: 30_000 });
  ready = true;
  const ms = await handle.jsonValue();
  if (collect) collect(assets);
  await context.close();
  return ms;
}

let assets = new Map();
await once(1, (a) => (assets = a)); // warm-up run that also records what the route needs
const sizes = { js: { raw: 0, gz: 0 }, css: { raw: 0, gz: 0 } };
const files = [];
for (const [path, type] of assets) {
  const buf = readFileSync(join(dist, path));
  const kind = type === 'script' ? 'js' : 'css';
  const gz = gzipSync(buf, { level: 9 }).length;
  sizes[kind].raw += buf.length;
  sizes[kind].gz += gz;
  files.push({ path, kind, raw: buf.length, gz });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const times = {};
for (const rate of [1, 4]) {
  const xs = [];
  for (let i = 0; i < runs; i++) xs.push(await once(rate));
  times[rate] = median(xs);
}
server.close();

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log('\nConsole bundle for /login (before the sign-in button is usable)');
for (const f of files.sort((a, b) => b.gz - a.gz))
  console.log(`  ${f.kind.padEnd(3)} ${kb(f.raw).padStart(10)} raw ${kb(f.gz).padStart(9)} gz  ${f.path}`);
const ok = (v, t) => (v <= t ? 'ok' : 'OVER');
console.log(
  `JS  ${kb(sizes.js.raw)} raw, ${kb(sizes.js.gz)} gzipped (target <= ${kb(TARGET.js)}: ${ok(sizes.js.gz, TARGET.js)})`,
);
console.log(
  `CSS ${kb(sizes.css.raw)} raw, ${kb(sizes.css.gz)} gzipped (target <= ${kb(TARGET.css)}: ${ok(sizes.css.gz, TARGET.css)})`,
);
console.log(
  `sign-in button visible, median of ${runs} cold loads: 1x ${times[1].toFixed(0)} ms, 4x ${times[4].toFixed(0)} ms (target 4x <= ${TARGET.ms4x} ms: ${ok(times[4], TARGET.ms4x)})`,
);

// ---- signed-in pages against the real server ----
if (!argv.includes('--no-build')) {
  const r = spawnSync('npm', ['run', 'build', '-w', 'apps/server'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const dataDir = mkdtempSync(join(tmpdir(), 'cellhub-bench-console-'));
const port = 20000 + Math.floor(Math.random() * 20000);
const api = `http://127.0.0.1:${port}`;
const child = spawn(process.execPath, [join(root, 'apps/server/dist/main.js')], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    CONSOLE_DIST: dist,
    DATABASE_URL: 'memory://',
    PORT: String(port),
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    CELLHUB_ADMIN_PASSWORD: 'BenchAdmin123',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
try {
  for (let i = 0; ; i++) {
    const ok = await fetch(`${api}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 600) throw new Error('server did not answer /api/health');
    await new Promise((r) => setTimeout(r, 100));
  }
  const call = async (method, path, body, token) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json();
    if (!json.status) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json.data;
  };
  const { token } = await call('POST', '/api/auth/login', { username: 'admin', password: 'BenchAdmin123' });
  const product = await call('POST', '/api/products', { name: 'Bench DTU' }, token);
  const sns = Array.from({ length: 20 }, (_, i) => `bench${String(i).padStart(3, '0')}`);
  await call('POST', '/api/devices', { product_key: product.product_key, sn: sns }, token);

  const PAGES = [
    { name: 'Workplace', path: '/dashboard/workplace', text: null },
    // The list shows the newest first.
    { name: 'Device list', path: '/device/list', text: sns.at(-1) },
    { name: 'Device detail', path: `/device/detail/${product.product_key}/${sns[0]}`, text: sns[0] },
  ];
  /** Content: the page's own text in the layout's content area (the Workplace: any card there). */
  const contentShown = (text) => {
    const main = document.querySelector('.arco-layout-content') ?? document.body;
    const ok = text
      ? [...main.querySelectorAll('a, td, span, div, h1, h2, h3, h4, h5, h6')].some(
          (el) =>
            el.childElementCount === 0 &&
            el.textContent?.trim() === text &&
            el.getBoundingClientRect().width > 0,
        )
      : [...main.querySelectorAll('.arco-card')].some((el) => el.getBoundingClientRect().height > 0);
    return ok ? performance.now() : false;
  };
  const onePage = async (page, rate) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript((t) => {
      window.localStorage.setItem('token', t);
      window.localStorage.setItem('arco-locale', 'en-US');
    }, token);
    const tab = await context.newPage();
    const cdp = await context.newCDPSession(tab);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    if (rate > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    const requests = [];
    const errors = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    let done = false;
    tab.on('request', (r) => {
      if (!done) requests.push({ url: new URL(r.url()).pathname, type: r.resourceType() });
    });
    await tab.goto(`${api}${page.path}`, { waitUntil: 'commit' });
    const handle = await tab
      .waitForFunction(contentShown, page.text, { polling: 'raf', timeout: 60_000 })
      .catch(async (e) => {
        const shot = join(root, 'test-results', `bench-console-${page.name.replace(/\W+/g, '-')}.png`);
        await tab.screenshot({ path: shot });
        throw new Error(
          `${page.name} at ${rate}x: no content within 60 s (screenshot ${shot}; page errors: ${errors.join('; ') || 'none'})`,
          { cause: e },
        );
      });
    done = true;
    const ms = await handle.jsonValue();
    await context.close();
    return { ms, requests };
  };
  const sizeOf = (path, ext) => {
    const f = join(dist, path);
    if (existsSync(`${f}${ext}`)) return statSync(`${f}${ext}`).size;
    return existsSync(f) ? statSync(f).size : 0;
  };
  const rows = [];
  for (const page of PAGES) {
    const { requests } = await onePage(page, 1);
    const assets = requests.filter((r) => r.type === 'script' || r.type === 'stylesheet');
    const sum = (type, ext) =>
      assets.filter((r) => r.type === type).reduce((a, r) => a + sizeOf(r.url, ext), 0);
    const times = {};
    for (const rate of [1, 4]) {
      const xs = [];
      for (let i = 0; i < runs; i++) xs.push((await onePage(page, rate)).ms);
      times[rate] = median(xs);
    }
    // --list: what was requested before the content, in order (which files a page still waits for).
    if (argv.includes('--list'))
      console.log(`\n${page.name}: ${requests.map((r) => `${r.type} ${r.url}`).join('\n  ')}`);
    rows.push({
      page: page.name,
      requests: requests.length,
      js: assets.filter((r) => r.type === 'script').length,
      css: assets.filter((r) => r.type === 'stylesheet').length,
      jsGz: sum('script', '.gz'),
      jsBr: sum('script', '.br'),
      cssGz: sum('stylesheet', '.gz'),
      cssBr: sum('stylesheet', '.br'),
      api: requests.filter((r) => r.url.startsWith('/api/')).length,
      ms1: times[1],
      ms4: times[4],
    });
  }
  console.log(
    `\nSigned-in pages (admin, ${sns.length} devices), before the content shows; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const r of rows) {
    console.log(
      `  ${r.page.padEnd(13)} ${String(r.requests).padStart(3)} requests (${r.js} JS, ${r.css} CSS, ${r.api} API; target <= 20: ${ok(r.requests, 20)})` +
        `  JS ${kb(r.jsGz)} gz / ${kb(r.jsBr)} br (target <= 300 KB: ${ok(r.jsBr, 300 * 1024)})  CSS ${kb(r.cssGz)} gz / ${kb(r.cssBr)} br` +
        `  content 1x ${r.ms1.toFixed(0)} ms, 4x ${r.ms4.toFixed(0)} ms (target 4x <= 2000 ms: ${ok(r.ms4, 2000)})`,
    );
  }
} finally {
  await browser.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
