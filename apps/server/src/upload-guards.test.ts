import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOUNDARY, deflateBomb, multipartBody, xlsx, xlsxEntries, zip } from './reliability/hostile-files';
import { buildTestApp, errorOf, type TestApp } from './test/app';

/**
 * The upload guards found missing by the hostile uploads reliability test (src/reliability/hostile-uploads.test.ts
 * sends the whole catalogue to every route): a workbook is checked part by part before exceljs opens it, a second
 * file or a field cut at its size limit refuses the upload, and a recorded file name loses its bidi controls.
 */

let t: TestApp;
let admin: string;
let firmwareId: number;
const pk = `pkguard${Date.now().toString(36)}`;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  const product = await t.inject({
    method: 'POST',
    url: '/api/products',
    token: admin,
    payload: { name: 'Guards', product_key: pk },
  });
  expect(product.statusCode, product.body).toBe(200);
  const fw = await t.inject({
    method: 'POST',
    url: '/api/firmware',
    token: admin,
    payload: { name: 'fw', product_key: pk },
  });
  firmwareId = (fw.json() as { data: { id: number } }).data.id;
});
afterAll(() => t?.close());

const ROWS = [['sn'], ['GUARD-1']];

function importDevices(content: Buffer, extra: { fields?: Record<string, string>; twice?: boolean } = {}) {
  const file = { filename: 'devices.xlsx', contentType: 'application/octet-stream', content };
  return t.inject({
    method: 'POST',
    url: `/api/devices/import?product_key=${pk}`,
    token: admin,
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: multipartBody(
      extra.fields ?? {},
      extra.twice ? [file, { ...file, filename: 'b.xlsx' }] : [file],
    ),
  });
}

async function deviceCount(): Promise<number> {
  const res = await t.inject({ method: 'GET', url: `/api/devices?product_key=${pk}`, token: admin });
  return (res.json() as { total: number }).total;
}

describe('a workbook upload', () => {
  it('is refused when a part inflates past the size it declares (a zip bomb), before exceljs reads it', async () => {
    const bomb = deflateBomb('<worksheet><sheetData>', 0x20, 256, '</sheetData></worksheet>');
    const file = xlsx(ROWS, {
      'xl/worksheets/sheet1.xml': { name: 'xl/worksheets/sheet1.xml', deflated: bomb, declaredSize: 2048 },
    });
    const rss = process.memoryUsage().rss;
    const res = await importDevices(file);
    expect(res.statusCode, res.body).toBe(413);
    expect(errorOf(res).code).toBe(50001);
    // 256 MiB were never made.
    expect(process.memoryUsage().rss - rss).toBeLessThan(128 * 1024 * 1024);
  });

  it('is refused with 50003 for XML with a DOCTYPE, entry names that leave the archive, and a broken part', async () => {
    const doctype = '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
    const files = [
      xlsx(ROWS, { 'xl/workbook.xml': `<?xml version="1.0"?>${doctype}<workbook/>` }),
      zip([...xlsxEntries(ROWS), { name: '../../evil.txt', data: 'x' }]),
      zip([...xlsxEntries(ROWS), { name: '/etc/evil', data: 'x' }]),
      zip([...xlsxEntries(ROWS), { name: 'xl/a\u0000.xml', data: 'x' }]),
      xlsx(ROWS).subarray(0, 400),
    ];
    for (const f of files) {
      const res = await importDevices(f);
      expect(res.statusCode, res.body).toBe(400);
      expect(errorOf(res).code).toBe(50003);
    }
    // Thousands of parts: too large to open.
    const many = zip([
      ...xlsxEntries(ROWS),
      ...Array.from({ length: 1500 }, (_, i) => ({ name: `xl/p${i}.xml`, data: '', store: true })),
    ]);
    expect(errorOf(await importDevices(many)).code).toBe(50001);
    expect(await deviceCount()).toBe(0);
    // The same workbook without the hostile part is read.
    const fine = await importDevices(xlsx(ROWS));
    expect(fine.statusCode, fine.body).toBe(200);
    expect(await deviceCount()).toBe(1);
  });
});

describe('a multipart upload', () => {
  it('with a second file is refused (10113) on buffered and streamed routes, storing nothing', async () => {
    const before = await deviceCount();
    const res = await importDevices(xlsx([['sn'], ['GUARD-2']]), { twice: true });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorOf(res).code).toBe(10113);
    expect(await deviceCount()).toBe(before);

    const bin = Buffer.from([0x7f, 0x00, 0x01, 0x02, 0xfe]);
    const fw = await t.inject({
      method: 'POST',
      url: `/api/firmware/${firmwareId}/versions`,
      token: admin,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipartBody({ version: '1.0.0' }, [
        { filename: 'a.bin', contentType: 'application/octet-stream', content: bin },
        { filename: 'b.bin', contentType: 'application/octet-stream', content: bin },
      ]),
    });
    expect(fw.statusCode, fw.body).toBe(400);
    expect(errorOf(fw).code).toBe(10113);
    const detail = await t.inject({ method: 'GET', url: `/api/firmware/${firmwareId}`, token: admin });
    expect(detail.body).not.toContain('1.0.0');
  });

  it('with a field over the size limit is refused (413 / 50001), not read cut short', async () => {
    const res = await importDevices(xlsx([['sn'], ['GUARD-3']]), {
      fields: { note: 'x'.repeat(1024 * 1024 + 10) },
    });
    expect(res.statusCode, res.body).toBe(413);
    expect(errorOf(res).code).toBe(50001);
  });

  it('records a file name without bidi controls (no spoofed extension in a download dialog)', async () => {
    const res = await t.inject({
      method: 'POST',
      url: `/api/firmware/${firmwareId}/versions`,
      token: admin,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipartBody({ version: '2.0.0' }, [
        {
          filename: 'update\u202egpj.bin',
          contentType: 'application/octet-stream',
          content: Buffer.from([0x7f, 0x00, 0x01]),
        },
      ]),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { data: { filename: string } }).data.filename).toBe('updategpj.bin');
  });
});
