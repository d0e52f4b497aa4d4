import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMPORT_BYTES, type DeviceImportResult } from '@cellhub/contract/devices';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { zipInflatedSize } from './device-import-file';

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let productKey: string;
let otherKey: string;

const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

/** A multipart body as a browser's FormData would send it. */
async function multipart(content: Buffer | string, filename: string, type = 'application/octet-stream') {
  const fd = new FormData();
  fd.append('file', new Blob([content], { type }), filename);
  const res = new Response(fd);
  return {
    payload: Buffer.from(await res.arrayBuffer()),
    headers: { 'content-type': res.headers.get('content-type')! },
  };
}

async function importFile(
  token: string,
  content: Buffer | string,
  filename: string,
  query = `product_key=${productKey}`,
) {
  return t.inject({
    method: 'POST',
    url: `/api/devices/import?${query}`,
    token,
    ...(await multipart(content, filename)),
  });
}

async function xlsx(rows: (string | number)[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('devices');
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  const mk = async (token: string, name: string) =>
    data<{ product_key: string }>(
      await t.inject({ method: 'POST', url: '/api/products', token, payload: { name } }),
    ).product_key;
  productKey = await mk(a.token, 'Import DTU');
  otherKey = await mk(a.token, 'Other DTU');
  await t.inject({
    method: 'POST',
    url: '/api/devices',
    token: a.token,
    payload: { product_key: productKey, sn: ['IMP-OLD'] },
  });
  await t.inject({
    method: 'POST',
    url: '/api/devices',
    token: a.token,
    payload: { product_key: otherKey, sn: ['IMP-OTHER'] },
  });
});
afterAll(() => t.close());

describe('POST /api/devices/import', () => {
  it('creates new devices, updates existing ones and reports every bad row (CSV)', async () => {
    const csv = [
      'SN,Name,IMEI,iccid,description,ignored',
      'IMP-1,Boiler,861234567890123,89860012345678901234,first,x',
      'IMP-OLD,Renamed,,,,',
      'IMP-OTHER,Nope,,,,',
      'bad/sn,x,,,,',
      'IMP-2,,12ab,,,',
      ',,,,,',
      'IMP-1,dup,,,,',
    ].join('\r\n');
    const res = await importFile(a.token, `\uFEFF${csv}\n`, 'devices.csv');
    expect(res.statusCode).toBe(200);
    const r = data<DeviceImportResult>(res);
    expect(r.lines.map((l) => [l.row, l.sn, l.code, l.result])).toEqual([
      [2, 'IMP-1', 0, 'created'],
      [3, 'IMP-OLD', 0, 'updated'],
      [4, 'IMP-OTHER', 20403, 'wrong_product'],
      [5, 'bad/sn', 10113, 'invalid'],
      [6, 'IMP-2', 10113, 'invalid'],
      [8, 'IMP-1', 10113, 'invalid'],
    ]);
    // Which field broke which rule, as keys for the console and in English for API callers.
    expect(r.lines[3]).toMatchObject({ field: 'sn', rule: 'sn_rule' });
    expect(r.lines[4]).toMatchObject({ field: 'imei', rule: 'imei_rule', message: 'imei: 14-17 digits' });
    expect(r.lines[5]).toMatchObject({
      field: 'sn',
      rule: 'duplicate',
      params: { row: 2 },
      message: 'sn: same as row 2',
    });
    expect(r).toMatchObject({ total: 6, created: 1, updated: 1, failed: 4 });
    const d = data<{ name: string; imei: string; iccid: string; description: string; uid: number }>(
      await t.inject({ method: 'GET', url: '/api/devices/IMP-1', token: a.token }),
    );
    expect(d).toMatchObject({
      name: 'Boiler',
      imei: '861234567890123',
      iccid: '89860012345678901234',
      description: 'first',
      uid: a.uid,
    });
    const old = data<{ name: string }>(
      await t.inject({ method: 'GET', url: '/api/devices/IMP-OLD', token: a.token }),
    );
    expect(old.name).toBe('Renamed');
  });

  it('with update_only changes existing devices and creates none (XLSX)', async () => {
    const file = await xlsx([
      ['sn', 'name', 'address'],
      ['IMP-OLD', 'From Excel', 'Hall 3'],
      ['IMP-NEW', 'Should not exist', ''],
    ]);
    const res = await importFile(a.token, file, 'devices.xlsx', `product_key=${productKey}&update_only=1`);
    const r = data<DeviceImportResult>(res);
    expect(r.lines.map((l) => [l.row, l.sn, l.code, l.result])).toEqual([
      [2, 'IMP-OLD', 0, 'updated'],
      [3, 'IMP-NEW', 10117, 'not_found'],
    ]);
    expect(errorOf(await t.inject({ method: 'GET', url: '/api/devices/IMP-NEW', token: a.token })).code).toBe(
      10117,
    );
    const old = data<{ name: string; address: string }>(
      await t.inject({ method: 'GET', url: '/api/devices/IMP-OLD', token: a.token }),
    );
    expect(old).toMatchObject({ name: 'From Excel', address: 'Hall 3' });
  });

  it("refuses to import into someone else's product and never touches their devices", async () => {
    const res = await importFile(b.token, 'sn,name\nIMP-OLD,stolen\n', 'x.csv');
    expect(errorOf(res).code).toBe(10107);
    // With a product of their own, B learns only that the sn exists.
    const own = data<{ product_key: string }>(
      await t.inject({ method: 'POST', url: '/api/products', token: b.token, payload: { name: 'B' } }),
    ).product_key;
    const r = data<DeviceImportResult>(
      await importFile(b.token, 'sn,name\nIMP-OLD,stolen\n', 'x.csv', `product_key=${own}`),
    );
    expect(r.lines[0]).toMatchObject({ code: 20403, result: 'wrong_product' });
    const old = data<{ name: string }>(
      await t.inject({ method: 'GET', url: '/api/devices/IMP-OLD', token: a.token }),
    );
    expect(old.name).toBe('From Excel');
  });

  it('lets admins import devices into stock (no owner)', async () => {
    const r = data<DeviceImportResult>(await importFile(admin, 'sn\nIMP-STOCK\n', 's.csv'));
    expect(r.lines[0]).toMatchObject({ result: 'created' });
    const d = data<{ uid: number | null }>(
      await t.inject({ method: 'GET', url: '/api/devices/IMP-STOCK', token: admin }),
    );
    expect(d.uid).toBeNull();
  });

  it('refuses a file of another type (415 / 50002), even renamed', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    for (const [content, name] of [
      [png, 'devices.png'],
      [png, 'devices.csv'],
      [Buffer.from('d0cf11e0a1b11ae1000000000000', 'hex'), 'old.xls'],
      [await xlsx([['sn'], ['X']]), 'devices.csv'],
      ['sn\nX\n', 'devices.txt'],
    ] as const) {
      const res = await importFile(a.token, content, name);
      expect(res.statusCode, name).toBe(415);
      expect(errorOf(res).code).toBe(50002);
    }
    const json = await t.inject({
      method: 'POST',
      url: `/api/devices/import?product_key=${productKey}`,
      token: a.token,
      payload: { sn: 'x' },
    });
    expect(json.statusCode).toBe(415);
    expect(errorOf(json).code).toBe(50002);
  });

  it('refuses a file over the size limit (413 / 50001)', async () => {
    const big = `sn\n${'X'.repeat(MAX_IMPORT_BYTES)}\n`;
    const res = await importFile(a.token, big, 'big.csv');
    expect(res.statusCode).toBe(413);
    expect(errorOf(res).code).toBe(50001);
  });

  it('says which limit a too long cell broke', async () => {
    const res = await importFile(a.token, `sn,name\nIMP-LONG,${'n'.repeat(65)}\n`, 'long.csv');
    expect(data<DeviceImportResult>(res).lines).toEqual([
      {
        row: 2,
        sn: 'IMP-LONG',
        code: 10113,
        result: 'invalid',
        field: 'name',
        rule: 'too_long',
        params: { max: 64 },
        message: 'name: at most 64 characters',
      },
    ]);
  });

  it('refuses a file without an sn column, an empty one and a request without a file (10113)', async () => {
    for (const [content, name] of [
      ['name,imei\nx,1\n', 'a.csv'],
      ['', 'empty.csv'],
    ] as const) {
      const res = await importFile(a.token, content, name);
      expect(errorOf(res).code, name).toBe(10113);
    }
    const fd = new FormData();
    fd.append('note', 'no file');
    const body = new Response(fd);
    const res = await t.inject({
      method: 'POST',
      url: `/api/devices/import?product_key=${productKey}`,
      token: a.token,
      payload: Buffer.from(await body.arrayBuffer()),
      headers: { 'content-type': body.headers.get('content-type')! },
    });
    expect(errorOf(res).code).toBe(10113);
  });

  it('reads the unpacked size of an xlsx from its zip directory (zip bomb guard)', async () => {
    const file = await xlsx([['sn'], ...Array.from({ length: 200 }, (_, i) => [`Z-${i}`])]);
    const size = zipInflatedSize(file);
    expect(size).toBeGreaterThan(file.length);
    expect(
      zipInflatedSize(Buffer.from('not a zip at all, just some text that is long enough')),
    ).toBeUndefined();
  });
});
