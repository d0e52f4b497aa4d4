import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationItem, ApplicationVersion } from '@cellhub/contract/applications';
import { buildTestApp, errorOf, type TestApp } from '../test/app';
import { onPostgres, type SharedStore, sharedStore } from '../test/shared-store';
import { applicationFileRef } from '../modules/applications/application-file';
import { applicationVersions } from '../modules/applications/applications.table';
import { storedFileChunks, storedFiles } from '../modules/files/files.table';
import {
  dirFileStore,
  type FileStore,
  fileStore,
  PARTIAL_UPLOAD_MAX_AGE_MS,
  storeStream,
  sweepPartialUploads,
} from './file-store';
import { CHUNK_BYTES, pgFileStore } from './file-store-pg';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A zip-signed package (an .apk is a zip) of `size` bytes; random after the signature, so never text. */
const apk = (size: number) => {
  const b = randomBytes(size);
  b.writeUInt32BE(0x504b0304, 0);
  return b;
};

const BOUNDARY = '----cellhubFileStoreTest7c1d';
function multipart(fields: Record<string, string>, file: { name: string; content: Buffer }) {
  const head = Object.entries(fields)
    .map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  return {
    payload: Buffer.concat([
      Buffer.from(
        `${head}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      file.content,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

const data = <T>(res: { statusCode: number; body: string; json(): unknown }): T => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
};

/** Creates an application on `t` and uploads `content` as its version `version`. */
async function publish(t: TestApp, admin: string, content: Buffer, fields: Record<string, string> = {}) {
  const app = data<ApplicationItem>(
    await t.inject({
      method: 'POST',
      url: '/api/applications',
      token: admin,
      payload: { name: `store-${randomBytes(3).toString('hex')}`, platform: 'android' },
    }),
  );
  const res = await t.inject({
    method: 'POST',
    url: `/api/applications/${app.id}/versions`,
    token: admin,
    ...multipart({ version: '1.0.0', sha256: sha256(content), ...fields }, { name: 'tool.apk', content }),
  });
  return { appId: app.id, res };
}

const fileUrl = (appId: number, versionId: number) => `/api/applications/${appId}/versions/${versionId}/file`;

/** A source that arrives in pieces of `piece` bytes, as a network upload does. */
const pieces = (b: Buffer, piece: number) =>
  Readable.from(
    (function* () {
      for (let i = 0; i < b.length; i += piece) yield b.subarray(i, i + piece);
    })(),
  );

const noSniff = () => undefined;
const tooLarge = () => new Error('too large') as never;

// The same cases for both stores: what a route sees must not depend on FILE_STORE.
describe.each(['dir', 'postgres'] as const)('file store %s', (kind) => {
  let t: TestApp;
  let admin: string;
  // Three chunks of the postgres store, the last one short.
  const content = apk(2 * CHUNK_BYTES + 123_457);
  let appId: number;
  let version: ApplicationVersion;

  beforeAll(async () => {
    t = await buildTestApp({ config: { fileStore: kind, applicationMaxBytes: 4 * CHUNK_BYTES } });
    admin = await t.adminToken();
    const up = await publish(t, admin, content);
    appId = up.appId;
    version = data<ApplicationVersion>(up.res);
  });
  afterAll(() => t?.close());

  it('stores an upload with its digests, and serves it whole', async () => {
    expect(version).toMatchObject({ size: content.length, sha256: sha256(content) });
    const [row] = await t.app.deps.db
      .select({ fileId: applicationVersions.fileId })
      .from(applicationVersions)
      .where(eq(applicationVersions.id, version.id));
    const ref = applicationFileRef(row!.fileId);
    expect(fileStore(t.app.deps).kind).toBe(kind);
    expect(await fileStore(t.app.deps).size(ref)).toBe(content.length);
    const onDisk = existsSync(path.join(t.dataDir, 'files', 'applications', row!.fileId));
    expect(onDisk).toBe(kind === 'dir');
    if (kind === 'postgres') {
      const [n] = await t.app.deps.db
        .select({ n: count() })
        .from(storedFileChunks)
        .where(eq(storedFileChunks.key, `applications/${row!.fileId}`));
      expect(n!.n).toBe(3);
    }
    const whole = await t.inject({ method: 'GET', url: fileUrl(appId, version.id), token: admin });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-length']).toBe(String(content.length));
    expect(whole.headers.etag).toBe(`"${sha256(content)}"`);
    expect(whole.rawPayload.equals(content)).toBe(true);
  });

  it('answers a Range across a chunk boundary with exactly those bytes (206)', async () => {
    const spans: [string, number, number][] = [
      [`bytes=${CHUNK_BYTES - 1000}-${CHUNK_BYTES + 999}`, CHUNK_BYTES - 1000, CHUNK_BYTES + 999],
      [`bytes=100-${content.length - 2}`, 100, content.length - 2],
      [`bytes=${2 * CHUNK_BYTES}-`, 2 * CHUNK_BYTES, content.length - 1],
      ['bytes=-10', content.length - 10, content.length - 1],
      [`bytes=${CHUNK_BYTES}-${CHUNK_BYTES}`, CHUNK_BYTES, CHUNK_BYTES],
    ];
    for (const [range, start, end] of spans) {
      const res = await t.inject({
        method: 'GET',
        url: fileUrl(appId, version.id),
        token: admin,
        headers: { range },
      });
      expect(res.statusCode, range).toBe(206);
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${content.length}`);
      expect(res.headers['content-length']).toBe(String(end - start + 1));
      expect(res.rawPayload.equals(content.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it('answers 416 with the size for a span past the end', async () => {
    const res = await t.inject({
      method: 'GET',
      url: fileUrl(appId, version.id),
      token: admin,
      headers: { range: `bytes=${content.length}-` },
    });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${content.length}`);
    expect(errorOf(res).code).toBe(10113);
  });

  it('keeps nothing of a refused upload (checksum mismatch after several chunks)', async () => {
    const before = await t.app.deps.db.select({ n: count() }).from(storedFiles);
    const big = apk(CHUNK_BYTES + 5000);
    const { res } = await publish(t, admin, big, { sha256: 'a'.repeat(64) });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe(10113);
    const after = await t.app.deps.db.select({ n: count() }).from(storedFiles);
    expect(after[0]!.n).toBe(before[0]!.n);
    const tmp = path.join(t.dataDir, 'files', 'applications', 'tmp');
    expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
  });

  it('deletes the bytes with the version', async () => {
    const extra = apk(CHUNK_BYTES + 10);
    const up = await publish(t, admin, extra);
    const v = data<ApplicationVersion>(up.res);
    const [row] = await t.app.deps.db
      .select({ fileId: applicationVersions.fileId })
      .from(applicationVersions)
      .where(eq(applicationVersions.id, v.id));
    const ref = applicationFileRef(row!.fileId);
    expect(await fileStore(t.app.deps).size(ref)).toBe(extra.length);
    const del = await t.inject({
      method: 'DELETE',
      url: `/api/applications/${up.appId}/versions/${v.id}`,
      token: admin,
    });
    expect(del.statusCode, del.body).toBe(200);
    expect(await fileStore(t.app.deps).size(ref)).toBeUndefined();
    expect(existsSync(path.join(t.dataDir, 'files', 'applications', row!.fileId))).toBe(false);
    const chunks = await t.app.deps.db
      .select({ n: count() })
      .from(storedFileChunks)
      .where(eq(storedFileChunks.key, `applications/${row!.fileId}`));
    expect(chunks[0]!.n).toBe(0);
    const gone = await t.inject({ method: 'GET', url: fileUrl(up.appId, v.id), token: admin });
    expect(gone.statusCode).toBe(400);
  });

  it('reads every span of a file of many small chunks (the store alone)', async () => {
    const store: FileStore =
      kind === 'dir' ? dirFileStore(t.dataDir) : pgFileStore(t.app.deps.db, undefined, 1000);
    const bytes = randomBytes(9_501);
    const stored = await storeStream(pieces(bytes, 777), {
      store,
      area: 'test',
      maxBytes: 1e6,
      tooLarge,
      sniff: noSniff,
      drainOnFailure: false,
    });
    expect(stored).toMatchObject({ size: bytes.length, sha256: sha256(bytes) });
    const ref = { area: 'test', fileId: stored.fileId };
    expect((await buffer(store.read(ref))).equals(bytes)).toBe(true);
    for (const [start, end] of [
      [0, 0],
      [999, 1000],
      [998, 4001],
      [4000, 4999],
      [9000, 9500],
      [9500, 20_000],
    ] as const) {
      const got = await buffer(store.read(ref, { start, end }));
      expect(got.equals(bytes.subarray(start, end + 1)), `${start}-${end}`).toBe(true);
    }
    await store.remove('test', [stored.fileId]);
    expect(await store.size(ref)).toBeUndefined();
    await expect(buffer(store.read(ref))).rejects.toThrow();
  });
});

describe.each(['dir', 'postgres'] as const)('file store %s after a crash mid-upload', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { fileStore: kind } });
  });
  afterAll(() => t?.close());

  /** What unfinished uploads occupy: temporary files (dir) or incomplete rows and their chunks (postgres). */
  async function leftovers(): Promise<number> {
    if (kind === 'dir') {
      const tmp = path.join(t.dataDir, 'files', 'test', 'tmp');
      return existsSync(tmp) ? readdirSync(tmp).length : 0;
    }
    const db = t.app.deps.db;
    const [f] = await db.select({ n: count() }).from(storedFiles).where(eq(storedFiles.complete, false));
    const [c] = await db
      .select({ n: count() })
      .from(storedFileChunks)
      .innerJoin(storedFiles, eq(storedFiles.key, storedFileChunks.key))
      .where(eq(storedFiles.complete, false));
    return f!.n + c!.n;
  }

  it('removes what an upload the server died under left, once it is a day old, and nothing else', async () => {
    const store = fileStore(t.app.deps);
    const kept = await storeStream(pieces(randomBytes(CHUNK_BYTES + 5), 65_536), {
      store,
      area: 'test',
      maxBytes: 1e7,
      tooLarge,
      sniff: noSniff,
      drainOnFailure: false,
    });
    // An upload that neither commits nor aborts: its process was killed after two chunks.
    const dead = store.writer('test');
    await dead.write(randomBytes(CHUNK_BYTES));
    await dead.write(randomBytes(CHUNK_BYTES + 1));
    const left = await leftovers();
    expect(left).toBeGreaterThan(0);

    // Younger than a day: an upload may still be going on.
    expect(await sweepPartialUploads(t.app.deps, new Date())).toBe(0);
    expect(await leftovers()).toBe(left);
    // A day and a minute later.
    const later = new Date(Date.now() + PARTIAL_UPLOAD_MAX_AGE_MS + 60_000);
    expect(await sweepPartialUploads(t.app.deps, later)).toBe(1);
    expect(await leftovers()).toBe(0);
    // The finished file is whole.
    const ref = { area: 'test', fileId: kept.fileId };
    expect(await store.size(ref)).toBe(CHUNK_BYTES + 5);
    expect(sha256(await buffer(store.read(ref)))).toBe(kept.sha256);
  });
});

describe('file store postgres after dir', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { fileStore: 'postgres' } });
  });
  afterAll(() => t?.close());

  it('still reads and removes files stored in DATA_DIR before the switch', async () => {
    const dir = dirFileStore(t.dataDir);
    const bytes = randomBytes(3000);
    const old = await storeStream(pieces(bytes, 1000), {
      store: dir,
      area: 'firmware',
      maxBytes: 1e6,
      tooLarge,
      sniff: noSniff,
      drainOnFailure: false,
    });
    const ref = { area: 'firmware', fileId: old.fileId };
    const store = fileStore(t.app.deps);
    expect(store.kind).toBe('postgres');
    expect(await store.size(ref)).toBe(3000);
    expect((await buffer(store.read(ref, { start: 10, end: 2009 }))).equals(bytes.subarray(10, 2010))).toBe(
      true,
    );
    await store.remove('firmware', [old.fileId]);
    expect(await dir.size(ref)).toBeUndefined();
  });
});

// Two instances exist only on PostgreSQL (PGlite lives in one process).
describe.skipIf(!onPostgres)('file store postgres on two instances of one database', () => {
  let db: SharedStore;
  let a: TestApp;
  let b: TestApp;
  let otherDir: string;
  beforeAll(async () => {
    db = await sharedStore('file_store');
    // Each instance has a DATA_DIR of its own: nothing B serves can come from A's disk.
    otherDir = mkdtempSync(path.join(tmpdir(), 'cellhub-file-store-b-'));
    a = await buildTestApp({
      config: { databaseUrl: db.databaseUrl, dataDir: db.dataDir, fileStore: 'postgres' },
    });
    b = await buildTestApp({
      config: { databaseUrl: db.databaseUrl, dataDir: otherDir, fileStore: 'postgres' },
    });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
    rmSync(otherDir, { recursive: true, force: true });
  });

  it('serves on B, with Range, a package uploaded through A; a delete on B removes it for A', async () => {
    const adminA = await a.adminToken();
    const adminB = await b.adminToken();
    const content = apk(CHUNK_BYTES + 70_000);
    const { appId, res } = await publish(a, adminA, content);
    const v = data<ApplicationVersion>(res);

    const whole = await b.inject({ method: 'GET', url: fileUrl(appId, v.id), token: adminB });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(content)).toBe(true);
    const start = CHUNK_BYTES - 5;
    const part = await b.inject({
      method: 'GET',
      url: fileUrl(appId, v.id),
      token: adminB,
      headers: { range: `bytes=${start}-${start + 9}` },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes ${start}-${start + 9}/${content.length}`);
    expect(part.rawPayload.equals(content.subarray(start, start + 10))).toBe(true);

    const del = await b.inject({
      method: 'DELETE',
      url: `/api/applications/${appId}/versions/${v.id}`,
      token: adminB,
    });
    expect(del.statusCode, del.body).toBe(200);
    const [left] = await a.app.deps.db.select({ n: count() }).from(storedFileChunks);
    expect(left!.n).toBe(0);
  });
});
