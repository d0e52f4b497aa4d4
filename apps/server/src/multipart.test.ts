import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, errorOf, type TestApp } from './test/app';

/**
 * Every route that reads a multipart body (found in the OpenAPI document, so a new one is covered), given a body
 * that breaks off in the middle of the file: 400 / 40003, nothing stored, no partial file left in DATA_DIR.
 */

const BOUNDARY = '----cellhubprobe7d1f';

interface Upload {
  method: string;
  path: string;
  url: string;
}

/** Every file under `dir` with its size, relative to it. */
function filesUnder(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
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
      else out[path.relative(dir, p)] = st.size;
    }
  };
  walk(dir);
  return out;
}

function head(fields: Record<string, string>, filename: string, type: string): string {
  let s = '';
  for (const [k, v] of Object.entries(fields)) {
    s += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  }
  return `${s}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
}

let t: TestApp;
let admin: string;
let uploads: Upload[];
let firmwareId: number;
const pk = `pk_mp_${Date.now()}`;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  const product = await t.inject({
    method: 'POST',
    url: '/api/products',
    token: admin,
    payload: { name: 'Multipart', product_key: pk },
  });
  expect(product.statusCode, product.body).toBe(200);
  const fw = await t.inject({
    method: 'POST',
    url: '/api/firmware',
    token: admin,
    payload: { name: 'fw', product_key: pk },
  });
  expect(fw.statusCode, fw.body).toBe(200);
  firmwareId = (fw.json() as { data: { id: number } }).data.id;
  const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  // Every route that takes a body: the OpenAPI document does not mark multipart ones, so all are tried.
  uploads = Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.keys(ops)
      .filter((m) => (m === 'post' || m === 'put') && p !== '/api/auth/logout')
      .map((method) => {
        const url =
          p.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'id' ? String(firmwareId) : 'probe')) +
          (p === '/api/devices/import' ? `?product_key=${pk}` : '');
        return { method: method.toUpperCase(), path: p, url };
      }),
  );
});
afterAll(() => t.close());

describe('a multipart upload that breaks off', () => {
  it('answers 400 / 40003 on every upload route, stores nothing, leaves no file behind', async () => {
    const before = filesUnder(t.dataDir);
    const csv =
      'iccid,sn,name,operator,date,used_mb\n' + '89860000000000000001,SN1,a,cmcc,2026-01-01,1\n'.repeat(2000);
    const answers: string[] = [];
    const readers = new Set<string>();
    for (const u of uploads) {
      for (const cut of [0.5, 1]) {
        const fields: Record<string, string> = u.path.startsWith('/api/firmware') ? { version: '1.0.0' } : {};
        const whole = Buffer.from(head(fields, 'data.csv', 'text/csv') + csv);
        // Half of the file, or all of it without the closing boundary: both end before the form does.
        const body = whole.subarray(0, Math.floor(whole.length * cut));
        const res = await t.inject({
          method: u.method as 'POST',
          url: u.url,
          token: admin,
          headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
          payload: body,
        });
        const label = `${u.method} ${u.path} cut ${cut}`;
        const code = errorOf(res).code;
        // Routes that read multipart bodies answer 40003. The others refuse the content type (415), find no JSON
        // body (10113) or take no body; none may fail.
        if (res.statusCode === 400 && code === 40003) readers.add(`${u.method} ${u.path}`);
        else if (res.statusCode >= 500) answers.push(`${label}: ${res.statusCode} ${res.body}`);
      }
    }
    expect(answers).toEqual([]);
    expect([...readers].sort()).toEqual([
      'POST /api/card-admin/cards/batch',
      'POST /api/card-admin/usage/import',
      'POST /api/devices/import',
      'POST /api/firmware/{id}/versions',
    ]);
    expect(filesUnder(t.dataDir)).toEqual(before);
    const versions = await t.inject({ method: 'GET', url: `/api/firmware/${firmwareId}`, token: admin });
    expect(JSON.stringify(versions.json())).not.toContain('1.0.0');
    const devices = await t.inject({ method: 'GET', url: `/api/devices?product_key=${pk}`, token: admin });
    expect((devices.json() as { total: number }).total).toBe(0);
    const cards = await t.inject({ method: 'GET', url: '/api/card-admin/cards', token: admin });
    expect((cards.json() as { total: number }).total).toBe(0);
  });

  it('refuses NUL in file names, form fields and file cells (400, never 500)', async () => {
    const sim = 89860000000000000000n;
    let n = 0;
    const iccid = () => String(sim + BigInt(++n));
    const routes = [
      {
        url: `/api/firmware/${firmwareId}/versions`,
        get fields() {
          return { version: `2.0.${++n}` };
        },
        ext: 'bin',
        // Binary (NUL and high bytes), or the store refuses it as text.
        content: () => '\u0000\u0001\u0002fw\u0000\u00ff\u0000',
      },
      {
        url: `/api/devices/import?product_key=${pk}`,
        fields: {},
        ext: 'csv',
        content: () => `sn\nSNMP${++n}\n`,
      },
      {
        url: '/api/card-admin/cards/batch',
        fields: {},
        ext: 'csv',
        content: () => `iccid,operator\n${iccid()},cmcc\n`,
      },
      {
        url: '/api/card-admin/usage/import',
        fields: {},
        ext: 'csv',
        content: () => `iccid,date,used_mb\n${iccid()},2026-01-01,1\n`,
      },
    ];
    const answers: string[] = [];
    const send = (url: string, fields: Record<string, string>, filename: string, content: string) =>
      t.inject({
        method: 'POST',
        url,
        token: admin,
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        payload: Buffer.concat([
          Buffer.from(head(fields, filename, 'application/octet-stream')),
          Buffer.from(content),
          Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
        ]),
      });
    for (const r of routes) {
      // The well-formed upload is taken, so the refusals below are about the bad character alone.
      const good = await send(r.url, r.fields, `good.${r.ext}`, r.content());
      expect(good.statusCode, `${r.url}: ${good.body}`).toBe(200);
      // Multipart is bytes, not JSON: an unpaired surrogate has no UTF-8 form (an encoder sends U+FFFD, ordinary
      // text), so NUL is the character that can arrive.
      for (const bad of ['\u0000']) {
        const cases: [string, Record<string, string>, string, string][] = [
          ['filename', r.fields, `a${bad}b.${r.ext}`, r.content()],
        ];
        if (r.ext === 'bin') cases.push(['field', { version: `2${bad}` }, `fw.${r.ext}`, r.content()]);
        cases.push(['cell', r.fields, `c.${r.ext}`, r.content().replace('\n', `${bad}\n`)]);
        for (const [what, fields, filename, content] of cases) {
          const res = await send(r.url, fields, filename, content);
          const label = `${r.url} ${what} ${JSON.stringify(bad)}`;
          const code = res.statusCode >= 400 && res.statusCode < 500 ? errorOf(res).code : undefined;
          // Firmware bytes are opaque: a NUL in them is content, not text.
          const firmwareCell = what === 'cell' && r.ext === 'bin';
          const expected = what === 'cell' ? code !== undefined : code === 10113;
          if (!firmwareCell && !expected) {
            answers.push(`${label}: ${res.statusCode} ${res.body}`);
          }
        }
      }
    }
    expect(answers).toEqual([]);
  });
});
