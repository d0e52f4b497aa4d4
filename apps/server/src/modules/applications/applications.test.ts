import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApplicationItem,
  type ApplicationVersion,
  compareVersions,
} from '@cellhub/contract/applications';
import { buildTestApp, errorOf, type TestApp } from '../../test/app';
import { fileStore } from '../../lib/file-store';
import { auditLogs } from '../audit/audit.table';
import { storedFiles as storedFileRows } from '../files/files.table';
import { applicationDir, checkIcon, sniffApplication } from './application-file';
import { applicationVersions } from './applications.table';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A zip-signed package (an .apk is a zip) of `size` bytes; random after the signature, so never text. */
const apk = (size: number) => {
  const b = randomBytes(size);
  b.writeUInt32BE(0x504b0304, 0);
  return b;
};

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const pngUrl = `data:image/png;base64,${PNG.toString('base64')}`;

const data = <T>(res: { statusCode: number; body: string; json(): unknown }): T => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
};

const BOUNDARY = '----cellhubApplicationTest0b2e';

function multipart(fields: Record<string, string>, file?: { name: string; content: Buffer }) {
  const head = Object.entries(fields)
    .map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const fileHead = file
    ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n'
    : '';
  return {
    payload: Buffer.concat([
      Buffer.from(head + fileHead, 'utf8'),
      file?.content ?? Buffer.alloc(0),
      Buffer.from(`${file ? '\r\n' : ''}--${BOUNDARY}--\r\n`),
    ]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

let t: TestApp;
let admin: string;
let user: { token: string; uid: number };
const MAX = 256 * 1024;

const upload = (
  appId: number,
  fields: Record<string, string>,
  file?: { name: string; content: Buffer },
  token = admin,
) =>
  t.inject({ method: 'POST', url: `/api/applications/${appId}/versions`, token, ...multipart(fields, file) });

const create = async (body: Record<string, unknown>) =>
  data<ApplicationItem>(
    await t.inject({ method: 'POST', url: '/api/applications', token: admin, payload: body }),
  );

/**
 * Files in the store, uploads in progress included (`tmp/...`), so a refusal can be seen to leave nothing behind:
 * DATA_DIR/files/applications with FILE_STORE=dir, the database's stored files with postgres.
 */
async function storedFiles(): Promise<string[]> {
  if (fileStore(t.app.deps).kind === 'postgres') {
    const rows = await t.app.deps.db
      .select({ key: storedFileRows.key, complete: storedFileRows.complete })
      .from(storedFileRows)
      .where(like(storedFileRows.key, 'applications/%'));
    return rows.map((r) => `${r.complete ? '' : 'tmp/'}${r.key.slice('applications/'.length)}`).sort();
  }
  const dir = applicationDir(t.app.deps);
  if (!existsSync(dir)) return [];
  const tmp = path.join(dir, 'tmp');
  return [
    ...readdirSync(dir).filter((f) => f !== 'tmp'),
    ...(existsSync(tmp) ? readdirSync(tmp).map((f) => `tmp/${f}`) : []),
  ].sort();
}

beforeAll(async () => {
  t = await buildTestApp({ config: { applicationMaxBytes: MAX } });
  admin = await t.adminToken();
  user = await t.createUser();
});
afterAll(() => t.close());

describe('applications', () => {
  it('are created and changed by admins, read by any signed-in user', async () => {
    const created = await create({
      name: '配置工具',
      platform: 'windows',
      description: 'DTU 配置',
      icon: pngUrl,
    });
    expect(created).toMatchObject({ name: '配置工具', platform: 'windows', version_count: 0, latest: null });
    expect(created.icon).toBe(pngUrl);
    expect(created.created_by).not.toBeNull();

    const refused = await t.inject({
      method: 'POST',
      url: '/api/applications',
      token: user.token,
      payload: { name: 'x', platform: 'other' },
    });
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).code).toBe(10108);

    const list = await t.inject({ method: 'GET', url: '/api/applications?keyword=配置', token: user.token });
    expect(list.statusCode, list.body).toBe(200);
    expect((list.json() as { data: ApplicationItem[] }).data.map((a) => a.id)).toContain(created.id);
    const byPlatform = await t.inject({
      method: 'GET',
      url: '/api/applications?platform=ios',
      token: user.token,
    });
    expect((byPlatform.json() as { data: ApplicationItem[] }).data.map((a) => a.id)).not.toContain(
      created.id,
    );

    const one = await t.inject({ method: 'GET', url: `/api/applications/${created.id}`, token: user.token });
    expect(data<ApplicationItem>(one).name).toBe('配置工具');

    const changed = await t.inject({
      method: 'PUT',
      url: `/api/applications/${created.id}`,
      token: admin,
      payload: { name: 'Config tool', icon: '' },
    });
    expect(data<ApplicationItem>(changed)).toMatchObject({
      name: 'Config tool',
      icon: '',
      platform: 'windows',
    });
    const userChange = await t.inject({
      method: 'PUT',
      url: `/api/applications/${created.id}`,
      token: user.token,
      payload: { name: 'mine' },
    });
    expect(errorOf(userChange).code).toBe(10108);

    const missing = await t.inject({ method: 'GET', url: '/api/applications/999999', token: user.token });
    expect(missing.statusCode).toBe(400);
    expect(errorOf(missing).code).toBe(10107);

    const audit = await t.app.deps.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.target, `application:${created.id}`));
    expect(audit.map((a) => a.action).sort()).toEqual(['application_create', 'application_update']);
  });

  it('take PNG, JPEG or WebP icons only, checked by their bytes and size', async () => {
    const svg = `data:image/svg+xml;base64,${Buffer.from('<svg onload="alert(1)"/>').toString('base64')}`;
    const cases: [string, number, number][] = [
      [svg, 415, 50002],
      // A PNG prefix on SVG bytes.
      [`data:image/png;base64,${Buffer.from('<svg onload="alert(1)"/>').toString('base64')}`, 415, 50002],
      [
        `data:image/png;base64,${Buffer.concat([PNG, Buffer.alloc(70 * 1024)]).toString('base64')}`,
        413,
        50001,
      ],
      ['data:image/png;base64,***', 400, 10113],
      ['javascript:alert(1)', 400, 10113],
    ];
    for (const [icon, status, code] of cases) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/applications',
        token: admin,
        payload: { name: 'icon', platform: 'other', icon },
      });
      expect(res.statusCode, `${icon.slice(0, 40)}: ${res.body}`).toBe(status);
      expect(errorOf(res).code).toBe(code);
    }
    expect(
      checkIcon(`data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2]).toString('base64')}`),
    ).toMatch(/^data:image\/jpeg;base64,/);
  });

  it('refuse NUL and broken Unicode in every text field (10113, never 500)', async () => {
    for (const bad of ['a\u0000b', 'a\ud800b']) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/applications',
        token: admin,
        payload: { name: bad, platform: 'other' },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(errorOf(res).code).toBe(10113);
    }
    // NUL, and bytes that are no UTF-8 (a surrogate half), in the query string.
    for (const bad of ['a%00b', 'a%ED%A0%80b', '%FF']) {
      const q = await t.inject({ method: 'GET', url: `/api/applications?keyword=${bad}`, token: user.token });
      expect(q.statusCode, `${bad}: ${q.body}`).toBe(400);
      expect(errorOf(q).code).toBe(10113);
    }
    const platform = await t.inject({
      method: 'POST',
      url: '/api/applications',
      token: admin,
      payload: { name: 'p', platform: 'symbian' },
    });
    expect(errorOf(platform).code).toBe(10113);
    const huge = await t.inject({ method: 'GET', url: '/api/applications/99999999999', token: user.token });
    expect(errorOf(huge).code).toBe(10113);
  });
});

describe('application versions', () => {
  let appId: number;
  beforeAll(async () => {
    appId = (await create({ name: 'Android app', platform: 'android' })).id;
  });

  it('store an upload streamed with its size and SHA-256; any user downloads it', async () => {
    const content = apk(100 * 1024);
    const res = await upload(
      appId,
      { version: '1.0.0', notes_zh: '首个版本', notes_en: 'First release' },
      { name: '现场工具 v1.apk', content },
    );
    const v = data<ApplicationVersion>(res);
    expect(v).toMatchObject({
      version: '1.0.0',
      size: content.length,
      sha256: sha256(content),
      filename: '现场工具 v1.apk',
      content_type: 'application/vnd.android.package-archive',
      latest: true,
      force_update: false,
      notes_zh: '首个版本',
      notes_en: 'First release',
    });
    const file = await t.inject({
      method: 'GET',
      url: `/api/applications/${appId}/versions/${v.id}/file`,
      token: user.token,
    });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(content)).toBe(true);
    expect(file.headers['accept-ranges']).toBe('bytes');
    expect(file.headers.etag).toBe(`"${sha256(content)}"`);
    // RFC 5987: the exact UTF-8 name, and an ASCII fallback.
    expect(file.headers['content-disposition']).toBe(
      `attachment; filename="____ v1.apk"; filename*=UTF-8''${encodeURIComponent('现场工具 v1.apk')}`,
    );
    const signedOut = await t.inject({
      method: 'GET',
      url: `/api/applications/${appId}/versions/${v.id}/file`,
    });
    expect(signedOut.statusCode).toBe(403);
  });

  it('answer Range requests (206, If-Range, 416)', async () => {
    const content = apk(10_000);
    const v = data<ApplicationVersion>(await upload(appId, { version: '1.0.1' }, { name: 'r.apk', content }));
    const url = `/api/applications/${appId}/versions/${v.id}/file`;
    const part = await t.inject({
      method: 'GET',
      url,
      token: user.token,
      headers: { range: 'bytes=100-199' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${content.length}`);
    expect(part.rawPayload.equals(content.subarray(100, 200))).toBe(true);
    const tail = await t.inject({ method: 'GET', url, token: user.token, headers: { range: 'bytes=-10' } });
    expect(tail.rawPayload.equals(content.subarray(-10))).toBe(true);
    const stale = await t.inject({
      method: 'GET',
      url,
      token: user.token,
      headers: { range: 'bytes=0-9', 'if-range': '"other"' },
    });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(content.length);
    const bad = await t.inject({ method: 'GET', url, token: user.token, headers: { range: 'bytes=20000-' } });
    expect(bad.statusCode).toBe(416);
    expect(bad.headers['content-range']).toBe(`bytes */${content.length}`);
    expect(errorOf(bad).code).toBe(10113);
  });

  it('give a signed browser link that downloads without the token, until it expires', async () => {
    const content = apk(5000);
    const v = data<ApplicationVersion>(
      await upload(appId, { version: '1.0.2' }, { name: '工具.apk', content }),
    );
    const link = data<{ url: string; expires_at: string }>(
      await t.inject({
        method: 'POST',
        url: `/api/applications/${appId}/versions/${v.id}/link`,
        token: user.token,
      }),
    );
    expect(link.url).toMatch(/^\/api\/application-files\/\d+\.[0-9a-z]+\.[0-9a-f]{64}$/);
    const whole = await t.inject({ method: 'GET', url: link.url });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(content)).toBe(true);
    expect(whole.headers['content-disposition']).toContain(
      `filename*=UTF-8''${encodeURIComponent('工具.apk')}`,
    );
    const part = await t.inject({ method: 'GET', url: link.url, headers: { range: 'bytes=10-19' } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(content.subarray(10, 20))).toBe(true);

    const [, , sig] = link.url.split('/').pop()!.split('.');
    const other = link.url.replace(/\/\d+\./, `/${v.id + 1}.`);
    const tampered = link.url.replace(
      sig!,
      sig!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
    );
    for (const url of [other, tampered]) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(errorOf(res).code).toBe(10107);
    }
    const malformed = await t.inject({ method: 'GET', url: '/api/application-files/..%2Fetc' });
    expect(errorOf(malformed).code).toBe(10113);
    const unknown = await t.inject({
      method: 'POST',
      url: `/api/applications/${appId}/versions/999999/link`,
      token: user.token,
    });
    expect(errorOf(unknown).code).toBe(10107);
    const signedOut = await t.inject({
      method: 'POST',
      url: `/api/applications/${appId}/versions/${v.id}/link`,
    });
    expect(signedOut.statusCode).toBe(403);

    t.clock.advance(10 * 60_000 + 1000);
    try {
      const expired = await t.inject({ method: 'GET', url: link.url });
      expect(expired.statusCode).toBe(400);
      expect(errorOf(expired).code).toBe(10107);
    } finally {
      t.clock.advance(-(10 * 60_000 + 1000));
    }
  });

  it('keep exactly one latest version, in a transaction', async () => {
    const other = (await create({ name: 'Other', platform: 'linux' })).id;
    const o = data<ApplicationVersion>(
      await upload(
        other,
        { version: '9.0.0' },
        { name: 'o.AppImage', content: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 1, 2, 0, 0, 9]) },
      ),
    );
    expect(o.latest).toBe(true);
    const a = data<ApplicationVersion>(
      await upload(appId, { version: '2.0.0' }, { name: 'a.apk', content: apk(64) }),
    );
    const b = data<ApplicationVersion>(
      await upload(appId, { version: '2.1.0-beta', latest: 'false' }, { name: 'b.apk', content: apk(64) }),
    );
    expect(b.latest).toBe(false);
    const latestOf = async (id: number) =>
      (
        await t.app.deps.db
          .select()
          .from(applicationVersions)
          .where(eq(applicationVersions.applicationId, id))
      )
        .filter((v) => v.latest)
        .map((v) => v.version);
    expect(await latestOf(appId)).toEqual(['2.0.0']);
    // Two admins marking two versions at once: one latest at the end, no unique violation.
    const results = await Promise.all(
      [a.id, b.id].map((id) =>
        t.inject({
          method: 'PUT',
          url: `/api/applications/${appId}/versions/${id}`,
          token: admin,
          payload: { latest: true },
        }),
      ),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    expect(await latestOf(appId)).toHaveLength(1);
    await t.inject({
      method: 'PUT',
      url: `/api/applications/${appId}/versions/${b.id}`,
      token: admin,
      payload: { latest: true, force_update: true, notes_en: 'Beta' },
    });
    expect(await latestOf(appId)).toEqual(['2.1.0-beta']);
    // Another application's latest is untouched.
    expect(await latestOf(other)).toEqual(['9.0.0']);

    const item = data<ApplicationItem>(
      await t.inject({ method: 'GET', url: `/api/applications/${appId}`, token: user.token }),
    );
    expect(item.latest?.version).toBe('2.1.0-beta');
    expect(item.version_count).toBe(5);

    const check = await t.inject({
      method: 'GET',
      url: `/api/applications/${appId}/latest?current=2.0.0`,
      token: user.token,
    });
    expect(data(check)).toMatchObject({
      update_available: true,
      force_update: true,
      latest: { version: '2.1.0-beta' },
    });
    const upToDate = data<{ update_available: boolean }>(
      await t.inject({
        method: 'GET',
        url: `/api/applications/${appId}/latest?current=v2.1.0`,
        token: user.token,
      }),
    );
    expect(upToDate.update_available).toBe(false);

    const dup = await t.inject({
      method: 'PUT',
      url: `/api/applications/${appId}/versions/${b.id}`,
      token: admin,
      payload: { version: '2.0.0' },
    });
    expect(errorOf(dup).code).toBe(10113);
    expect(JSON.stringify(errorOf(dup).details)).toContain('version');
  });

  it('refuse too large, wrong type, empty, checksum mismatch and taken versions, leaving no file', async () => {
    const before = await storedFiles();
    const cases: [string, Record<string, string>, { name: string; content: Buffer }, number, number][] = [
      ['too large', { version: '3.0.0' }, { name: 'big.apk', content: apk(MAX + 1) }, 413, 50001],
      ['name', { version: '3.0.1' }, { name: 'tool.html', content: apk(100) }, 415, 50002],
      ['svg', { version: '3.0.1' }, { name: 'icon.svg', content: Buffer.from('<svg/>') }, 415, 50002],
      [
        'text as exe',
        { version: '3.0.2' },
        { name: 'tool.exe', content: Buffer.from('hello, world\n') },
        415,
        50002,
      ],
      [
        'page as zip',
        { version: '3.0.3' },
        { name: 'x.zip', content: Buffer.from('<!doctype html><p>') },
        415,
        50002,
      ],
      ['empty', { version: '3.0.4' }, { name: 'e.apk', content: Buffer.alloc(0) }, 400, 10113],
      [
        'checksum',
        { version: '3.0.5', sha256: 'a'.repeat(64) },
        { name: 'c.apk', content: apk(100) },
        400,
        10113,
      ],
      ['taken', { version: '1.0.0' }, { name: 'd.apk', content: apk(100) }, 400, 10113],
      ['version rule', { version: '../1' }, { name: 'd.apk', content: apk(100) }, 400, 10113],
      [
        'NUL in field',
        { version: '3.0.6', notes_en: 'a\u0000b' },
        { name: 'd.apk', content: apk(100) },
        400,
        10113,
      ],
      ['NUL in name', { version: '3.0.7' }, { name: 'd\u0000.apk', content: apk(100) }, 400, 10113],
    ];
    for (const [label, fields, file, status, code] of cases) {
      const res = await upload(appId, fields, file);
      expect(res.statusCode, `${label}: ${res.body}`).toBe(status);
      expect(errorOf(res).code, label).toBe(code);
    }
    const noFile = await upload(appId, { version: '3.1.0' });
    expect(errorOf(noFile).code).toBe(10113);
    const json = await t.inject({
      method: 'POST',
      url: `/api/applications/${appId}/versions`,
      token: admin,
      payload: { version: '3.2.0' },
    });
    expect(json.statusCode).toBe(415);
    expect(errorOf(json).code).toBe(50002);
    expect(await storedFiles()).toEqual(before);

    const good = await upload(
      appId,
      { version: '3.3.0', sha256: sha256(Buffer.from('x')) },
      { name: 'g.apk', content: apk(50) },
    );
    expect(errorOf(good).code).toBe(10113);
    const content = apk(50);
    const matched = await upload(
      appId,
      { version: '3.3.0', sha256: sha256(content).toUpperCase() },
      { name: 'g.apk', content },
    );
    expect(data<ApplicationVersion>(matched).sha256).toBe(sha256(content));
  });

  it('answer 40003 to an upload that breaks off, storing nothing', async () => {
    const before = await storedFiles();
    const whole = multipart({ version: '5.0.0' }, { name: 'cut.apk', content: apk(64 * 1024) });
    for (const cut of [0.5, 0.99]) {
      const res = await t.inject({
        method: 'POST',
        url: `/api/applications/${appId}/versions`,
        token: admin,
        headers: whole.headers,
        payload: whole.payload.subarray(0, Math.floor(whole.payload.length * cut)),
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(errorOf(res).code).toBe(40003);
    }
    expect(await storedFiles()).toEqual(before);
    const rows = await t.app.deps.db
      .select()
      .from(applicationVersions)
      .where(eq(applicationVersions.version, '5.0.0'));
    expect(rows).toEqual([]);
  });

  it('are uploaded, changed and deleted by admins only; users list and download', async () => {
    const refused = await upload(
      appId,
      { version: '4.0.0' },
      { name: 'u.apk', content: apk(100) },
      user.token,
    );
    expect(errorOf(refused).code).toBe(10108);
    const list = await t.inject({
      method: 'GET',
      url: `/api/applications/${appId}/versions`,
      token: user.token,
    });
    const versions = (list.json() as { data: ApplicationVersion[]; total: number }).data;
    expect(versions.length).toBeGreaterThan(2);
    const v = versions[0]!;
    for (const [method, url, payload] of [
      ['PUT', `/api/applications/${appId}/versions/${v.id}`, { notes_en: 'x' }],
      ['DELETE', `/api/applications/${appId}/versions/${v.id}`, undefined],
      ['DELETE', `/api/applications/${appId}`, undefined],
    ] as const) {
      const res = await t.inject({ method, url, token: user.token, payload });
      expect(errorOf(res).code, `${method} ${url}`).toBe(10108);
    }
    // A version of another application answers like a missing one.
    const other = await create({ name: 'Third', platform: 'ios' });
    const cross = await t.inject({
      method: 'GET',
      url: `/api/applications/${other.id}/versions/${v.id}/file`,
      token: user.token,
    });
    expect(errorOf(cross).code).toBe(10107);
  });

  it('delete a version with its file, and an application with all of them', async () => {
    const target = (await create({ name: 'Doomed', platform: 'dtu-tool' })).id;
    const v1 = data<ApplicationVersion>(
      await upload(target, { version: '1.0' }, { name: 'd.zip', content: apk(80) }),
    );
    data<ApplicationVersion>(await upload(target, { version: '1.1' }, { name: 'd.zip', content: apk(80) }));
    const filesBefore = (await storedFiles()).length;
    const del = await t.inject({
      method: 'DELETE',
      url: `/api/applications/${target}/versions/${v1.id}`,
      token: admin,
    });
    expect(del.statusCode, del.body).toBe(200);
    expect((await storedFiles()).length).toBe(filesBefore - 1);
    const gone = await t.inject({ method: 'DELETE', url: `/api/applications/${target}`, token: admin });
    expect(gone.statusCode, gone.body).toBe(200);
    expect((await storedFiles()).length).toBe(filesBefore - 2);
    const rows = await t.app.deps.db
      .select()
      .from(applicationVersions)
      .where(eq(applicationVersions.applicationId, target));
    expect(rows).toEqual([]);
    const audit = await t.app.deps.db.select().from(auditLogs).where(like(auditLogs.action, 'application_%'));
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining([
        'application_version_delete',
        'application_delete',
        'application_version_create',
      ]),
    );
  });
});

describe('package sniffing and version order', () => {
  it('know the signatures', () => {
    const head = (bytes: number[]) => Buffer.concat([Buffer.from(bytes), randomBytes(600)]);
    expect(sniffApplication(head([0x4d, 0x5a]), '.exe', false)).toBeUndefined();
    expect(sniffApplication(head([0x50, 0x4b, 0x03, 0x04]), '.exe', false)).toMatch(/Windows/);
    expect(sniffApplication(head([0x50, 0x4b, 0x03, 0x04]), '.ipa', false)).toBeUndefined();
    expect(sniffApplication(Buffer.from('!<arch>\ndebian-binary'), '.deb', true)).toBeUndefined();
    expect(sniffApplication(Buffer.from('#!/bin/sh\necho'), '.bin', true)).toMatch(/script/);
    expect(sniffApplication(Buffer.from('plain text'), '.dmg', true)).toMatch(/text/);
  });

  it('compares versions numerically, pre-releases first', () => {
    expect(compareVersions('1.10.0', '1.9.9')).toBeGreaterThan(0);
    expect(compareVersions('v2.0', '2.0.0')).toBe(0);
    expect(compareVersions('2.1.0-beta', '2.1.0')).toBeLessThan(0);
    expect(compareVersions('2.1.0-beta.2', '2.1.0-beta.10')).toBeLessThan(0);
    expect(compareVersions('2.0.0', '2.1.0-beta')).toBeLessThan(0);
  });
});
