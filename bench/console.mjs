#!/usr/bin/env node
// `npm run bench:console`: what a browser must download before the /login form is usable, and how long until
// the sign-in button is visible in Chromium with a cold cache, at 1x and 4x CPU throttling.
// Targets (issue 2): <= 130 KB gzipped JS, <= 20 KB gzipped CSS, <= 1.2 s at 4x.
// Options: --runs N (default 7), --no-build (reuse apps/console/dist).
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'apps/console/dist');
const argv = process.argv.slice(2);
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
/* global document, getComputedStyle */
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
await browser.close();
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
