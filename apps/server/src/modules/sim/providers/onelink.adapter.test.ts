import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthError, NotFoundError, ProviderError, RateLimitError } from './errors';
import { OnelinkAdapter } from './onelink.adapter';
import { FAULTS } from '../../../test/sim-providers/fake-http';
import { allowTestTarget, testOutboundAllow } from '../../../test/outbound';
import { FakeOnelink } from '../../../test/sim-providers/onelink-fake';

// 2025-06-15 12:00 in China (UTC+8).
const START = Date.parse('2025-06-15T04:00:00Z');
const ACTIVE = '89860412345678901234';
const STOCK = '898604B30522D0395436'; // China Mobile ICCIDs can carry letters
const PB_STOPPED = '89860400000000000002';
const NO_PACKAGE = '89860400000000000003';
const FOREIGN = '89860499999999999999';
const UNKNOWN = '89860400000000000000';

let fake: FakeOnelink;
let clock: number;
const now = () => new Date(clock);

function adapter(overrides: { password?: string; timeoutMs?: number; baseUrl?: string } = {}) {
  return new OnelinkAdapter(
    { appid: fake.appid, password: overrides.password ?? fake.password },
    {
      baseUrl: overrides.baseUrl ?? fake.baseUrl,
      now,
      timeoutMs: overrides.timeoutMs,
      outboundAllow: testOutboundAllow,
    },
  );
}

const requestsTo = (suffix: string) => fake.http.requests.filter((r) => r.path.endsWith(suffix));

beforeAll(async () => {
  fake = await new FakeOnelink().start();
  fake.now = now;
});
afterAll(() => fake.stop());

beforeEach(() => {
  clock = START;
  fake.reset();
  fake.foreignIccids.add(FOREIGN);
  fake.addCard({
    iccid: ACTIVE,
    cardStatus: '2',
    activeDate: '2024-03-01 10:20:30',
    monthKb: { '202506': 2048, '202505': 10240.5, '202501': 7 },
    dayKb: {
      '20250608': 100,
      '20250609': 0,
      '20250610': 300,
      '20250611': 400,
      '20250612': 500,
      '20250613': 600,
      '20250614': 700,
      '20250615': 999, // today: never asked
    },
    offerings: [
      { name: '1GB 月包', totalKb: 1048576, usedKb: 2048 },
      { name: '加油包 500MB', totalKb: 512000, usedKb: 0 },
    ],
  });
  fake.addCard({ iccid: STOCK, cardStatus: '7', activeDate: '' });
  fake.addCard({ iccid: PB_STOPPED, cardStatus: '02', activeDate: '20230102030405' });
  fake.addCard({ iccid: NO_PACKAGE, cardStatus: '2' });
});

describe('OneLink adapter: token and transid', () => {
  it('testConnection fetches a token with appid, password and a transid of appid + China time + 8 digits', async () => {
    await adapter().testConnection();
    expect(fake.tokenRequests).toBe(1);
    const call = requestsTo('/v5/ec/get/token')[0]!;
    expect(call.method).toBe('GET');
    expect(call.query.get('appid')).toBe(fake.appid);
    expect(call.query.get('password')).toBe(fake.password);
    expect(call.query.get('transid')).toMatch(new RegExp(`^${fake.appid}20250615120000\\d{8}$`));
  });

  it('wrong password: AuthError, not retryable', async () => {
    const err = await adapter({ password: 'wrong' })
      .testConnection()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).retryable).toBe(false);
    expect((err as Error).message).toContain('12022');
  });

  it('reuses one token across calls and sends a fresh transid on every call', async () => {
    const a = adapter();
    await a.getCards([ACTIVE, STOCK]);
    await a.getQuota(ACTIVE);
    expect(fake.tokenRequests).toBe(1);
    expect(fake.transids.length).toBe(requestsTo('').length);
    expect(new Set(fake.transids).size).toBe(fake.transids.length);
    for (const t of fake.transids) expect(t).toMatch(/^100001234\d{14}\d{8}$/);
  });

  it('token expired at the operator (12021): fetches a new token once and the call succeeds', async () => {
    const a = adapter();
    await a.getCards([ACTIVE]);
    fake.expireTokens();
    const res = await a.getCards([STOCK]);
    expect(res.cards[0]!.status).toBe('inactive');
    expect(fake.tokenRequests).toBe(2);
    // The refused call and its one retry.
    expect(requestsTo('/query/sim-status').length).toBe(3);
  });

  it('token refused again after the re-fetch: AuthError after exactly one retry', async () => {
    const a = adapter();
    await a.testConnection();
    fake.refuseAllTokens = true;
    const err = await a.getCards([ACTIVE]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(fake.tokenRequests).toBe(2);
    expect(requestsTo('/query/sim-status').length).toBe(2);
  });

  it('replaces its token before the ttl runs out instead of spending a call on 12021', async () => {
    fake.tokenTtlSeconds = 600;
    const a = adapter();
    await a.getQuota(ACTIVE);
    clock += 9.5 * 60_000; // inside the adapter's one-minute margin
    await a.getQuota(ACTIVE);
    expect(fake.tokenRequests).toBe(2);
    expect(requestsTo('/query/sim-data-margin').length).toBe(2);
  });
});

describe('OneLink adapter: cards', () => {
  it('normalises CT and PB statuses and keeps the raw value; unknown, foreign and malformed ICCIDs are notFound', async () => {
    const res = await adapter().getCards([ACTIVE, STOCK, PB_STOPPED, FOREIGN, UNKNOWN, 'bad_iccid']);
    expect(res.notFound).toEqual([FOREIGN, UNKNOWN, 'bad_iccid']);
    const byIccid = Object.fromEntries(res.cards.map((c) => [c.iccid, c]));
    expect(byIccid[ACTIVE]).toMatchObject({
      status: 'active',
      rawStatus: '2',
      msisdn: fake.cards.get(ACTIVE)!.msisdn,
      imsi: fake.cards.get(ACTIVE)!.imsi,
      expiresAt: null,
    });
    // 2024-03-01 10:20:30 China time.
    expect(byIccid[ACTIVE]!.activatedAt?.toISOString()).toBe('2024-03-01T02:20:30.000Z');
    expect(byIccid[STOCK]).toMatchObject({ status: 'inactive', rawStatus: '7', activatedAt: null });
    expect(byIccid[PB_STOPPED]).toMatchObject({ status: 'suspended', rawStatus: '02' });
    expect(byIccid[PB_STOPPED]!.activatedAt?.toISOString()).toBe('2023-01-01T19:04:05.000Z');
    // Nothing was sent for the malformed ICCID.
    expect(fake.http.requests.some((r) => r.query.get('iccid') === 'bad_iccid')).toBe(false);
  });

  it('a status the adapter has no mapping for is "unknown" with the raw value kept', async () => {
    fake.cards.get(ACTIVE)!.cardStatus = '5';
    const res = await adapter().getCards([ACTIVE]);
    expect(res.cards[0]).toMatchObject({ status: 'unknown', rawStatus: '5' });
  });
});

describe('OneLink adapter: usage', () => {
  it('this month: CMIOT_API25U04 in KB, and the 7 days before today from the daily batch', async () => {
    const usage = await adapter().getUsage(ACTIVE, { month: '2025-06' });
    expect(usage.usedBytes).toBe(2048 * 1024);
    expect(usage.daily).toEqual([
      { date: '2025-06-08', usedBytes: 100 * 1024 },
      { date: '2025-06-09', usedBytes: 0 },
      { date: '2025-06-10', usedBytes: 300 * 1024 },
      { date: '2025-06-11', usedBytes: 400 * 1024 },
      { date: '2025-06-12', usedBytes: 500 * 1024 },
      { date: '2025-06-13', usedBytes: 600 * 1024 },
      { date: '2025-06-14', usedBytes: 700 * 1024 },
    ]);
    const daily = requestsTo('/query/sim-data-usage-daily/batch');
    expect(daily.map((r) => r.query.get('queryDate'))).toEqual([
      '20250608',
      '20250609',
      '20250610',
      '20250611',
      '20250612',
      '20250613',
      '20250614',
    ]);
    expect(daily.every((r) => r.query.get('iccids') === ACTIVE)).toBe(true);
  });

  it('an earlier month: the monthly batch with queryDate yyyyMM; no daily figures outside the 7-day window', async () => {
    const usage = await adapter().getUsage(ACTIVE, { month: '2025-05' });
    expect(usage.usedBytes).toBe(Math.round(10240.5 * 1024));
    expect(usage.daily).toEqual([]);
    expect(requestsTo('/query/sim-data-usage-monthly/batch')[0]!.query.get('queryDate')).toBe('202505');
    expect(requestsTo('/query/sim-data-usage-daily/batch')).toHaveLength(0);
  });

  it('early in a month the 7-day window reaches into the previous month', async () => {
    clock = Date.parse('2025-06-02T16:30:00Z'); // 2025-06-03 00:30 in China
    const card = fake.cards.get(ACTIVE)!;
    card.dayKb = { '20250527': 1, '20250531': 5, '20250601': 10, '20250602': 20 };
    const june = await adapter().getUsage(ACTIVE, { month: '2025-06' });
    expect(june.daily).toEqual([
      { date: '2025-06-01', usedBytes: 10 * 1024 },
      { date: '2025-06-02', usedBytes: 20 * 1024 },
    ]);
    const may = await adapter().getUsage(ACTIVE, { month: '2025-05', daily: true });
    expect(may.daily?.map((d) => d.date)).toEqual([
      '2025-05-27',
      '2025-05-28',
      '2025-05-29',
      '2025-05-30',
      '2025-05-31',
    ]);
    expect(may.daily?.[4]).toEqual({ date: '2025-05-31', usedBytes: 5 * 1024 });
  });

  it('daily: false skips the daily calls', async () => {
    const usage = await adapter().getUsage(ACTIVE, { month: '2025-06', daily: false });
    expect(usage.daily).toBeNull();
    expect(requestsTo('/query/sim-data-usage-daily/batch')).toHaveLength(0);
  });

  it('months outside the operator window are refused without a call', async () => {
    const a = adapter();
    for (const month of ['2024-12', '2025-07']) {
      const err = await a.getUsage(ACTIVE, { month }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect((err as ProviderError).code).toBe('out_of_range');
      expect((err as ProviderError).retryable).toBe(false);
    }
    expect(fake.http.requests).toHaveLength(0);
    // The oldest month the operator still answers for.
    const jan = await a.getUsage(ACTIVE, { month: '2025-01' });
    expect(jan.usedBytes).toBe(7 * 1024);
  });

  it('unknown card: NotFoundError (12010), card of another customer: NotFoundError (12009)', async () => {
    const a = adapter();
    for (const iccid of [UNKNOWN, FOREIGN]) {
      const err = await a.getUsage(iccid, { month: '2025-06' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).iccid).toBe(iccid);
    }
  });

  it('rejects a month that is not YYYY-MM', async () => {
    await expect(adapter().getUsage(ACTIVE, { month: '2025-6' })).rejects.toThrow(TypeError);
  });
});

describe('OneLink adapter: quota', () => {
  it('sums the offerings of CMIOT_API23U07 (KB)', async () => {
    const quota = await adapter().getQuota(ACTIVE);
    expect(quota).toEqual({
      iccid: ACTIVE,
      totalBytes: (1048576 + 512000) * 1024,
      usedBytes: 2048 * 1024,
      remainingBytes: (1048576 - 2048 + 512000) * 1024,
      expiresAt: null,
    });
  });

  it('a card without package volume has no quota', async () => {
    expect(await adapter().getQuota(NO_PACKAGE)).toBeNull();
  });
});

describe('OneLink adapter: lifecycle', () => {
  it('activate picks the operType for the current status; suspend and resume; no call when already there', async () => {
    const a = adapter();
    await a.activate(STOCK); // 库存 -> 已激活
    expect(fake.cards.get(STOCK)!.cardStatus).toBe('2');
    await a.suspend(ACTIVE); // 已激活 -> 停机
    expect(fake.cards.get(ACTIVE)!.cardStatus).toBe('4');
    await a.suspend(ACTIVE); // already stopped: nothing to change
    expect(fake.statusChanges).toEqual([
      { iccid: STOCK, operType: '2' },
      { iccid: ACTIVE, operType: '0' },
    ]);
    expect(requestsTo('/change/sim-status')).toHaveLength(2);
  });

  it('a second change of the same card within 30 minutes is refused by the operator, later it works', async () => {
    const a = adapter();
    await a.suspend(ACTIVE);
    const err = await a.activate(ACTIVE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).retryable).toBe(false);
    expect((err as ProviderError).message).toContain('30分钟');
    clock += 31 * 60_000;
    await a.activate(ACTIVE); // 停机 -> 已激活 (operType 1)
    expect(fake.cards.get(ACTIVE)!.cardStatus).toBe('2');
    expect(fake.statusChanges.at(-1)).toEqual({ iccid: ACTIVE, operType: '1' });
  });

  it('no documented transition (OneLink-PB status): ProviderError transition, nothing changed', async () => {
    const err = await adapter()
      .activate(PB_STOPPED)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).code).toBe('transition');
    expect(requestsTo('/change/sim-status')).toHaveLength(0);
  });

  it('unknown card: NotFoundError', async () => {
    await expect(adapter().activate(UNKNOWN)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('OneLink adapter: failures', () => {
  it('HTTP 429: RateLimitError with the Retry-After seconds', async () => {
    fake.http.inject(FAULTS.rateLimited(30), { path: '/query/sim-status' });
    const err = await adapter()
      .getCards([ACTIVE])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterSeconds).toBe(30);
    expect((err as RateLimitError).retryable).toBe(true);
  });

  it('HTTP 429 on the token call, with an HTTP-date Retry-After', async () => {
    fake.http.inject(
      { ...FAULTS.rateLimited(), headers: { 'retry-after': new Date(START + 90_000).toUTCString() } },
      { path: '/get/token' },
    );
    const err = await adapter()
      .testConnection()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterSeconds).toBe(90);
  });

  it('a reply that is not JSON: ProviderError malformed, retryable', async () => {
    fake.http.inject(FAULTS.malformed(), { path: '/query/sim-basic-info' });
    const err = await adapter()
      .getCards([ACTIVE])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).code).toBe('malformed');
    expect((err as ProviderError).retryable).toBe(true);
  });

  it('JSON of the wrong shape (envelope or result): ProviderError malformed', async () => {
    const a = adapter();
    fake.http.inject(FAULTS.wrongShape(), { path: '/query/sim-data-margin' });
    await expect(a.getQuota(ACTIVE)).rejects.toMatchObject({ code: 'malformed' });
    fake.http.inject(
      { status: 200, json: { status: '0', message: '正确', result: [{ dataAmount: 'lots' }] } },
      { path: '/query/sim-data-usage' },
    );
    await expect(a.getUsage(ACTIVE, { month: '2025-06' })).rejects.toMatchObject({ code: 'malformed' });
    fake.http.inject(
      { status: 200, json: { status: '0', message: '正确', result: [] } },
      { path: '/get/token' },
    );
    await expect(adapter().testConnection()).rejects.toMatchObject({ code: 'malformed' });
  });

  it('HTTP 5xx: ProviderError, retryable, with the status', async () => {
    fake.http.inject(FAULTS.serverError(502), { path: '/query/sim-status' });
    const err = await adapter()
      .getCards([ACTIVE])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'http_502', status: 502, retryable: true });
  });

  it('another operator error code: ProviderError with that code, not retryable', async () => {
    fake.http.inject(
      { status: 200, json: { status: '12345', message: '系统繁忙', result: [] } },
      {
        path: '/query/sim-status',
      },
    );
    const err = await adapter()
      .getCards([ACTIVE])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: '12345', retryable: false });
  });

  it('no answer within the timeout: ProviderError timeout, retryable', async () => {
    fake.http.inject(FAULTS.slow(2000), { path: '/get/token' });
    const err = await adapter({ timeoutMs: 150 })
      .testConnection()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'timeout', retryable: true });
  });

  it('nobody listening: ProviderError network, retryable, without the password in the message', async () => {
    allowTestTarget('http://127.0.0.1:9');
    const err = await adapter({ baseUrl: 'http://127.0.0.1:9/v5/ec' })
      .testConnection()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'network', retryable: true });
    expect((err as Error).message).not.toContain(fake.password);
  });

  it('a base URL on a private or local address: ProviderError refused, not retryable, nothing sent', async () => {
    const before = fake.http.requests.length;
    for (const baseUrl of [
      'http://169.254.169.254/v5/ec',
      'http://10.0.0.1/v5/ec',
      fake.baseUrl.replace('127.0.0.1', 'localhost'),
    ]) {
      const err = await new OnelinkAdapter(
        { appid: fake.appid, password: fake.password },
        { baseUrl, now, outboundAllow: [] },
      )
        .testConnection()
        .catch((e: unknown) => e);
      expect(err, baseUrl).toBeInstanceOf(ProviderError);
      expect(err, baseUrl).toMatchObject({ code: 'refused', retryable: false });
      expect((err as Error).message).not.toContain(fake.password);
    }
    expect(fake.http.requests.length).toBe(before);
  });
});
