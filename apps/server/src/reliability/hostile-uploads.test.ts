import { existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import type { Packet } from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorCode } from '@cellhub/contract/errors';
import { upTopic } from '@cellhub/contract/protocol';
import { buildTestApp, errorOf, type TestApp } from '../test/app';
import { RawDevice } from '../test/raw-device';
import { figure, sized } from './figures';
import {
  BOUNDARY,
  deflateBomb,
  harmlessFile,
  type HostileBody,
  hostileCases,
  hostileNames,
  multipartBody,
  type RouteKind,
  xlsx,
} from './hostile-files';

/**
 * Issue 20, uploads and exports. Every hostile file of hostile-files.ts goes to every upload route of its kind (the
 * routes are found in the OpenAPI document: a new upload route fails the inventory check until it is added here).
 * A refusal must carry a code of the contract's table with a 4xx status, leave no file under DATA_DIR and no row
 * in the tables the route writes. Then every CSV and .xlsx export is read back with data whose text starts with
 * a formula character: no cell may reach a spreadsheet as a formula.
 */

const SIZES = {
  // MiB the bombs inflate to: within the 2 MB .xlsx limit either way (about 1 KB of deflate per MiB).
  bombMb: sized(1024, 1900),
  longLineBytes: sized(6 * 1024 * 1024, 100 * 1024 * 1024),
};

/** Every file under `dir` with its size, relative to it. */
function filesUnder(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), st.size);
    }
  };
  walk(dir);
  return out;
}

const newFiles = (before: Map<string, number>, after: Map<string, number>) =>
  [...after.keys()].filter((k) => before.get(k) !== after.get(k));

interface Route {
  kind: RouteKind;
  label: string;
  url: string;
  /** The text fields the route needs besides the file (a fresh version per call). */
  fields: () => Record<string, string>;
}

/** The tables the upload routes write: a refusal changes none of them. */
const COUNTED = [
  'devices',
  'sim_cards',
  'sim_usage_daily',
  'data_template_variables',
  'scene_images',
  'firmware_versions',
  'application_versions',
  'scenes',
  'scene_models',
];

let t: TestApp;
let admin: string;
let routes: Route[];
let uploadPaths: string[];
const pk = `pkhostile${Date.now().toString(36)}`;
let version = 0;

async function counts(): Promise<Record<string, number>> {
  const res = await t.app.deps.db.execute(
    sql.raw(`select ${COUNTED.map((n) => `(select count(*)::int from ${n}) as ${n}`).join(', ')}`),
  );
  const rows = (Array.isArray(res) ? res : (res as { rows: unknown[] }).rows) as Record<string, number>[];
  return rows[0]!;
}

async function ok<T>(res: { statusCode: number; body: string; json(): unknown }): Promise<T> {
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: T }).data;
}

beforeAll(async () => {
  t = await buildTestApp({ config: { mqttPort: 0 } });
  admin = await t.adminToken();
  await ok(
    await t.inject({
      method: 'POST',
      url: '/api/products',
      token: admin,
      payload: { name: 'Hostile', product_key: pk },
    }),
  );
  const fw = await ok<{ id: number }>(
    await t.inject({
      method: 'POST',
      url: '/api/firmware',
      token: admin,
      payload: { name: 'fw', product_key: pk },
    }),
  );
  const application = await ok<{ id: number }>(
    await t.inject({
      method: 'POST',
      url: '/api/applications',
      token: admin,
      payload: { name: 'hostile', platform: 'other' },
    }),
  );
  const template = await ok<{ id: number }>(
    await t.inject({
      method: 'POST',
      url: '/api/data-templates',
      token: admin,
      payload: { name: 'Hostile', type: 'modbus_rtu', remark: '', collect_mode: 'dtu' },
    }),
  );
  const slave = await ok<{ id: number }>(
    await t.inject({
      method: 'POST',
      url: `/api/data-templates/${template.id}/slaves`,
      token: admin,
      payload: { name: 'Slave', address: 1, serial_port: 'rs485' },
    }),
  );
  const scene = await ok<{ id: number }>(
    await t.inject({
      method: 'POST',
      url: '/api/scenes',
      token: admin,
      payload: {
        name: 'Hostile',
        document: { format: 'cellhub.scene', version: 1, canvas: { width: 100, height: 100 }, widgets: [] },
      },
    }),
  );
  const none = () => ({});
  const versioned = () => ({ version: `9.${++version}.0` });
  routes = [
    { kind: 'table', label: 'devices import', url: `/api/devices/import?product_key=${pk}`, fields: none },
    { kind: 'table', label: 'SIM card batch', url: '/api/card-admin/cards/batch', fields: none },
    { kind: 'table', label: 'SIM usage import', url: '/api/card-admin/usage/import', fields: none },
    {
      kind: 'sheet',
      label: 'template variables import',
      url: `/api/data-templates/${template.id}/slaves/${slave.id}/variables/import`,
      fields: none,
    },
    { kind: 'image', label: 'scene image', url: `/api/scenes/${scene.id}/images`, fields: none },
    { kind: 'binary', label: 'firmware version', url: `/api/firmware/${fw.id}/versions`, fields: versioned },
    {
      kind: 'binary',
      label: 'application version',
      url: `/api/applications/${application.id}/versions`,
      fields: versioned,
    },
    { kind: 'json', label: 'scene import', url: '/api/scenes/import', fields: none },
    { kind: 'json', label: 'scene model import', url: '/api/scene-models/import', fields: none },
  ];
  const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
    paths: Record<string, Record<string, { summary?: string; description?: string }>>;
  };
  // Upload routes say so in their summary or description (multipart, or a file to import).
  uploadPaths = Object.entries(doc.paths)
    .flatMap(([p, ops]) =>
      Object.entries(ops)
        .filter(
          ([m, op]) =>
            (m === 'post' || m === 'put') &&
            /multipart|import .*file|file as a new/i.test(`${op.summary ?? ''} ${op.description ?? ''}`),
        )
        .map(([m]) => `${m.toUpperCase()} ${p}`),
    )
    .sort();
  // The app's start and this setup (product, firmware, template, scene) can pass the suite's 120 s on a busy machine.
}, 300_000);
afterAll(() => t?.close());

function request(route: Route, body: HostileBody) {
  if ('json' in body) {
    return t.inject({
      method: 'POST',
      url: route.url,
      token: admin,
      headers: { 'content-type': 'application/json' },
      payload: body.json,
    });
  }
  const fields = route.fields();
  const payload =
    'raw' in body ? body.raw(fields) : multipartBody({ ...fields, ...body.extraFields }, [body.file]);
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  if ('raw' in body && body.contentLength !== undefined)
    headers['content-length'] = String(body.contentLength);
  return t.inject({ method: 'POST', url: route.url, token: admin, headers, payload });
}

/** A refusal: a 4xx answer whose body is the contract's error with a code of its table. */
function refusal(res: { statusCode: number; body: string }): string | undefined {
  if (res.statusCode < 400 || res.statusCode >= 500) return `HTTP ${res.statusCode}`;
  let code: unknown;
  try {
    code = errorOf(res as Parameters<typeof errorOf>[0]).code;
  } catch (err) {
    return `no error body: ${String(err)}`;
  }
  return isErrorCode(code) ? undefined : `unknown code ${String(code)}`;
}

/** What a recorded file name must not hold: a directory part, control characters, bidi controls. */
// eslint-disable-next-line no-control-regex
const INERT_NAME_BREAKERS = /[/\\\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069\u200e\u200f]/;

/** Files that may be accepted where they are harmless: a GIF that is also text is a GIF, served as one. */
const MAY_ACCEPT: Record<string, RouteKind[]> = { 'polyglot-gif-js': ['image', 'binary'] };

describe('hostile uploads', () => {
  it('finds every upload route of the OpenAPI document among the routes tried', () => {
    const tried = new Set(routes.map((r) => r.url.split('?')[0]!.replace(/\/\d+(?=\/|$)/g, '/{id}')));
    const normalised = uploadPaths.map((p) =>
      p
        .replace(/^POST /, '')
        .replace(/\{(\w+)\}/g, '{id}')
        .replace(/\/slaves\/\{id\}/, '/slaves/{id}'),
    );
    expect(normalised.filter((p) => !tried.has(p))).toEqual([]);
  });

  it('refuses every hostile file on every route it is aimed at, with a code, leaving nothing behind', async () => {
    const cases = hostileCases(SIZES);
    const problems: string[] = [];
    let sends = 0;
    /** Sends of a file that is hostile on that route (all but MAY_ACCEPT), and how many of them were refused. */
    let mustRefuse = 0;
    let refusedOfMust = 0;
    let partial = 0;
    let accepted = 0;
    let bombRss = 0;
    const bombDetail: string[] = [];
    const bombMs: number[] = [];
    for (const c of cases) {
      for (const route of routes.filter((r) => c.kinds.includes(r.kind))) {
        const label = `${c.id} -> ${route.label}`;
        const body = c.body(route.kind);
        const filesBefore = filesUnder(t.dataDir);
        const rowsBefore = await counts();
        const bomb = c.id.includes('bomb') || c.id.includes('forged');
        const rssBefore = process.memoryUsage().rss;
        const peakBefore = process.resourceUsage().maxRSS * 1024;
        const started = Date.now();
        const res = await request(route, body);
        if (bomb) {
          const grew = Math.max(
            process.memoryUsage().rss - rssBefore,
            process.resourceUsage().maxRSS * 1024 - peakBefore,
          );
          bombRss = Math.max(bombRss, grew);
          bombDetail.push(label);
          bombMs.push(Date.now() - started);
        }
        sends++;
        const why = refusal(res);
        const created = newFiles(filesBefore, filesUnder(t.dataDir));
        const rowsAfter = await counts();
        if (why === undefined) {
          if (!(MAY_ACCEPT[c.id] ?? []).includes(route.kind)) {
            mustRefuse++;
            refusedOfMust++;
          }
          partial += created.length;
          if (created.length) problems.push(`${label}: refused but left ${created.join(', ')}`);
          if (JSON.stringify(rowsAfter) !== JSON.stringify(rowsBefore))
            problems.push(
              `${label}: refused but rows changed ${JSON.stringify(rowsBefore)} -> ${JSON.stringify(rowsAfter)}`,
            );
        } else if ((MAY_ACCEPT[c.id] ?? []).includes(route.kind) && res.statusCode === 200) {
          accepted++;
          // Accepted: one file, stored under a name of the server's own.
          if (created.length !== 1 || !/^files\/[a-z-]+\/[0-9a-f-]{36}$/.test(created[0]!))
            problems.push(`${label}: accepted and stored as ${created.join(', ')}`);
          if (route.kind === 'image') {
            // Served back as the image type it was sniffed as, never as something a browser runs.
            const stored = (res.json() as { data: { file: string; content_type: string } }).data;
            expect(stored.content_type).toBe('image/gif');
            const served = await t.inject({
              method: 'GET',
              url: `${route.url}/${stored.file}`,
              token: admin,
            });
            expect(served.statusCode).toBe(200);
            expect(served.headers['content-type']).toBe('image/gif');
            expect(served.headers['x-content-type-options']).toBe('nosniff');
          }
        } else {
          mustRefuse++;
          problems.push(`${label}: ${why}: ${res.body.slice(0, 200)}`);
          partial += created.length;
        }
      }
    }
    // The escape entries of the zips were never written anywhere.
    expect(existsSync(path.join(tmpdir(), 'cellhub-escape.txt'))).toBe(false);
    figure({
      name: 'uploads.hostile_files',
      value: cases.length + hostileNames.length,
      unit: 'files',
      target: '>= 30',
      detail: `${sends} sends of ${cases.length} hostile files to ${routes.length} routes (+ names below)`,
    });
    figure({
      name: 'uploads.refused_share',
      value: mustRefuse === 0 ? 0 : Math.round((10_000 * refusedOfMust) / mustRefuse) / 100,
      unit: '%',
      target: '100 %',
      detail:
        `${refusedOfMust} of ${mustRefuse} sends of hostile files refused with a code; the GIF+JS polyglot ` +
        `(${sends - mustRefuse} sends) ${accepted} times stored as an opaque binary or a GIF served as image/gif`,
    });
    figure({ name: 'uploads.partial_files', value: partial, unit: 'files', target: '0' });
    figure({
      name: 'uploads.bomb_rss_delta_mb',
      value: Math.round(bombRss / 1024 / 1024),
      unit: 'MB',
      target: 'bounded (< 200)',
      detail:
        `${bombDetail.length} sends of bombs that inflate to ${SIZES.bombMb} MiB each, all refused; ` +
        `slowest answer ${Math.max(...bombMs)} ms`,
    });
    expect(problems).toEqual([]);
    expect(refusedOfMust).toBe(mustRefuse);
    expect(partial).toBe(0);
    expect(bombRss).toBeLessThan(200 * 1024 * 1024);
    // The bombs are real: the sheet inflates far past the 64 MiB any import would take.
    const sheet = deflateBomb('<worksheet>', 0x20, SIZES.bombMb, '</worksheet>');
    expect(() => inflateRawSync(sheet.raw, { maxOutputLength: 65 * 1024 * 1024 })).toThrow(
      expect.objectContaining({ code: 'ERR_BUFFER_TOO_LARGE' }),
    );
  });

  it('records hostile file names inertly (no directory, control or bidi characters) or refuses them', async () => {
    const problems: string[] = [];
    for (const n of hostileNames) {
      for (const route of routes.filter((r) => r.kind === 'image' || r.kind === 'binary')) {
        const label = `${n.id} -> ${route.label}`;
        const filesBefore = filesUnder(t.dataDir);
        const res = await request(route, harmlessFile(route.kind, n.name));
        const created = newFiles(filesBefore, filesUnder(t.dataDir));
        if (refusal(res) === undefined) {
          if (created.length) problems.push(`${label}: refused but left ${created.join(', ')}`);
          continue;
        }
        if (res.statusCode !== 200) {
          problems.push(`${label}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          continue;
        }
        // Stored under a name of the server's own, in the area's folder.
        if (created.length !== 1 || !/^files\/[a-z-]+\/[0-9a-f-]{36}$/.test(created[0]!))
          problems.push(`${label}: stored as ${created.join(', ')}`);
        const recorded = (res.json() as { data: { filename?: string } }).data.filename;
        if (recorded !== undefined && (INERT_NAME_BREAKERS.test(recorded) || recorded.length > 255))
          problems.push(`${label}: recorded as ${JSON.stringify(recorded)}`);
      }
    }
    expect(existsSync(path.join(tmpdir(), 'cellhub-escape.bin'))).toBe(false);
    expect(problems).toEqual([]);
  });
});

// --- exports ----------------------------------------------------------------------------------------------------------

/** Text that a spreadsheet would run, one per formula character. */
const FORMULAS = [
  '=HYPERLINK("http://127.0.0.1:9/x","a")',
  '+SUM(1,2)',
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
];

/** A cell that a spreadsheet would read as a formula (a plain signed number is a number, not a formula). */
const formulaLike = (v: string) => /^[=+\-@\t\r]/.test(v) && !/^[+-]?\d[\d.]*$/.test(v);

describe('exports', () => {
  it('neutralise every cell that starts with a formula character, in CSV and .xlsx alike', async () => {
    const routesChecked: string[] = [];
    let formulaCells = 0;
    let planted = 0;
    const problems: string[] = [];
    const checkCsv = async (url: string, token = admin) => {
      const res = await t.inject({ method: 'GET', url, token });
      expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
      const rows = parseCsv(res.body, { bom: true, relax_column_count: true }) as string[][];
      routesChecked.push(url.split('?')[0]!);
      for (const cell of rows.flat()) {
        if (formulaLike(cell)) {
          formulaCells++;
          problems.push(`${url}: ${JSON.stringify(cell)}`);
        }
        if (cell.startsWith("'") && formulaLike(cell.slice(1))) planted++;
      }
      return rows;
    };

    // Stock devices named like formulas, of a product named like one, reporting formula-like hardware.
    const product = `pkx${Date.now().toString(36)}`;
    await ok(
      await t.inject({
        method: 'POST',
        url: '/api/products',
        token: admin,
        payload: { name: '@SUM(1+1)', product_key: product },
      }),
    );
    const stock = await t.inject({
      method: 'POST',
      url: '/api/device-stock/range',
      token: admin,
      payload: { product_key: product, prefix: 'XF', from: 1, to: FORMULAS.length, digits: 2, name: 'stock' },
    });
    expect(stock.statusCode, stock.body).toBe(200);
    const sns = FORMULAS.map((_, i) => `XF${String(i + 1).padStart(2, '0')}`);
    for (const [i, sn] of sns.entries()) {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/devices/${sn}`,
        token: admin,
        payload: { name: FORMULAS[i], description: FORMULAS[i] },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const device = await ok<{ secret: string; product_key: string }>(
      await t.inject({ method: 'GET', url: `/api/devices/${sns[0]}`, token: admin }),
    );
    const raw = await RawDevice.connect({ mqttPort: t.app.broker.port! }, 'tcp', 4, {
      sn: sns[0]!,
      productKey: device.product_key,
      secret: device.secret,
    });
    try {
      await raw.connack();
      const publish: Packet = {
        cmd: 'publish',
        topic: upTopic(product, sns[0]!, 'info'),
        payload: Buffer.from(
          JSON.stringify({
            hw: { module_model: FORMULAS[0], module_fw: FORMULAS[1], board_revision: FORMULAS[3] },
          }),
        ),
        qos: 1,
        messageId: 1,
        dup: false,
        retain: false,
      };
      raw.send(publish);
      await raw.next('puback');
    } finally {
      await raw.disconnect().catch(() => undefined);
    }
    await checkCsv(`/api/device-stock/export?product_key=${product}`);
    const hw = await checkCsv('/api/hw/info/export');
    expect(hw.flat().some((c) => c === `'${FORMULAS[0]}`)).toBe(true);

    // SIM cards on a package named like a formula.
    const csv = `iccid,phone,operator\n89860000000000077701,13800000001,cmcc\n`;
    const batch = await t.inject({
      method: 'POST',
      url: '/api/card-admin/cards/batch',
      token: admin,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipartBody({}, [
        { filename: 'cards.csv', contentType: 'text/csv', content: Buffer.from(csv) },
      ]),
    });
    expect(batch.statusCode, batch.body).toBe(200);
    await checkCsv('/api/card-admin/cards/export');
    await checkCsv('/api/cards/export');

    // Template variables named like formulas, exported as .xlsx: no formula cell, no text cell left runnable.
    const template = await ok<{ id: number }>(
      await t.inject({
        method: 'POST',
        url: '/api/data-templates',
        token: admin,
        payload: { name: 'Formulas', type: 'modbus_rtu', remark: '', collect_mode: 'dtu' },
      }),
    );
    const slave = await ok<{ id: number }>(
      await t.inject({
        method: 'POST',
        url: `/api/data-templates/${template.id}/slaves`,
        token: admin,
        payload: { name: 'S', address: 1, serial_port: 'rs485' },
      }),
    );
    const sheetRows = [
      ['name', 'tag', 'unit', 'register_type', 'register_address', 'data_format'],
      ...FORMULAS.map((f, i) => [f, `t${i}`, f, 'holding', String(i), 'int16']),
    ];
    const imported = await t.inject({
      method: 'POST',
      url: `/api/data-templates/${template.id}/slaves/${slave.id}/variables/import`,
      token: admin,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipartBody({}, [
        { filename: 'vars.xlsx', contentType: 'application/octet-stream', content: xlsx(sheetRows) },
      ]),
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const exportUrl = `/api/data-templates/${template.id}/slaves/${slave.id}/variables/export`;
    const sheet = await t.inject({ method: 'GET', url: exportUrl, token: admin });
    expect(sheet.statusCode, sheet.body.slice(0, 200)).toBe(200);
    routesChecked.push(exportUrl);
    const { default: ExcelJS } = await import('exceljs');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(sheet.rawPayload as unknown as ArrayBuffer);
    let xlsxPlanted = 0;
    wb.worksheets[0]!.eachRow((row) =>
      row.eachCell((cell) => {
        if (cell.type === ExcelJS.ValueType.Formula || cell.formula) {
          formulaCells++;
          problems.push(`${exportUrl}: formula ${cell.address}`);
        }
        const v = typeof cell.value === 'string' ? cell.value : '';
        if (formulaLike(v)) xlsxPlanted++;
      }),
    );
    figure({
      name: 'exports.routes',
      value: new Set(routesChecked).size,
      unit: 'routes',
      detail: `${routesChecked.length} exports (4 CSV routes, 1 .xlsx); ${planted} planted formula cells came back quoted`,
    });
    figure({ name: 'exports.formula_cells', value: formulaCells, unit: 'cells', target: '0' });
    expect(problems).toEqual([]);
    expect(planted).toBeGreaterThanOrEqual(FORMULAS.length);
    // .xlsx text cells are strings (no formula type), which a spreadsheet never runs; they were really exported.
    expect(xlsxPlanted).toBeGreaterThan(0);
  });
});
