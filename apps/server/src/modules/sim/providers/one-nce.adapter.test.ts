import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthError, NotFoundError, ProviderError, RateLimitError } from './errors';
import { OneNceAdapter, parseOneNceDate } from './one-nce.adapter';
import { FAULTS } from '../../../test/sim-providers/fake-http';
import { testOutboundAllow } from '../../../test/outbound';
import { FakeOneNce } from '../../../test/sim-providers/one-nce-fake';

const START = Date.parse('2025-06-15T12:00:00Z');
const ENABLED = '8988280666000000001';
const DISABLED = '8988280666000000002';
const FOREIGN = '8988280666000000999';
const UNKNOWN = '8988280666000000000';
const MiB = 1024 * 1024;

let fake: FakeOneNce;
let clock: number;
const now = () => new Date(clock);

function adapter(overrides: { password?: string; username?: string } = {}) {
  return new OneNceAdapter(
    { username: overrides.username ?? fake.username, password: overrides.password ?? fake.password },
    { baseUrl: fake.baseUrl, now, outboundAllow: testOutboundAllow },
  );
}

const requestsTo = (suffix: string) => fake.http.requests.filter((r) => r.path.endsWith(suffix));

beforeAll(async () => {
  fake = await new FakeOneNce().start();
  fake.now = now;
});
afterAll(() => fake.stop());

beforeEach(() => {
  clock = START;
  fake.reset();
  fake.foreignIccids.add(FOREIGN);
  fake.addSim({
    iccid: ENABLED,
    status: 'Enabled',
    activation_date: '2024-03-09T07:59:09.000+0000',
    quota: { volume: 435.5, total_volume: 500, expiry_date: '2034-03-09T00:00:00.000Z' },
    dailyMb: {
      '2025-05-02': 1.25,
      '2025-05-31': 2,
      '2025-06-01': 0.5,
      '2025-06-14': 3.000001,
      '2025-06-15': 1,
    },
  });
  fake.addSim({ iccid: DISABLED, status: 'Disabled', quota: null });
});

describe('1NCE adapter: token', () => {
  it('testConnection: POST /oauth/token with Basic auth and grant_type, then one SIM list call with the bearer', async () => {
    await adapter().testConnection();
    const token = requestsTo('/management-api/oauth/token');
    expect(token).toHaveLength(1);
    expect(token[0]!.method).toBe('POST');
    expect(token[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${fake.username}:${fake.password}`).toString('base64')}`,
    );
    expect(JSON.parse(token[0]!.body)).toEqual({ grant_type: 'client_credentials' });
    const list = requestsTo('/management-api/v1/sims');
    expect(list).toHaveLength(1);
    expect(list[0]!.query.get('pageSize')).toBe('1');
    expect(list[0]!.headers.authorization).toMatch(/^Bearer \S+$/);
  });

  it('wrong password or user: AuthError naming BadCredentials', async () => {
    for (const creds of [{ password: 'nope' }, { username: 'someone-else' }]) {
      const err = await adapter(creds)
        .testConnection()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthError);
      expect((err as Error).message).toContain('BadCredentials');
    }
    expect(requestsTo('/v1/sims')).toHaveLength(0);
  });

  it('token expired at 1NCE (401): one new token, the call succeeds', async () => {
    const a = adapter();
    await a.getQuota(ENABLED);
    fake.expireTokens();
    const quota = await a.getQuota(ENABLED);
    expect(quota?.totalBytes).toBe(500 * MiB);
    expect(fake.tokenRequests).toBe(2);
    expect(requestsTo('/quota/data')).toHaveLength(3);
  });

  it('401 again with the fresh token: AuthError after exactly one re-fetch', async () => {
    fake.http.inject(FAULTS.unauthorized(), { path: `/v1/sims/${ENABLED}`, times: 2 });
    const err = await adapter()
      .getCards([ENABLED])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(fake.tokenRequests).toBe(2);
    expect(requestsTo(`/v1/sims/${ENABLED}`)).toHaveLength(2);
  });

  it('uses expires_in: a token near its end is replaced before the call', async () => {
    const a = adapter();
    await a.getQuota(ENABLED);
    clock += 3599 * 1000;
    await a.getQuota(ENABLED);
    expect(fake.tokenRequests).toBe(2);
    expect(requestsTo('/quota/data')).toHaveLength(2);
  });

  it('concurrent calls share one token request', async () => {
    const a = adapter();
    await Promise.all([a.getQuota(ENABLED), a.getQuota(ENABLED), a.getCards([DISABLED])]);
    expect(fake.tokenRequests).toBe(1);
  });
});

describe('1NCE adapter: cards', () => {
  it('status, numbers, activation date and quota expiry; 404 and 403 cards are notFound', async () => {
    const res = await adapter().getCards([ENABLED, DISABLED, FOREIGN, UNKNOWN, '../etc']);
    expect(res.notFound).toEqual([FOREIGN, UNKNOWN, '../etc']);
    expect(res.cards).toHaveLength(2);
    const [enabled, disabled] = res.cards;
    expect(enabled).toMatchObject({
      iccid: ENABLED,
      status: 'active',
      rawStatus: 'Enabled',
      msisdn: fake.sims.get(ENABLED)!.msisdn,
      imsi: fake.sims.get(ENABLED)!.imsi,
    });
    expect(enabled!.activatedAt?.toISOString()).toBe('2024-03-09T07:59:09.000Z');
    expect(enabled!.expiresAt?.toISOString()).toBe('2034-03-09T00:00:00.000Z');
    // No data quota (404 on quota/data): no expiry, still a card.
    expect(disabled).toMatchObject({ status: 'suspended', rawStatus: 'Disabled', expiresAt: null });
    expect(fake.http.requests.some((r) => r.path.includes('etc'))).toBe(false);
  });

  it('a status value outside the documented enum is "unknown", raw value kept', async () => {
    (fake.sims.get(ENABLED) as { status: string }).status = 'Activated';
    const res = await adapter().getCards([ENABLED]);
    expect(res.cards[0]).toMatchObject({ status: 'unknown', rawStatus: 'Activated' });
  });
});

describe('1NCE adapter: usage and quota', () => {
  it('this month: start_dt the 1st, end_dt today (UTC), daily records summed, MB read as MiB', async () => {
    const usage = await adapter().getUsage(ENABLED, { month: '2025-06' });
    const call = requestsTo('/usage')[0]!;
    expect(call.query.get('start_dt')).toBe('2025-06-01');
    expect(call.query.get('end_dt')).toBe('2025-06-15');
    expect(usage.daily).toEqual([
      { date: '2025-06-01', usedBytes: 0.5 * MiB },
      { date: '2025-06-14', usedBytes: Math.round(3.000001 * MiB) },
      { date: '2025-06-15', usedBytes: MiB },
    ]);
    expect(usage.usedBytes).toBe(0.5 * MiB + Math.round(3.000001 * MiB) + MiB);
    expect(usage.month).toBe('2025-06');
  });

  it('an earlier month runs to its last day', async () => {
    const usage = await adapter().getUsage(ENABLED, { month: '2025-05', daily: false });
    expect(requestsTo('/usage')[0]!.query.get('end_dt')).toBe('2025-05-31');
    expect(usage.usedBytes).toBe(1.25 * MiB + 2 * MiB);
    expect(usage.daily).toBeNull();
  });

  it('months before the six-month window or in the future are refused without a call', async () => {
    for (const month of ['2024-12', '2025-07']) {
      const err = await adapter()
        .getUsage(ENABLED, { month })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'out_of_range', retryable: false });
    }
    expect(requestsTo('/usage')).toHaveLength(0);
  });

  it('quota: volumes in MB, used = total - remaining, expiry date', async () => {
    expect(await adapter().getQuota(ENABLED)).toEqual({
      iccid: ENABLED,
      totalBytes: 500 * MiB,
      remainingBytes: Math.round(435.5 * MiB),
      usedBytes: 500 * MiB - Math.round(435.5 * MiB),
      expiresAt: new Date('2034-03-09T00:00:00.000Z'),
    });
  });

  it('unknown card: NotFoundError for usage and quota', async () => {
    const a = adapter();
    await expect(a.getUsage(UNKNOWN, { month: '2025-06' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(a.getQuota(FOREIGN)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('1NCE adapter: lifecycle', () => {
  it('activate and suspend PUT the SIM with iccid and status', async () => {
    const a = adapter();
    await a.activate(DISABLED);
    await a.suspend(ENABLED);
    expect(fake.updates).toEqual([
      { iccid: DISABLED, status: 'Enabled' },
      { iccid: ENABLED, status: 'Disabled' },
    ]);
    const put = requestsTo(`/v1/sims/${DISABLED}`).find((r) => r.method === 'PUT')!;
    expect(put.headers['content-type']).toBe('application/json');
    expect(JSON.parse(put.body)).toEqual({ iccid: DISABLED, status: 'Enabled' });
  });

  it('an expired SIM (422): ProviderError sim_expired, not retryable', async () => {
    fake.http.inject({ status: 422, json: {} }, { path: `/v1/sims/${ENABLED}` });
    const err = await adapter()
      .suspend(ENABLED)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'sim_expired', retryable: false });
  });

  it('unknown card: NotFoundError', async () => {
    await expect(adapter().activate(UNKNOWN)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('1NCE adapter: failures', () => {
  it('over 10 /sims requests in a second: RateLimitError with Retry-After 1', async () => {
    const a = adapter();
    // 30 at once: whichever second they land in, more than 10 share one.
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => a.getQuota(ENABLED)));
    const limited = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason);
    expect(limited.length).toBeGreaterThan(0);
    for (const err of limited) {
      expect(err).toBeInstanceOf(RateLimitError);
      expect((err as RateLimitError).retryAfterSeconds).toBe(1);
    }
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThan(0);
  });

  it('429 with a longer Retry-After is passed on', async () => {
    fake.http.inject(FAULTS.rateLimited(42), { path: '/usage' });
    const err = await adapter()
      .getUsage(ENABLED, { month: '2025-06' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterSeconds).toBe(42);
  });

  it('429 on the token endpoint without Retry-After: RateLimitError, 1 s', async () => {
    fake.http.inject(FAULTS.rateLimited(), { path: '/oauth/token' });
    const err = await adapter()
      .testConnection()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterSeconds).toBe(1);
  });

  it('not JSON, or JSON of the wrong shape: ProviderError malformed, retryable', async () => {
    const a = adapter();
    fake.http.inject(FAULTS.malformed(), { path: '/quota/data' });
    await expect(a.getQuota(ENABLED)).rejects.toMatchObject({ code: 'malformed', retryable: true });
    fake.http.inject(
      { status: 200, json: { stats: [{ date: '2025-06-01', data: { volume: 'n/a' } }] } },
      {
        path: '/usage',
      },
    );
    await expect(a.getUsage(ENABLED, { month: '2025-06' })).rejects.toMatchObject({ code: 'malformed' });
    fake.http.inject(FAULTS.wrongShape(), { path: '/usage' });
    await expect(a.getUsage(ENABLED, { month: '2025-06' })).rejects.toMatchObject({ code: 'malformed' });
    fake.http.inject({ status: 200, json: { token_type: 'bearer' } }, { path: '/oauth/token' });
    await expect(adapter().testConnection()).rejects.toMatchObject({ code: 'malformed' });
  });

  it('5xx: ProviderError, retryable', async () => {
    fake.http.inject(FAULTS.serverError(503), { path: `/v1/sims/${ENABLED}` });
    const err = await adapter()
      .getCards([ENABLED])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: 'http_503', status: 503, retryable: true });
  });

  it('403 on the SIM list (no API permission): AuthError', async () => {
    fake.http.inject({ status: 403, json: {} }, { path: '/v1/sims' });
    await expect(adapter().testConnection()).rejects.toBeInstanceOf(AuthError);
  });
});

describe('parseOneNceDate', () => {
  it('reads the +0000 offsets of the examples and plain ISO dates', () => {
    expect(parseOneNceDate('2018-03-09T07:59:09.000+0000')?.toISOString()).toBe('2018-03-09T07:59:09.000Z');
    expect(parseOneNceDate('2018-03-09T09:59:09.000+0200')?.toISOString()).toBe('2018-03-09T07:59:09.000Z');
    expect(parseOneNceDate('2029-01-01T00:00:00.000Z')?.toISOString()).toBe('2029-01-01T00:00:00.000Z');
    expect(parseOneNceDate('soon')).toBeNull();
    expect(parseOneNceDate(null)).toBeNull();
  });
});
