import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { and, eq, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FirmwareItem, FirmwareVersion, UsableFirmwareVersion } from '@cellhub/contract/firmware';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { eventually } from '../../test/gateway-test-kit';
import { allowTestTarget } from '../../test/outbound';
import { type FileRef, fileStore } from '../../lib/file-store';
import { auditLogs } from '../audit/audit.table';
import { storedFileChunks, storedFiles as storedFileRows } from '../files/files.table';
import { firmwareDir } from './firmware-file';
import { assertVersionDeletable, getFirmwareVersionFile } from './firmware.service';
import { firmwareVersions } from './firmware.table';

const storedBytes = (t: TestApp, ref: FileRef): Promise<Buffer> => buffer(fileStore(t.app.deps).read(ref));

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Random bytes that start like a real image (no text can come out of this). */
const binary = (size: number) => {
  const b = randomBytes(size);
  if (size > 4) b.writeUInt32BE(0x7f454c46, 0); // ELF
  return b;
};

const data = <T>(res: { statusCode: number; body: string; json(): unknown }): T => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
};

const BOUNDARY = '----cellhubFirmwareTest7MA4YWxkTrZu0gW';

/** The parts of a multipart body as a browser sends them: text fields first, then the file. */
function multipartParts(fields: Record<string, string>, file?: { name: string; content: Buffer }) {
  const head = Object.entries(fields)
    .map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const fileHead = file
    ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n'
    : '';
  const tail = `${file ? '\r\n' : ''}--${BOUNDARY}--\r\n`;
  return { start: Buffer.from(head + fileHead), tail: Buffer.from(tail) };
}

function multipart(fields: Record<string, string>, file?: { name: string; content: Buffer }) {
  const { start, tail } = multipartParts(fields, file);
  return {
    payload: Buffer.concat([start, file?.content ?? Buffer.alloc(0), tail]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

function upload(
  app: TestApp,
  token: string,
  firmwareId: number,
  fields: Record<string, string>,
  file?: { name: string; content: Buffer },
) {
  return app.inject({
    method: 'POST',
    url: `/api/firmware/${firmwareId}/versions`,
    token,
    ...multipart(fields, file),
  });
}

/** The files in the store (temporary ones included), so a test can see that a refusal left nothing behind. */
async function storedFiles(app: TestApp): Promise<string[]> {
  if (fileStore(app.app.deps).kind === 'postgres') {
    const rows = await app.app.deps.db
      .select({ key: storedFileRows.key, complete: storedFileRows.complete })
      .from(storedFileRows)
      .where(like(storedFileRows.key, 'firmware/%'));
    return rows.map((r) => `${r.complete ? '' : 'tmp/'}${r.key.slice('firmware/'.length)}`).sort();
  }
  const dir = firmwareDir(app.app.deps);
  if (!existsSync(dir)) return [];
  const tmp = path.join(dir, 'tmp');
  return [
    ...readdirSync(dir).filter((f) => f !== 'tmp'),
    ...(existsSync(tmp) ? readdirSync(tmp).map((f) => `tmp/${f}`) : []),
  ].sort();
}

async function product(app: TestApp, token: string, name: string): Promise<string> {
  return data<{ product_key: string }>(
    await app.inject({ method: 'POST', url: '/api/products', token, payload: { name } }),
  ).product_key;
}

async function firmware(app: TestApp, token: string, body: Record<string, unknown>): Promise<FirmwareItem> {
  return data<FirmwareItem>(await app.inject({ method: 'POST', url: '/api/firmware', token, payload: body }));
}

// ---------------------------------------------------------------------------------------------------------------
// A local file server standing in for the internet the URL import reaches.

interface FileServer {
  url: string;
  requests: { method: string; path: string; userAgent: string }[];
  close(): Promise<void>;
}

const REMOTE = binary(64 * 1024);

async function startFileServer(): Promise<FileServer> {
  const requests: FileServer['requests'] = [];
  const open = new Set<ServerResponse>();
  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      userAgent: String(req.headers['user-agent']),
    });
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    switch (url.pathname) {
      case '/fw/dtu-1.2.0.bin':
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': REMOTE.length });
        res.end(REMOTE);
        return;
      case '/download':
        // No name in the path: the name comes from Content-Disposition.
        res.writeHead(200, { 'content-disposition': 'attachment; filename="dtu-2.0.0.img"' });
        res.end(REMOTE);
        return;
      case '/moved':
        res.writeHead(302, { location: '/fw/dtu-1.2.0.bin' }).end();
        return;
      case '/loop':
        res.writeHead(302, { location: '/loop' }).end();
        return;
      case '/page.bin':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!DOCTYPE html><html><body>Not found, but with a 200</body></html>');
        return;
      case '/big-declared.bin':
        // Announces more than the limit; the server must not even start reading.
        res.writeHead(200, { 'content-length': 10 * 1024 * 1024 });
        open.add(res);
        res.write(binary(1024));
        return;
      case '/big-chunked.bin': {
        // No length: the limit is found while streaming.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        let sent = 0;
        const pump = () => {
          while (sent < 4 * 1024 * 1024) {
            sent += 16 * 1024;
            if (!res.write(binary(16 * 1024))) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => undefined);
        pump();
        return;
      }
      case '/stall.bin':
        // Headers and a first chunk, then nothing: only the timeout ends this.
        res.writeHead(200, { 'content-length': REMOTE.length });
        res.write(REMOTE.subarray(0, 1024));
        open.add(res);
        return;
      case '/silent.bin':
        open.add(res);
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // Reached like an on-premise firmware server: through OUTBOUND_ALLOW (../../test/outbound.ts).
  allowTestTarget(`http://127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------

let t: TestApp;
let admin: string;
let a: { uid: number; token: string };
let b: { uid: number; token: string };
let adminProduct: string;
let aProduct: string;
let files: FileServer;

beforeAll(async () => {
  t = await buildTestApp({ config: { firmwareFetchTimeoutMs: 1500 } });
  admin = await t.adminToken();
  a = await t.createUser();
  b = await t.createUser();
  adminProduct = await product(t, admin, 'DTU-4G');
  aProduct = await product(t, a.token, "A's gateway");
  files = await startFileServer();
});
afterAll(async () => {
  await files?.close();
  await t?.close();
});

describe('firmware: admin only', () => {
  it('refuses role user on every admin route (400 / 10108)', async () => {
    const f = await firmware(t, admin, { name: 'Role check', product_key: adminProduct });
    for (const req of [
      { method: 'GET' as const, url: '/api/firmware' },
      { method: 'POST' as const, url: '/api/firmware', payload: { name: 'x', product_key: aProduct } },
      { method: 'GET' as const, url: `/api/firmware/${f.id}` },
      { method: 'PUT' as const, url: `/api/firmware/${f.id}`, payload: { name: 'y' } },
      { method: 'DELETE' as const, url: `/api/firmware/${f.id}` },
      { method: 'GET' as const, url: `/api/firmware/${f.id}/versions` },
      {
        method: 'POST' as const,
        url: `/api/firmware/${f.id}/versions/import`,
        payload: { version: '1', url: files.url },
      },
    ]) {
      const res = await t.inject({ ...req, token: a.token });
      expect(res.statusCode, `${req.method} ${req.url}`).toBe(400);
      expect(errorOf(res).code).toBe(10108);
    }
    const before = await storedFiles(t);
    const up = await upload(t, a.token, f.id, { version: '1.0.0' }, { name: 'a.bin', content: binary(100) });
    expect(up.statusCode).toBe(400);
    expect(errorOf(up).code).toBe(10108);
    expect(await storedFiles(t)).toEqual(before);
    // Nothing was created by the refused calls.
    const list = data<FirmwareItem[]>(await t.inject({ method: 'GET', url: '/api/firmware', token: admin }));
    expect(list.map((x) => x.name)).not.toContain('x');
  });
});

describe('firmware CRUD', () => {
  it('creates, lists with the product name, edits and deletes a firmware, auditing each write', async () => {
    const f = await firmware(t, admin, {
      name: 'DTU main',
      product_key: adminProduct,
      type: 1,
      objname: 'mcu',
      description: 'Main board',
      public: true,
    });
    expect(f).toMatchObject({
      name: 'DTU main',
      product_key: adminProduct,
      product_name: 'DTU-4G',
      type: 1,
      objname: 'mcu',
      public: true,
      version_count: 0,
      latest_version: null,
    });
    const list = await t.inject({
      method: 'GET',
      url: '/api/firmware',
      token: admin,
      query: { keyword: 'mcu', product_key: adminProduct, type: '1' },
    });
    expect(data<FirmwareItem[]>(list).map((x) => x.id)).toContain(f.id);
    expect((list.json() as { total: number }).total).toBeGreaterThanOrEqual(1);
    const none = await t.inject({
      method: 'GET',
      url: '/api/firmware',
      token: admin,
      query: { type: '0', keyword: 'DTU main' },
    });
    expect(data<FirmwareItem[]>(none)).toEqual([]);

    const edited = data<FirmwareItem>(
      await t.inject({
        method: 'PUT',
        url: `/api/firmware/${f.id}`,
        token: admin,
        payload: { name: 'DTU main board', public: false, product_key: aProduct },
      }),
    );
    expect(edited).toMatchObject({
      name: 'DTU main board',
      public: false,
      product_key: aProduct,
      product_name: "A's gateway",
    });

    const unknownProduct = await t.inject({
      method: 'POST',
      url: '/api/firmware',
      token: admin,
      payload: { name: 'x', product_key: 'pk_nothing_here' },
    });
    expect(unknownProduct.statusCode).toBe(400);
    expect(errorOf(unknownProduct)).toMatchObject({ code: 10113, details: [{ field: 'product_key' }] });

    data(await t.inject({ method: 'DELETE', url: `/api/firmware/${f.id}`, token: admin }));
    const gone = await t.inject({ method: 'GET', url: `/api/firmware/${f.id}`, token: admin });
    expect(gone.statusCode).toBe(400);
    expect(errorOf(gone).code).toBe(70001);
    const again = await t.inject({ method: 'DELETE', url: `/api/firmware/${f.id}`, token: admin });
    expect(errorOf(again).code).toBe(70001);

    const audit = await t.app.deps.db
      .select({ action: auditLogs.action })
      .from(auditLogs)
      .where(eq(auditLogs.target, `firmware:${f.id}`));
    expect(audit.map((r) => r.action).sort()).toEqual([
      'firmware_create',
      'firmware_delete',
      'firmware_update',
    ]);
  });

  it('answers 70001 for unknown firmware and versions, and for a version asked under another firmware', async () => {
    const f1 = await firmware(t, admin, { name: 'F1', product_key: adminProduct });
    const f2 = await firmware(t, admin, { name: 'F2', product_key: adminProduct });
    const v = data<FirmwareVersion>(
      await upload(t, admin, f1.id, { version: '1' }, { name: 'a.bin', content: binary(64) }),
    );
    for (const url of [
      '/api/firmware/999999',
      '/api/firmware/999999/versions',
      `/api/firmware/${f1.id}/versions/999999`,
      `/api/firmware/${f2.id}/versions/${v.id}`,
      `/api/firmware/${f2.id}/versions/${v.id}/file`,
    ]) {
      const res = await t.inject({ method: 'GET', url, token: admin });
      expect(res.statusCode, url).toBe(400);
      expect(errorOf(res).code, url).toBe(70001);
    }
    const up = await upload(t, admin, 999999, { version: '1' }, { name: 'a.bin', content: binary(64) });
    expect(errorOf(up).code).toBe(70001);
    expect(await getFirmwareVersionFile(t.app.deps, 999999)).toBeNull();
    await expect(assertVersionDeletable(t.app.deps.db, 999999)).rejects.toMatchObject({ code: 70001 });
    await expect(assertVersionDeletable(t.app.deps.db, v.id)).resolves.toBeUndefined();
  });
});

describe('upload', () => {
  it('stores a 64 KB binary with both digests, checks the checksum given, and serves it back', async () => {
    const f = await firmware(t, admin, { name: 'Upload', product_key: adminProduct });
    const content = binary(64 * 1024);
    const res = await upload(
      t,
      admin,
      f.id,
      {
        version: '1.2.0',
        algorithm: 'md5',
        checksum: md5(content).toUpperCase(),
        description: 'first',
        latest: 'true',
      },
      { name: 'dtu-1.2.0.bin', content },
    );
    const v = data<FirmwareVersion>(res);
    expect(v).toMatchObject({
      firmware_id: f.id,
      product_key: adminProduct,
      version: '1.2.0',
      url: '',
      filename: 'dtu-1.2.0.bin',
      size: content.length,
      algorithm: 'md5',
      checksum: md5(content),
      md5: md5(content),
      sha256: sha256(content),
      description: 'first',
      latest: true,
    });
    const file = await getFirmwareVersionFile(t.app.deps, v.id);
    expect(file).toMatchObject({
      id: v.id,
      firmwareId: f.id,
      productKey: adminProduct,
      version: '1.2.0',
      size: content.length,
      checksum: md5(content),
      algorithm: 'md5',
      md5: md5(content),
      sha256: sha256(content),
    });
    expect((await storedBytes(t, file!.file)).equals(content)).toBe(true);
    expect((await storedFiles(t)).filter((n) => n.startsWith('tmp/'))).toEqual([]);

    const download = await t.inject({
      method: 'GET',
      url: `/api/firmware/${f.id}/versions/${v.id}/file`,
      token: admin,
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/octet-stream');
    expect(download.headers['content-disposition']).toContain('dtu-1.2.0.bin');
    expect(download.rawPayload.equals(content)).toBe(true);

    // sha256 as the algorithm: the checksum is that digest.
    const v2 = data<FirmwareVersion>(
      await upload(
        t,
        admin,
        f.id,
        { version: '1.2.1', algorithm: 'sha256', checksum: sha256(content) },
        { name: 'x.fw', content },
      ),
    );
    expect(v2).toMatchObject({ algorithm: 'sha256', checksum: sha256(content), latest: false });
    // Without a checksum the computed one is used.
    const v3 = data<FirmwareVersion>(
      await upload(t, admin, f.id, { version: '1.2.2' }, { name: 'x.img', content }),
    );
    expect(v3.checksum).toBe(md5(content));

    const detail = data<FirmwareItem>(
      await t.inject({ method: 'GET', url: `/api/firmware/${f.id}`, token: admin }),
    );
    expect(detail).toMatchObject({ version_count: 3, latest_version: '1.2.0' });
    const versions = await t.inject({
      method: 'GET',
      url: `/api/firmware/${f.id}/versions`,
      token: admin,
      query: { per_page: '2' },
    });
    expect(data<FirmwareVersion[]>(versions).map((x) => x.version)).toEqual(['1.2.2', '1.2.1']);
    expect((versions.json() as { total: number }).total).toBe(3);

    const audit = await t.app.deps.db
      .select({ action: auditLogs.action, detail: auditLogs.detail })
      .from(auditLogs)
      .where(eq(auditLogs.target, `firmware_version:${v.id}`));
    expect(audit).toEqual([
      {
        action: 'firmware_version_create',
        detail: expect.objectContaining({ version: '1.2.0', sha256: sha256(content) }),
      },
    ]);
  });

  it('streams the body to disk while it arrives (never held whole in memory)', async () => {
    const f = await firmware(t, admin, { name: 'Stream', product_key: adminProduct });
    const total = 24 * 1024 * 1024;
    const firstPart = 12 * 1024 * 1024;
    const content = binary(total);
    const { start, tail } = multipartParts(
      { version: 'stream-1', checksum: sha256(content), algorithm: 'sha256' },
      { name: 'big.bin', content },
    );
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const tmpDir = path.join(firmwareDir(t.app.deps), 'tmp');
    // The bytes of uploads in progress: temporary files (FILE_STORE=dir) or chunks of incomplete files (postgres).
    const storedSoFar = async (): Promise<number> => {
      if (fileStore(t.app.deps).kind === 'dir') {
        const parts = existsSync(tmpDir) ? readdirSync(tmpDir) : [];
        return parts.reduce((n, p) => n + statSync(path.join(tmpDir, p)).size, 0);
      }
      const [row] = await t.app.deps.db
        .select({ n: sql<number>`coalesce(sum(octet_length(${storedFileChunks.data})), 0)::int` })
        .from(storedFileChunks)
        .innerJoin(storedFileRows, eq(storedFileRows.key, storedFileChunks.key))
        .where(eq(storedFileRows.complete, false));
      return row?.n ?? 0;
    };

    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${address}/api/firmware/${f.id}/versions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${admin}`,
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'content-length': start.length + content.length + tail.length,
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      (async () => {
        req.write(start);
        req.write(content.subarray(0, firstPart));
        // Half the file has been sent and the request is not over: it must already be on disk (waited for as
        // it grows; a store that buffers the body never gets there and fails the wait).
        const onDisk = await eventually(async () => {
          const bytes = await storedSoFar();
          return bytes >= firstPart / 2 ? bytes : undefined;
        }, 15_000);
        expect(onDisk).toBeLessThanOrEqual(firstPart);
        req.write(content.subarray(firstPart));
        req.end(tail);
      })().catch(reject);
    });
    const res = await answer;
    expect(res.status, res.body).toBe(200);
    const v = (JSON.parse(res.body) as { data: FirmwareVersion }).data;
    expect(v).toMatchObject({ size: total, checksum: sha256(content) });
    const file = await getFirmwareVersionFile(t.app.deps, v.id);
    expect(await fileStore(t.app.deps).size(file!.file)).toBe(total);
  });

  it('refuses a checksum mismatch with 10113 on checksum and stores nothing', async () => {
    const f = await firmware(t, admin, { name: 'Mismatch', product_key: adminProduct });
    const before = await storedFiles(t);
    const content = binary(4096);
    const res = await upload(
      t,
      admin,
      f.id,
      { version: '1.0.0', checksum: md5(binary(10)) },
      { name: 'a.bin', content },
    );
    expect(res.statusCode).toBe(400);
    const err = errorOf(res);
    expect(err.code).toBe(10113);
    expect(err.details).toEqual([{ field: 'checksum', message: expect.stringContaining(md5(content)) }]);
    // A digest of the wrong length for the algorithm is a form error before any byte is read.
    const wrongLength = await upload(
      t,
      admin,
      f.id,
      { version: '1.0.0', algorithm: 'sha256', checksum: md5(content) },
      { name: 'a.bin', content },
    );
    expect(errorOf(wrongLength)).toMatchObject({ code: 10113, details: [{ field: 'checksum' }] });
    expect(await storedFiles(t)).toEqual(before);
    const versions = await t.app.deps.db
      .select()
      .from(firmwareVersions)
      .where(eq(firmwareVersions.firmwareId, f.id));
    expect(versions).toEqual([]);
  });

  it('refuses types by name and by bytes with 415 / 50002', async () => {
    const f = await firmware(t, admin, { name: 'Types', product_key: adminProduct });
    const before = await storedFiles(t);
    const cases: [string, Buffer][] = [
      ['notes.txt', binary(256)],
      ['setup.exe', binary(256)],
      ['page.bin', Buffer.from('<!DOCTYPE html><html><head><title>x</title></head><body></body></html>')],
      ['run.bin', Buffer.from('#!/bin/sh\nrm -rf /\n')],
      ['readme.bin', Buffer.from('This firmware upgrades the DTU to 1.2.0.\nSee the notes.\n'.repeat(30))],
      // Chinese text whose 512-byte window ends inside a character is still text.
      ['notes.bin', Buffer.from('固件升级说明：修复掉线问题。\n'.repeat(40))],
      ['bom.img', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<?xml version="1.0"?><a/>')])],
      ['archive.zip', binary(2048)],
      ['archive.tar.gz', binary(2048)],
      ['image.hex', binary(2048)],
    ];
    for (const [name, content] of cases) {
      const res = await upload(t, admin, f.id, { version: `t-${name}` }, { name, content });
      expect(res.statusCode, name).toBe(415);
      const err = errorOf(res);
      expect(err.code, name).toBe(50002);
      expect(err.details, name).toEqual([{ field: 'file', message: expect.any(String) }]);
    }
    expect(await storedFiles(t)).toEqual(before);

    // What the same checks accept: Intel HEX text, archives with their signature.
    const hex = Buffer.from(':10010000214601360121470136007EFE09D2190140\r\n:00000001FF\r\n');
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), binary(1000)]);
    const gz = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), binary(1000)]);
    for (const [name, content] of [
      ['mcu.hex', hex],
      ['pkg.zip', zip],
      ['rootfs.tar.gz', gz],
    ] as const) {
      const res = await upload(t, admin, f.id, { version: `ok-${name}` }, { name, content });
      expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
    }
  });

  it('refuses an empty file, a missing file, a non-multipart body and bad fields', async () => {
    const f = await firmware(t, admin, { name: 'Empty', product_key: adminProduct });
    const before = await storedFiles(t);
    const empty = await upload(
      t,
      admin,
      f.id,
      { version: '1.0.0' },
      { name: 'a.bin', content: Buffer.alloc(0) },
    );
    expect(empty.statusCode).toBe(400);
    expect(errorOf(empty)).toMatchObject({ code: 10113, details: [{ field: 'file' }] });
    const noFile = await upload(t, admin, f.id, { version: '1.0.0' });
    expect(errorOf(noFile)).toMatchObject({ code: 10113, details: [{ field: 'file' }] });
    const json = await t.inject({
      method: 'POST',
      url: `/api/firmware/${f.id}/versions`,
      token: admin,
      payload: { version: '1' },
    });
    expect(json.statusCode).toBe(415);
    expect(errorOf(json).code).toBe(50002);
    const badVersion = await upload(
      t,
      admin,
      f.id,
      { version: 'no spaces please', latest: 'maybe' },
      { name: 'a.bin', content: binary(10) },
    );
    expect(badVersion.statusCode).toBe(400);
    const err = errorOf(badVersion);
    expect(err.code).toBe(10113);
    expect((err.details as { field: string }[]).map((d) => d.field).sort()).toEqual(['latest', 'version']);
    expect(await storedFiles(t)).toEqual(before);
  });

  it('refuses a duplicate version string with 70002 (upload, import and rename)', async () => {
    const f = await firmware(t, admin, { name: 'Dup', product_key: adminProduct });
    const v1 = data<FirmwareVersion>(
      await upload(t, admin, f.id, { version: '2.0.0' }, { name: 'a.bin', content: binary(100) }),
    );
    const before = await storedFiles(t);
    const dup = await upload(t, admin, f.id, { version: '2.0.0' }, { name: 'b.bin', content: binary(100) });
    expect(dup.statusCode).toBe(400);
    expect(errorOf(dup)).toMatchObject({ code: 70002, details: [{ field: 'version' }] });
    const dupImport = await t.inject({
      method: 'POST',
      url: `/api/firmware/${f.id}/versions/import`,
      token: admin,
      payload: { version: '2.0.0', url: `${files.url}/fw/dtu-1.2.0.bin` },
    });
    expect(errorOf(dupImport).code).toBe(70002);
    expect(await storedFiles(t)).toEqual(before);
    const v2 = data<FirmwareVersion>(
      await upload(t, admin, f.id, { version: '2.0.1' }, { name: 'b.bin', content: binary(100) }),
    );
    const rename = await t.inject({
      method: 'PUT',
      url: `/api/firmware/${f.id}/versions/${v2.id}`,
      token: admin,
      payload: { version: v1.version },
    });
    expect(errorOf(rename).code).toBe(70002);
    // The same string in another firmware is fine.
    const other = await firmware(t, admin, { name: 'Dup 2', product_key: adminProduct });
    data(await upload(t, admin, other.id, { version: '2.0.0' }, { name: 'a.bin', content: binary(100) }));
  });
});

describe('one latest version per product', () => {
  it('setting latest unsets the other version of the product, also across firmwares', async () => {
    const key = await product(t, admin, 'Latest product');
    const f1 = await firmware(t, admin, { name: 'L1', product_key: key });
    const f2 = await firmware(t, admin, { name: 'L2', product_key: key });
    const v1 = data<FirmwareVersion>(
      await upload(t, admin, f1.id, { version: '1', latest: 'true' }, { name: 'a.bin', content: binary(64) }),
    );
    const v2 = data<FirmwareVersion>(
      await upload(t, admin, f2.id, { version: '2', latest: 'true' }, { name: 'a.bin', content: binary(64) }),
    );
    const latest = async () =>
      (
        await t.app.deps.db
          .select()
          .from(firmwareVersions)
          .where(and(eq(firmwareVersions.productKey, key), eq(firmwareVersions.latest, true)))
      ).map((v) => v.id);
    expect(await latest()).toEqual([v2.id]);
    data(
      await t.inject({
        method: 'PUT',
        url: `/api/firmware/${f1.id}/versions/${v1.id}`,
        token: admin,
        payload: { latest: true },
      }),
    );
    expect(await latest()).toEqual([v1.id]);
    // Another product's latest is untouched.
    const v3 = data<FirmwareVersion>(
      await upload(
        t,
        admin,
        (await firmware(t, admin, { name: 'L3', product_key: adminProduct })).id,
        { version: '1', latest: 'true' },
        { name: 'a.bin', content: binary(64) },
      ),
    );
    expect(await latest()).toEqual([v1.id]);
    expect(await getFirmwareVersionFile(t.app.deps, v3.id)).not.toBeNull();
    data(
      await t.inject({
        method: 'PUT',
        url: `/api/firmware/${f1.id}/versions/${v1.id}`,
        token: admin,
        payload: { latest: false },
      }),
    );
    expect(await latest()).toEqual([]);
  });

  it('keeps exactly one latest when requests race', async () => {
    const key = await product(t, admin, 'Race product');
    const f = await firmware(t, admin, { name: 'Race', product_key: key });
    const versions: FirmwareVersion[] = [];
    for (let i = 0; i < 4; i++) {
      versions.push(
        data<FirmwareVersion>(
          await upload(t, admin, f.id, { version: `r${i}` }, { name: 'a.bin', content: binary(64) }),
        ),
      );
    }
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all([
        ...versions.map((v) =>
          t.inject({
            method: 'PUT',
            url: `/api/firmware/${f.id}/versions/${v.id}`,
            token: admin,
            payload: { latest: true },
          }),
        ),
        upload(
          t,
          admin,
          f.id,
          { version: `race-${round}`, latest: 'true' },
          { name: 'a.bin', content: binary(64) },
        ),
      ]);
      for (const res of results) expect(res.statusCode, res.body).toBe(200);
      const latest = await t.app.deps.db
        .select()
        .from(firmwareVersions)
        .where(and(eq(firmwareVersions.productKey, key), eq(firmwareVersions.latest, true)));
      expect(latest).toHaveLength(1);
    }
  });
});

describe('editing and deleting versions', () => {
  it('changes algorithm (checksum follows), description and version; the product of a firmware with versions is fixed', async () => {
    const f = await firmware(t, admin, { name: 'Edit', product_key: adminProduct });
    const content = binary(1000);
    const v = data<FirmwareVersion>(
      await upload(t, admin, f.id, { version: '1.0' }, { name: 'a.bin', content }),
    );
    const edited = data<FirmwareVersion>(
      await t.inject({
        method: 'PUT',
        url: `/api/firmware/${f.id}/versions/${v.id}`,
        token: admin,
        payload: { version: '1.0.1', algorithm: 'sha256', description: 'renamed' },
      }),
    );
    expect(edited).toMatchObject({
      version: '1.0.1',
      algorithm: 'sha256',
      checksum: sha256(content),
      description: 'renamed',
      size: 1000,
    });
    const moved = await t.inject({
      method: 'PUT',
      url: `/api/firmware/${f.id}`,
      token: admin,
      payload: { product_key: aProduct },
    });
    expect(moved.statusCode).toBe(400);
    expect(errorOf(moved)).toMatchObject({ code: 70003, details: [{ field: 'product_key' }] });
  });

  it('deletes a version with its file, and a firmware with all its versions and files', async () => {
    const f = await firmware(t, admin, { name: 'Delete', product_key: adminProduct });
    const v1 = data<FirmwareVersion>(
      await upload(t, admin, f.id, { version: '1' }, { name: 'a.bin', content: binary(100) }),
    );
    const v2 = data<FirmwareVersion>(
      await upload(t, admin, f.id, { version: '2' }, { name: 'a.bin', content: binary(100) }),
    );
    const p1 = (await getFirmwareVersionFile(t.app.deps, v1.id))!.file;
    const p2 = (await getFirmwareVersionFile(t.app.deps, v2.id))!.file;
    const stored = async (ref: FileRef) => (await fileStore(t.app.deps).size(ref)) !== undefined;
    expect((await stored(p1)) && (await stored(p2))).toBe(true);
    data(await t.inject({ method: 'DELETE', url: `/api/firmware/${f.id}/versions/${v1.id}`, token: admin }));
    expect(await stored(p1)).toBe(false);
    expect(await getFirmwareVersionFile(t.app.deps, v1.id)).toBeNull();
    const again = await t.inject({
      method: 'DELETE',
      url: `/api/firmware/${f.id}/versions/${v1.id}`,
      token: admin,
    });
    expect(errorOf(again).code).toBe(70001);
    data(await t.inject({ method: 'DELETE', url: `/api/firmware/${f.id}`, token: admin }));
    expect(await stored(p2)).toBe(false);
    expect(await getFirmwareVersionFile(t.app.deps, v2.id)).toBeNull();
    const audit = await t.app.deps.db
      .select({ action: auditLogs.action })
      .from(auditLogs)
      .where(like(auditLogs.target, `firmware_version:${v1.id}`));
    // Both rows may share a timestamp; without ORDER BY PostgreSQL returns them in any order.
    expect(audit.map((r) => r.action).sort()).toEqual(['firmware_version_create', 'firmware_version_delete']);
  });
});

describe('URL import', () => {
  const importUrl = (firmwareId: number, payload: Record<string, unknown>, app = t, token = admin) =>
    app.inject({ method: 'POST', url: `/api/firmware/${firmwareId}/versions/import`, token, payload });

  it('fetches the binary once and stores it like an upload (redirects and Content-Disposition too)', async () => {
    const f = await firmware(t, admin, { name: 'Import', product_key: adminProduct });
    const before = files.requests.length;
    const v = data<FirmwareVersion>(
      await importUrl(f.id, {
        version: '1.2.0',
        url: `${files.url}/fw/dtu-1.2.0.bin`,
        algorithm: 'sha256',
        checksum: sha256(REMOTE),
      }),
    );
    expect(v).toMatchObject({
      url: `${files.url}/fw/dtu-1.2.0.bin`,
      filename: 'dtu-1.2.0.bin',
      size: REMOTE.length,
      checksum: sha256(REMOTE),
      md5: md5(REMOTE),
    });
    expect(files.requests.slice(before)).toEqual([
      { method: 'GET', path: '/fw/dtu-1.2.0.bin', userAgent: 'Cellhub firmware import' },
    ]);
    const file = await getFirmwareVersionFile(t.app.deps, v.id);
    expect((await storedBytes(t, file!.file)).equals(REMOTE)).toBe(true);

    const moved = data<FirmwareVersion>(
      await importUrl(f.id, { version: '1.2.1', url: `${files.url}/moved` }),
    );
    expect(moved).toMatchObject({ filename: 'dtu-1.2.0.bin', size: REMOTE.length });
    const named = data<FirmwareVersion>(
      await importUrl(f.id, { version: '2.0.0', url: `${files.url}/download?id=3` }),
    );
    expect(named.filename).toBe('dtu-2.0.0.img');
  });

  it('refuses 404, an HTML page, too many redirects, a wrong checksum and a timeout, storing nothing', async () => {
    const f = await firmware(t, admin, { name: 'Import errors', product_key: adminProduct });
    const before = await storedFiles(t);
    const missing = await importUrl(f.id, { version: '1', url: `${files.url}/nothing.bin` });
    expect(missing.statusCode).toBe(502);
    expect(errorOf(missing)).toMatchObject({
      code: 40002,
      details: [{ field: 'url', message: expect.stringContaining('404') }],
    });
    const page = await importUrl(f.id, { version: '1', url: `${files.url}/page.bin` });
    expect(page.statusCode).toBe(415);
    expect(errorOf(page).code).toBe(50002);
    const loop = await importUrl(f.id, { version: '1', url: `${files.url}/loop` });
    expect(errorOf(loop)).toMatchObject({
      code: 40002,
      details: [{ field: 'url', message: 'too many redirects' }],
    });
    const wrong = await importUrl(f.id, {
      version: '1',
      url: `${files.url}/fw/dtu-1.2.0.bin`,
      checksum: md5(Buffer.from('x')),
    });
    expect(errorOf(wrong)).toMatchObject({ code: 10113, details: [{ field: 'checksum' }] });

    for (const slow of ['stall.bin', 'silent.bin']) {
      const started = Date.now();
      const res = await importUrl(f.id, { version: '1', url: `${files.url}/${slow}` });
      expect(res.statusCode, slow).toBe(502);
      expect(errorOf(res), slow).toMatchObject({ code: 40002, details: [{ field: 'url' }] });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      expect(Date.now() - started).toBeLessThan(5000);
    }
    // An allowed address where nothing listens: no connection, 502.
    allowTestTarget('http://127.0.0.1:1');
    const closed = await importUrl(f.id, { version: '1', url: 'http://127.0.0.1:1/fw.bin' });
    expect(closed.statusCode).toBe(502);
    expect(errorOf(closed)).toMatchObject({ code: 40001, details: [{ field: 'url' }] });
    const ftp = await importUrl(f.id, { version: '1', url: 'ftp://example.com/fw.bin' });
    expect(errorOf(ftp)).toMatchObject({ code: 10113, details: [{ field: 'url' }] });
    expect(await storedFiles(t)).toEqual(before);
  });

  it('refuses private addresses unless OUTBOUND_ALLOW names them, the same for open and closed ports', async () => {
    const guarded = await buildTestApp({ config: { outboundAllow: [] } });
    // A port that was free a moment ago: the answer must not tell it from the file server's open one.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    try {
      const token = await guarded.adminToken();
      const key = await product(guarded, token, 'Guarded');
      const f = await firmware(guarded, token, { name: 'SSRF', product_key: key });
      const before = files.requests.length;
      const answers: unknown[] = [];
      for (const url of [
        `${files.url}/fw/dtu-1.2.0.bin`,
        `http://127.0.0.1:${closedPort}/fw/dtu-1.2.0.bin`,
        `${files.url.replace('127.0.0.1', 'localhost')}/fw/dtu-1.2.0.bin`,
        `${files.url.replace('127.0.0.1', '2130706433')}/fw/dtu-1.2.0.bin`,
        `http://localhost:${closedPort}/fw/dtu-1.2.0.bin`,
        'http://[::1]/fw.bin',
        'http://169.254.169.254/latest/meta-data',
        'http://10.1.2.3/fw.bin',
        'http://[::ffff:192.168.1.1]/fw.bin',
      ]) {
        const res = await importUrl(f.id, { version: '1', url }, guarded, token);
        expect(res.statusCode, url).toBe(400);
        const body = errorOf(res);
        expect(body, url).toMatchObject({
          code: 40004,
          details: [{ field: 'url', message: 'the URL points to a private or local address' }],
        });
        answers.push(body);
      }
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      // Not one request reached the file server.
      expect(files.requests.length).toBe(before);
      expect(await storedFiles(guarded)).toEqual([]);
    } finally {
      await guarded.close();
    }
  });
});

describe('size limit (FIRMWARE_MAX_BYTES)', () => {
  let small: TestApp;
  let token: string;
  let f: FirmwareItem;
  beforeAll(async () => {
    small = await buildTestApp({
      config: { firmwareMaxBytes: 1024, firmwareFetchTimeoutMs: 5000 },
    });
    token = await small.adminToken();
    f = await firmware(small, token, {
      name: 'Small',
      product_key: await product(small, token, 'Small product'),
    });
  });
  afterAll(() => small?.close());

  it('accepts exactly the limit and refuses one byte more with 413 / 50001, leaving nothing behind', async () => {
    data(await upload(small, token, f.id, { version: 'at-limit' }, { name: 'a.bin', content: binary(1024) }));
    const before = await storedFiles(small);
    for (const size of [1025, 200_000]) {
      const res = await upload(
        small,
        token,
        f.id,
        { version: `over-${size}` },
        { name: 'a.bin', content: binary(size) },
      );
      expect(res.statusCode, String(size)).toBe(413);
      expect(errorOf(res).code).toBe(50001);
    }
    // A body announced far over the limit is refused before it is read.
    const huge = await small.inject({
      method: 'POST',
      url: `/api/firmware/${f.id}/versions`,
      token,
      headers: {
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(5 * 1024 * 1024),
      },
      payload: multipart({ version: 'huge' }, { name: 'a.bin', content: binary(100) }).payload,
    });
    expect(huge.statusCode).toBe(413);
    expect(errorOf(huge).code).toBe(50001);
    expect(await storedFiles(small)).toEqual(before);
  });

  it('refuses a URL whose Content-Length or streamed body exceeds the limit', async () => {
    const before = await storedFiles(small);
    for (const name of ['big-declared.bin', 'big-chunked.bin']) {
      const res = await small.inject({
        method: 'POST',
        url: `/api/firmware/${f.id}/versions/import`,
        token,
        payload: { version: name, url: `${files.url}/${name}` },
      });
      expect(res.statusCode, name).toBe(413);
      expect(errorOf(res).code).toBe(50001);
    }
    expect(await storedFiles(small)).toEqual(before);
  });
});

describe('usable versions (any signed-in user)', () => {
  it("lists public firmware and firmware of the caller's own products; another user sees none of those", async () => {
    const bProduct = await product(t, b.token, "B's DTU");
    const mine = await firmware(t, admin, { name: 'For A only', product_key: aProduct, public: false });
    const pub = await firmware(t, admin, {
      name: 'Public DTU',
      product_key: adminProduct,
      public: true,
      type: 1,
    });
    const hidden = await firmware(t, admin, { name: 'Internal', product_key: adminProduct, public: false });
    const vMine = data<FirmwareVersion>(
      await upload(t, admin, mine.id, { version: 'a-1' }, { name: 'a.bin', content: binary(64) }),
    );
    const vPub = data<FirmwareVersion>(
      await upload(t, admin, pub.id, { version: 'p-1' }, { name: 'a.bin', content: binary(64) }),
    );
    const vHidden = data<FirmwareVersion>(
      await upload(t, admin, hidden.id, { version: 'h-1' }, { name: 'a.bin', content: binary(64) }),
    );

    const usable = async (token: string, query: Record<string, string> = {}) =>
      data<UsableFirmwareVersion[]>(
        await t.inject({
          method: 'GET',
          url: '/api/firmware/versions/usable',
          token,
          query: { per_page: '100', ...query },
        }),
      ).map((v) => v.id);

    const forA = await usable(a.token);
    expect(forA).toContain(vMine.id);
    expect(forA).toContain(vPub.id);
    expect(forA).not.toContain(vHidden.id);
    const forB = await usable(b.token);
    expect(forB).not.toContain(vMine.id);
    expect(forB).not.toContain(vHidden.id);
    expect(forB).toContain(vPub.id);
    expect(await usable(b.token, { product_key: aProduct })).toEqual([]);
    expect(await usable(b.token, { product_key: bProduct })).toEqual([]);
    expect(await usable(a.token, { productKey: aProduct })).toEqual([vMine.id]);
    const forAdmin = await usable(admin, { product_key: adminProduct });
    expect(forAdmin).toEqual(expect.arrayContaining([vPub.id, vHidden.id]));

    const item = data<UsableFirmwareVersion[]>(
      await t.inject({
        method: 'GET',
        url: '/api/firmware/versions/usable',
        token: b.token,
        query: { keyword: 'Public DTU' },
      }),
    ).find((v) => v.id === vPub.id);
    expect(item).toMatchObject({
      firmware_name: 'Public DTU',
      product_name: 'DTU-4G',
      version: 'p-1',
      type: 1,
      public: true,
      size: 64,
    });
    expect(item).not.toHaveProperty('url');
  });
});
