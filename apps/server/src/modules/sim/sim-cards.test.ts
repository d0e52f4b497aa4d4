import { eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardOverview } from '@cellhub/contract/dashboard';
import type { OtaTaskPreview } from '@cellhub/contract/ota';
import type {
  SimCardBatchResult,
  SimCardDetail,
  SimCardItem,
  SimCardLogItem,
  SimUsageImportResult,
  SimUsageSeries,
} from '@cellhub/contract/sim';
import { connectDevice, createDevices, eventually, up } from '../../test/gateway-test-kit';
import { buildTestApp, type TestApp } from '../../test/app';
import { devices } from '../devices/devices.table';
import { otaFixture } from '../../test/ota-test-kit';
import { simDownloadCheck } from './sim-cards.service';
import {
  api,
  createCard,
  createPackage,
  expectCode,
  manualProvider,
  newIccid,
  topup,
  withLuhn,
} from '../../test/sim-test-support';

const DB = process.env.TEST_DB === 'postgres' ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;
const MQTT_PORT = process.env.TEST_DB === 'postgres' ? 20012 : 20011;

let t: TestApp;
let admin: string;
let provider: number;
let providerName: string;

beforeAll(async () => {
  t = await buildTestApp({ config: { simSyncTickMs: 0, mqttPort: MQTT_PORT } });
  admin = await t.adminToken();
  provider = await manualProvider(t, admin);
  providerName = (await api<{ name: string }>(t, admin, 'GET', `/api/card-admin/providers/${provider}`)).name;
});
afterAll(() => t.close());

const BOUNDARY = '----simboundary';
function multipart(
  filename: string,
  content: Buffer | string,
): { payload: Buffer; headers: Record<string, string> } {
  const head =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  return {
    payload: Buffer.concat([Buffer.from(head), Buffer.from(content), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}
const upload = (url: string, filename: string, content: Buffer | string, token = admin) =>
  t.inject({ method: 'POST', url, token, ...multipart(filename, content) });

describe(`creating cards (${DB})`, () => {
  it('creates one card on a package (validity and allowance start now) and logs it', async () => {
    const pkg = await createPackage(t, admin, { flow_mb: 300, validity_unit: 'day', validity_count: 10 });
    const iccid = newIccid();
    const c = await api<SimCardDetail>(t, admin, 'POST', '/api/card-admin/cards', {
      iccid,
      phone: '1440123456789',
      imsi: '460040123456789',
      operator: 'china_mobile',
      provider_id: provider,
      package_id: pkg,
      remark: 'lab',
    });
    expect(c).toMatchObject({
      iccid,
      phone: '1440123456789',
      status: 'inactive',
      month_total: 300,
      remaining_traffic: 300,
      month_used: 0,
      package_id: pkg,
      provider_name: providerName,
      flags: ['expiring'],
    });
    expect(Date.parse(c.expiry!) - Date.now()).toBeGreaterThan(9 * DAY);
    const logs = await api<SimCardLogItem[]>(t, admin, 'GET', '/api/card-admin/card-logs');
    expect(logs[0]).toMatchObject({ source: 'single', total: 1, created: 1, failed: 0, username: 'admin' });
  });

  it('an edit changes only the fields it sends', async () => {
    const iccid = newIccid();
    await api(t, admin, 'POST', '/api/card-admin/cards', {
      iccid,
      phone: '1440123450000',
      imsi: '460040123450000',
      operator: 'china_mobile',
      provider_id: provider,
      remark: 'rack 2',
    });
    const expiry = new Date(Date.now() + 5 * DAY).toISOString();
    const c = await api<SimCardDetail>(t, admin, 'PUT', `/api/card-admin/cards/${iccid}`, { expiry });
    expect(c).toMatchObject({ phone: '1440123450000', imsi: '460040123450000', remark: 'rack 2', expiry });
    const cleared = await api<SimCardDetail>(t, admin, 'PUT', `/api/card-admin/cards/${iccid}`, {
      phone: '',
    });
    expect(cleared).toMatchObject({ phone: '', imsi: '460040123450000', remark: 'rack 2' });
  });

  it('refuses duplicates, bad ICCIDs, unknown references and a package of another operator', async () => {
    const iccid = await createCard(t, admin, { provider_id: provider });
    const body = { iccid, operator: 'china_mobile', provider_id: provider };
    expect(
      expectCode(
        await t.inject({ method: 'POST', url: '/api/card-admin/cards', token: admin, payload: body }),
        60006,
      ),
    ).toEqual([{ field: 'iccid', message: 'exists' }]);
    const post = (payload: object) =>
      t.inject({ method: 'POST', url: '/api/card-admin/cards', token: admin, payload });
    const luhnBad = `${withLuhn('8988228066602306711').slice(0, 19)}${(Number(withLuhn('8988228066602306711').slice(19)) + 1) % 10}`;
    expect(expectCode(await post({ ...body, iccid: luhnBad }), 10113)).toEqual([
      { field: 'iccid', message: 'iccid_luhn' },
    ]);
    expect(expectCode(await post({ ...body, iccid: '12345' }), 10113)).toEqual([
      { field: 'iccid', message: 'iccid_rule' },
    ]);
    // A valid 20-digit international ICCID with its check digit, and a 19-digit one, are accepted.
    await api(t, admin, 'POST', '/api/card-admin/cards', { ...body, iccid: withLuhn('8988228066602399911') });
    await api(t, admin, 'POST', '/api/card-admin/cards', { ...body, iccid: '8988228066602399912' });
    expect(expectCode(await post({ ...body, iccid: newIccid(), provider_id: 999_999 }), 10113)).toEqual([
      { field: 'provider_id', message: 'unknown provider' },
    ]);
    const unicom = await createPackage(t, admin, { operator: 'china_unicom' });
    expectCode(await post({ ...body, iccid: newIccid(), package_id: unicom }), 60005);
    expect(expectCode(await post({ ...body, iccid: newIccid(), uid: 999_999 }), 10113)).toEqual([
      { field: 'uid', message: 'unknown user' },
    ]);
  });

  it('batch: creates the good rows and logs every bad one with its row and reason', async () => {
    const pkg = await createPackage(t, admin);
    const { code } = await api<{ code: string }>(t, admin, 'GET', `/api/packages/${pkg}`);
    const existing = await createCard(t, admin, { provider_id: provider });
    const good1 = newIccid();
    const good2 = newIccid();
    const luhnBad = withLuhn('8988228066602300001').replace(/\d$/, (d) => String((Number(d) + 5) % 10));
    const csv = [
      'ICCID,msisdn,imsi,运营商,provider,package',
      `${good1},13800000001,460001234567890,移动,${providerName},${code}`,
      `${good2},,,,${provider},`,
      '12345,,,,x,',
      `${luhnBad},,,,${provider},`,
      `${good1},,,,${provider},`,
      `${existing},,,,${provider},`,
      `${newIccid()},,,,nope,`,
      `${newIccid()},,,,${provider},NOPKG`,
      `${newIccid()},abc,,,${provider},`,
      `${newIccid()},,,martian,${provider},`,
      '',
    ].join('\r\n');
    const res = await upload('/api/card-admin/cards/batch', 'stock.csv', `\ufeff${csv}`);
    expect(res.statusCode).toBe(200);
    const log = (res.json() as { data: SimCardBatchResult }).data;
    expect(log).toMatchObject({ source: 'batch', filename: 'stock.csv', total: 10, created: 2, failed: 8 });
    expect(log.iccids.sort()).toEqual([good1, good2].sort());
    expect(log.failures.map((f) => [f.row, f.reason])).toEqual([
      [4, 'iccid_rule'],
      [5, 'iccid_luhn'],
      [6, 'duplicate_in_file'],
      [7, 'duplicate'],
      [8, 'unknown_provider'],
      [9, 'unknown_package'],
      [10, 'invalid'],
      [11, 'invalid'],
    ]);
    const c1 = await api<SimCardDetail>(t, admin, 'GET', `/api/cards/${good1}`);
    expect(c1).toMatchObject({
      phone: '13800000001',
      imsi: '460001234567890',
      operator: 'china_mobile',
      package_id: pkg,
    });
    const list = await api<SimCardLogItem[]>(t, admin, 'GET', '/api/card-admin/card-logs');
    expect(list[0]).toMatchObject({ id: log.id, created: 2, failed: 8 });
    const detail = await api<SimCardBatchResult>(t, admin, 'GET', `/api/card-admin/card-logs/${log.id}`);
    expect(detail.failures).toHaveLength(8);
  });

  it('batch: reads .xlsx too (an ICCID stored as a number is refused with a hint)', async () => {
    const { default: ExcelJS } = await import('exceljs');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('cards');
    const a = newIccid();
    ws.addRow(['iccid', 'provider', 'operator']);
    ws.addRow([a, providerName, 'china_mobile']);
    // Typed into a number cell, a 20-digit ICCID keeps only about 16 significant digits.
    ws.addRow([Number('89860012345678901234'), providerName, '']);
    const buf = Buffer.from(await wb.xlsx.writeBuffer());
    const res = await upload('/api/card-admin/cards/batch', 'cards.xlsx', buf);
    expect(res.statusCode).toBe(200);
    const log = (res.json() as { data: SimCardBatchResult }).data;
    expect(log.iccids).toEqual([a]);
    expect(log.failures[0]).toMatchObject({ row: 3, reason: 'iccid_rule' });
    expect(log.failures[0]?.message).toContain('format the column as text');
  });

  it('batch: refuses other file types, files without an iccid column, and non-admins', async () => {
    expectCode(await upload('/api/card-admin/cards/batch', 'cards.txt', 'iccid\n1'), 50002, 415);
    expectCode(await upload('/api/card-admin/cards/batch', 'cards.csv', 'phone\n123'), 50003);
    const u = await t.createUser();
    expectCode(await upload('/api/card-admin/cards/batch', 'cards.csv', 'iccid\n1', u.token), 10108);
    expectCode(
      await t.inject({ method: 'POST', url: '/api/card-admin/cards/batch', token: admin, payload: {} }),
      50002,
      415,
    );
  });
});

describe(`lists, usage and flags (${DB})`, () => {
  let u: { uid: number; token: string };
  let monthly: number;
  let full: string;
  let half: string;
  let expired: string;
  let unicom: string;

  beforeAll(async () => {
    u = await t.createUser();
    const uniProvider = await manualProvider(t, admin, 'china_unicom');
    monthly = await createPackage(t, admin, { flow_mb: 100, validity_unit: 'day', validity_count: 20 });
    full = await createCard(t, admin, { provider_id: provider, uid: u.uid, package_id: monthly });
    half = await createCard(t, admin, { provider_id: provider, uid: u.uid, package_id: monthly });
    expired = await createCard(t, admin, { provider_id: provider, uid: u.uid, package_id: monthly });
    unicom = await createCard(t, admin, { provider_id: uniProvider, uid: u.uid, operator: 'china_unicom' });
    await api(t, admin, 'PUT', `/api/card-admin/cards/${expired}`, {
      expiry: new Date(Date.now() - DAY).toISOString(),
      status: 'active',
    });
  });

  it('imports daily usage: months are the sum of their days, traffic left and flags follow', async () => {
    const today = new Date();
    const day = (n: number) =>
      new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), n)).toISOString().slice(0, 10);
    const lastMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 15))
      .toISOString()
      .slice(0, 10);
    const csv = [
      'iccid,date,used_mb',
      `${full},${day(1)},70`,
      `${full},${day(1)},80`, // replaces the first figure for that day
      `${full},${lastMonth},999`,
      `${half},${day(1)},50`,
      `${newIccid()},${day(1)},5`,
      `${half},2025-02-30,5`,
      `${half},${day(1)},-1`,
    ].join('\n');
    const res = await upload('/api/card-admin/usage/import', 'usage.csv', csv);
    const result = (res.json() as { data: SimUsageImportResult }).data;
    expect(result).toMatchObject({ total: 7, imported: 4 });
    expect(result.failures.map((f) => [f.row, f.message])).toEqual([
      [6, 'no such card'],
      [7, 'date must be YYYY-MM-DD'],
      [8, 'used_mb must be a number of MB, 0 or more'],
    ]);
    const f = await api<SimCardDetail>(t, u.token, 'GET', `/api/cards/${full}`);
    // Only this month counts against a monthly allowance (last month's 999 MB does not).
    expect(f).toMatchObject({ month_used: 80, month_total: 100, remaining_traffic: 20 });
    await upload('/api/card-admin/usage/import', 'more.csv', `iccid,date,used_mb\n${full},${day(1)},100\n`);
    const f2 = await api<SimCardDetail>(t, u.token, 'GET', `/api/cards/${full}`);
    expect(f2.remaining_traffic).toBe(0);
    expect(f2.flags).toContain('exhausted');
    const h = await api<SimCardDetail>(t, u.token, 'GET', `/api/cards/${half}`);
    expect(h).toMatchObject({ month_used: 50, remaining_traffic: 50 });
    expect(h.flags).not.toContain('exhausted');

    const days = await api<SimUsageSeries>(
      t,
      u.token,
      'GET',
      `/api/cards/${full}/usage?granularity=day&from=${lastMonth}&to=${day(28)}`,
    );
    expect(days.points[0]).toEqual({ period: lastMonth, used: 999 });
    const months = await api<SimUsageSeries>(t, u.token, 'GET', `/api/cards/${full}/usage?granularity=month`);
    expect(months.points.map((p) => p.period)).toEqual([lastMonth.slice(0, 7), day(1).slice(0, 7)]);
    expect(months.points[0]?.used).toBe(999);
    expectCode(
      await t.inject({
        method: 'GET',
        url: `/api/cards/${full}/usage?granularity=month&from=2025-01-01`,
        token: u.token,
      }),
      10113,
    );
    expectCode(
      await t.inject({ method: 'GET', url: `/api/cards/${full}/usage?from=2025-02-30`, token: u.token }),
      10113,
    );
    expectCode(
      await t.inject({
        method: 'GET',
        url: `/api/cards/${full}/usage?granularity=month&to=2025-13`,
        token: u.token,
      }),
      10113,
    );
  });

  it('filters by status, operator, flag, expiring window and keyword; admins by provider and user', async () => {
    const list = async (qs: string, token = u.token) =>
      (await api<SimCardItem[]>(t, token, 'GET', `/api/cards?per_page=100&${qs}`)).map((c) => c.iccid).sort();
    expect(await list('')).toEqual([full, half, expired, unicom].sort());
    expect(await list('operator=china_unicom')).toEqual([unicom]);
    expect(await list('status=active')).toEqual([expired]);
    expect(await list('flag=expired')).toEqual([expired]);
    expect(await list('flag=exhausted')).toEqual([full]);
    expect(await list('expiring_days=30')).toEqual([full, half].sort());
    expect(await list('flag=expiring')).toEqual([full, half].sort());
    expect(await list(`keyword=${half.slice(-8)}`)).toEqual([half]);
    expect(await list(`uid=${u.uid}&provider_id=${provider}`, admin)).toEqual([full, half, expired].sort());
    expectCode(await t.inject({ method: 'GET', url: '/api/cards?status=gone', token: u.token }), 10113);
    expectCode(await t.inject({ method: 'GET', url: '/api/card-admin/cards', token: u.token }), 10108);
    const adminList = await api<SimCardItem[]>(
      t,
      admin,
      'GET',
      `/api/card-admin/cards?uid=${u.uid}&per_page=100`,
    );
    expect(adminList).toHaveLength(4);
  });

  it('exports the filtered cards as CSV', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/api/cards/export?operator=china_mobile',
      token: u.token,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toContain('sim-cards.csv');
    const lines = res.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      'iccid,phone,imsi,operator,status,package_name,remaining_traffic,month_total,month_used,activation_time,expiry,device_sn',
    );
    expect(lines).toHaveLength(4);
    const row = lines.find((l) => l.startsWith(full))!.split(',');
    expect(row.slice(6, 9)).toEqual(['0', '100', row[8]]);
  });

  it('tells the OTA engine which SIMs can take a download', async () => {
    const sns = ['SIMOTA1', 'SIMOTA2', 'SIMOTA3', 'SIMOTA4', 'SIMOTA5'].map(
      (s) => `${s}${Date.now() % 10000}`,
    );
    const fx = await otaFixture(t, u.token, admin, sns, { size: 60 * 1024 * 1024 });
    const withIccid: [string, string][] = [
      [sns[0]!, full],
      [sns[1]!, half],
      [sns[2]!, expired],
    ];
    for (const [sn, iccid] of withIccid)
      await t.app.deps.db.update(devices).set({ iccid }).where(eq(devices.sn, sn));
    const sus = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    await api(t, admin, 'PUT', `/api/card-admin/cards/${sus}`, { status: 'suspended' });
    await t.app.deps.db.update(devices).set({ iccid: sus }).where(eq(devices.sn, sns[3]!));
    const mb = 1024 * 1024;
    const verdicts = await simDownloadCheck(t.app.deps.db, sns, 40 * mb);
    expect(Object.fromEntries(verdicts)).toEqual({
      [sns[0]!]: { ok: false, reason: 'no_traffic' },
      [sns[1]!]: { ok: true },
      [sns[2]!]: { ok: false, reason: 'expired' },
      [sns[3]!]: { ok: false, reason: 'suspended' },
      [sns[4]!]: { ok: true },
    });
    expect((await simDownloadCheck(t.app.deps.db, [sns[1]!], 60 * mb)).get(sns[1]!)).toEqual({
      ok: false,
      reason: 'not_enough_traffic',
    });
    // The OTA preview counts what the check refuses (60 MB image: the 50 MB left on `half` is not enough).
    const preview = await api<OtaTaskPreview>(t, u.token, 'POST', '/api/ota/tasks/preview', {
      product_key: fx.productKey,
      version_id: fx.versionId,
      targets: { type: 'all' },
    });
    expect(preview).toMatchObject({ device_count: 5, sim_blocked_count: 4, download_devices: 1 });
  });

  it('Workplace: balance, pending and renewal orders, cards by operator and expiring soon', async () => {
    await topup(t, admin, u.uid, 5000);
    await api(t, u.token, 'POST', '/api/orders', { package_id: monthly, iccids: [half], pay: true });
    await api(t, u.token, 'POST', '/api/orders', { package_id: monthly, iccids: [full] });
    const o = await api<DashboardOverview>(t, u.token, 'GET', '/api/dashboard/overview');
    expect(o.sim).toMatchObject({
      balance_fen: 4000,
      orders_pending: 1,
      orders_renewal: 1,
      cards_expiring_30d: 1,
    });
    expect(o.sim.cards_by_operator).toEqual(
      expect.arrayContaining([
        { operator: 'china_mobile', total: 4 },
        { operator: 'china_unicom', total: 1 },
      ]),
    );
    const all = await api<DashboardOverview>(t, admin, 'GET', '/api/dashboard/overview');
    expect(all.sim.cards_total).toBeGreaterThan(o.sim.cards_total);
  });
});

describe(`SIM swap (${DB})`, () => {
  let client: MqttClient | undefined;
  afterAll(async () => {
    await client?.endAsync();
  });

  it('flags a device whose reported iccid changes, on both cards', async () => {
    const u = await t.createUser();
    const first = await createCard(t, admin, { provider_id: provider, uid: u.uid });
    const second = await createCard(t, admin, { provider_id: provider });
    const [d] = await createDevices(t, u.token, [`SIMSWAP${Date.now() % 100000}`]);
    client = await connectDevice(`mqtt://127.0.0.1:${t.app.broker.port}`, d!);
    const report = async (iccid: string) => {
      await client!.publishAsync(up(d!, 'info'), JSON.stringify({ iccid, fw_version: '1.0' }), { qos: 1 });
      await eventually(async () => {
        const dev = await api<{ iccid: string }>(t, u.token, 'GET', `/api/devices/${d!.sn}`);
        return dev.iccid === iccid ? true : undefined;
      });
    };
    await report(first);
    expect((await api<SimCardDetail>(t, u.token, 'GET', `/api/cards/${first}`)).swaps).toEqual([]);
    await report(first); // the same iccid again is no swap
    await report(second);
    const now = await api<SimCardDetail>(t, u.token, 'GET', `/api/cards/${second}`);
    expect(now.device?.sn).toBe(d!.sn);
    expect(now.flags).toContain('swapped');
    expect(now.swaps).toEqual([expect.objectContaining({ sn: d!.sn, old_iccid: first, new_iccid: second })]);
    const before = await api<SimCardDetail>(t, u.token, 'GET', `/api/cards/${first}`);
    expect(before.flags).toContain('swapped');
    expect(before.device).toBeNull();
    const flagged = await api<SimCardItem[]>(t, u.token, 'GET', '/api/cards?flag=swapped');
    expect(flagged.map((c) => c.iccid).sort()).toEqual([first, second].sort());
  });
});
