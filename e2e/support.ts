import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';
import { E2E } from './env';

interface Envelope<T> {
  status?: true;
  data: T;
  code?: number;
  message?: string;
}

/** Calls the real API the way another program would; answers the HTTP status and the parsed body. */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: Envelope<T> }> {
  const res = await fetch(`${E2E.baseURL}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Envelope<T> };
}

/** A device's MQTT identity, as the API shows it to its owner. */
export interface Identity {
  sn: string;
  product_key: string;
  secret: string;
}

/** A new product `<prefix>-DTU` and `count` devices of it, created through the API, with their MQTT identities. */
export async function devicesFor(token: string, count: number, prefix: string): Promise<Identity[]> {
  const product = await api<{ product_key: string }>(
    'POST',
    '/api/products',
    { name: `${prefix}-DTU` },
    token,
  );
  expect(product.status, JSON.stringify(product.body)).toBe(200);
  const sns = Array.from({ length: count }, (_, i) => `${uniqueName(prefix).toUpperCase()}-${i + 1}`);
  const created = await api(
    'POST',
    '/api/devices',
    { product_key: product.body.data.product_key, sn: sns },
    token,
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const out: Identity[] = [];
  for (const sn of sns) {
    const d = await api<Identity>('GET', `/api/devices/${sn}`, undefined, token);
    out.push({ sn, product_key: d.body.data.product_key, secret: d.body.data.secret });
  }
  return out;
}

export const PASSWORD = 'Passw0rdE2e';

let seq = 0;
/** A username no other test (or earlier run against the same server) has used. */
export function uniqueName(prefix = 'user'): string {
  return `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}${Math.floor(Math.random() * 1000)}`;
}

let adminToken: string | undefined;

/**
 * A fresh ordinary user, opened by the admin through the API (POST /api/users); every test gets its own. Public
 * registration is limited per address and is tested through the form in register.spec.ts.
 */
export async function newUser(prefix = 'user'): Promise<{ username: string; password: string; uid: number }> {
  const username = uniqueName(prefix);
  const password = PASSWORD;
  adminToken ??= await tokenFor(admin.username, admin.password);
  const r = await api<{ uid: number }>('POST', '/api/users', { username, password }, adminToken);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { username, password, uid: r.body.data.uid };
}

export async function tokenFor(username: string, password: string): Promise<string> {
  const r = await api<{ token: string }>('POST', '/api/auth/login', { username, password });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.token;
}

export const admin = { username: 'admin', password: E2E.adminPassword };

/**
 * Where screenshots go when someone asks for them: E2E_SCREENSHOTS_DIR, or test-results/screenshots with
 * SCREENSHOTS=1. Unset (every ordinary run), no screenshot is taken.
 */
export const SCREENSHOTS_DIR =
  process.env.E2E_SCREENSHOTS_DIR ??
  (process.env.SCREENSHOTS ? join('test-results', 'screenshots') : undefined);

/**
 * Takes `<name>.png` of a page or element only when screenshots are asked for. `settle` runs first and only then:
 * what a picture needs (a tooltip moved away, an animation finished) never slows or decides a test.
 */
export async function screenshot(
  target: Page | Locator,
  name: string,
  options: { fullPage?: boolean; settle?: () => Promise<void> } = {},
): Promise<void> {
  if (!SCREENSHOTS_DIR) return;
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  await options.settle?.();
  const path = join(SCREENSHOTS_DIR, `${name}.png`);
  await ('goto' in target
    ? target.screenshot({ path, fullPage: options.fullPage })
    : target.screenshot({ path }));
}

/** A mainland mobile number no other test uses (numbers are unique per account). */
export function uniquePhone(): string {
  const tail =
    `${Date.now() % 1e5}`.padStart(5, '0') + `${Math.floor(Math.random() * 1000)}`.padStart(3, '0');
  return `139${tail}`;
}

/** The last SMS code the server's log provider wrote for a phone (SMS_CODE_LOG_FILE). */
export function lastSmsCode(phone: string): string | undefined {
  let text = '';
  try {
    text = readFileSync(E2E.smsLog, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith(`${phone} `));
  return lines.at(-1)?.split(' ')[1];
}

/** Waits until the log provider has written a code for `phone` other than `previous`. */
export async function nextSmsCode(phone: string, previous?: string): Promise<string> {
  let code: string | undefined;
  await expect
    .poll(() => {
      code = lastSmsCode(phone);
      return code !== undefined && code !== previous;
    })
    .toBe(true);
  expect(code).toMatch(/^\d{6}$/);
  return code!;
}

/** The API answers 403 with code 10102 to a token that no longer works. */
export async function expectTokenRefused(token: string): Promise<void> {
  const r = await api('GET', '/api/user/info', undefined, token);
  expect(r.status).toBe(403);
  expect(r.body.code).toBe(10102);
  expect(r.body.status).toBeUndefined();
}

/** Fills and submits the username/password tab of the login page (already open), agreement ticked. */
export async function submitLogin(page: Page, username: string, password: string): Promise<void> {
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await agreeToTerms(page);
  await page.getByTestId('login-submit').click();
}

/**
 * Ticks the user agreement box. The middle of its label is the agreement link (which opens the text instead),
 * so the click goes to the box itself.
 */
export async function agreeToTerms(page: Page): Promise<void> {
  const agree = page.getByTestId('agreement-checkbox');
  if (!(await agree.isChecked())) await agree.locator('.arco-checkbox-mask').click();
  await expect(agree).toBeChecked();
}

/** Signs in through the login form (username and password tab) and waits for the Workplace. */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/login');
  await submitLogin(page, username, password);
  await page.waitForURL(/\/dashboard\/workplace$/);
  await expect(sideMenu(page)).toBeVisible();
}

/** The signed-in token as the console stored it (seed section 4: localStorage key `token`). */
export function storedToken(page: Page): Promise<string | null> {
  return page.evaluate(() => localStorage.getItem('token'));
}

export function sideMenu(page: Page): Locator {
  return page.getByTestId('side-menu');
}

/** A first-level menu entry by its exact (translated) title. */
export function menuEntry(page: Page, title: string): Locator {
  return sideMenu(page).getByText(title, { exact: true });
}

/** Opens the settings drawer from the navbar gear and answers the drawer. */
export async function openSettings(page: Page): Promise<Locator> {
  await page.getByTestId('navbar-settings').getByRole('button').click();
  const drawer = page.getByTestId('settings-drawer').locator('.arco-drawer');
  await expect(drawer).toBeVisible();
  return drawer;
}

/** The toast text of Arco's Message (top of the page). */
export function toast(page: Page, text: string | RegExp): Locator {
  return page.locator('.arco-message').filter({ hasText: text });
}

/**
 * Runs `fn` while no other test worker runs one with the same name: for server-wide state two specs both change,
 * such as the email settings of /system/setting (each spec points them at its own SMTP server). The lock is a
 * directory in the run's DATA_DIR (mkdir is atomic; the server start wipes it); one older than `staleMs` is taken
 * to be left over by a killed worker.
 */
export async function exclusive<T>(name: string, fn: () => Promise<T>, staleMs = 180_000): Promise<T> {
  const dir = join(E2E.dataDir, `e2e-lock-${name}`);
  for (;;) {
    try {
      mkdirSync(dir);
      break;
    } catch {
      try {
        if (Date.now() - statSync(dir).mtimeMs > staleMs) rmSync(dir, { recursive: true, force: true });
      } catch {
        // Released between the two calls.
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
