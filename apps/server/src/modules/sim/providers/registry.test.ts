import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { parseLocalDateTime } from './calendar';
import { ProviderError } from './errors';
import { parseRetryAfter } from './http';
import { ManualAdapter } from './manual.adapter';
import { OneNceAdapter } from './one-nce.adapter';
import { OnelinkAdapter, onelinkTransid } from './onelink.adapter';
import {
  getSimAdapter,
  isSimProviderKind,
  parseSimProviderConfig,
  SIM_PROVIDER_CONFIG_SCHEMAS,
  SIM_PROVIDER_SECRET_FIELDS,
} from './registry';
import { FakeOneNce } from '../../../test/sim-providers/one-nce-fake';
import { FakeOnelink } from '../../../test/sim-providers/onelink-fake';
import { SIM_PROVIDER_KINDS } from './types';

describe('getSimAdapter', () => {
  let onelink: FakeOnelink;
  let oneNce: FakeOneNce;
  beforeAll(async () => {
    onelink = await new FakeOnelink().start();
    oneNce = await new FakeOneNce().start();
  });
  afterAll(async () => {
    await onelink.stop();
    await oneNce.stop();
  });

  it('builds each kind from its config and options (base URL, fetch)', async () => {
    const seen: string[] = [];
    const observed: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    const ol = getSimAdapter(
      'onelink',
      { appid: onelink.appid, password: onelink.password },
      { baseUrl: onelink.baseUrl, fetch: observed },
    );
    expect(ol).toBeInstanceOf(OnelinkAdapter);
    await ol.testConnection();
    const nce = getSimAdapter(
      '1nce',
      { username: oneNce.username, password: oneNce.password },
      { baseUrl: oneNce.baseUrl, fetch: observed },
    );
    expect(nce).toBeInstanceOf(OneNceAdapter);
    await nce.testConnection();
    expect(seen.map((u) => new URL(u).pathname)).toEqual([
      '/v5/ec/get/token',
      '/management-api/oauth/token',
      '/management-api/v1/sims',
    ]);
    expect(getSimAdapter('manual', {})).toBeInstanceOf(ManualAdapter);
  });

  it('defaults to the real operator APIs', async () => {
    const urls: string[] = [];
    const recording: typeof fetch = async (input) => {
      urls.push(String(input));
      return new Response('{}', { status: 503 });
    };
    await getSimAdapter('onelink', { appid: '100001', password: 'p' }, { fetch: recording })
      .testConnection()
      .catch(() => undefined);
    await getSimAdapter('1nce', { username: 'u', password: 'p' }, { fetch: recording })
      .testConnection()
      .catch(() => undefined);
    expect(urls.map((u) => new URL(u).origin + new URL(u).pathname)).toEqual([
      'https://api.iot.10086.cn/v5/ec/get/token',
      'https://api.1nce.com/management-api/oauth/token',
    ]);
  });

  it('refuses a config that does not fit its kind (secrets required), with field paths', () => {
    expect(() => getSimAdapter('onelink', { appid: '', password: 'x' })).toThrow(ZodError);
    expect(() => getSimAdapter('onelink', { appid: '10001', password: '' })).toThrow(ZodError);
    expect(() => getSimAdapter('1nce', { username: 'u' })).toThrow(ZodError);
    expect(() => getSimAdapter('1nce', { username: 'u', password: 'p', base_url: 'ftp://x' })).toThrow(
      ZodError,
    );
    const err = (() => {
      try {
        parseSimProviderConfig('onelink', { appid: 'has space', password: 'x' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ZodError);
    expect((err as ZodError).issues[0]?.path).toEqual(['appid']);
  });

  it("uses the config's base_url unless the options name one", async () => {
    const paths: string[] = [];
    const recording: typeof fetch = async (input) => {
      paths.push(String(input));
      return new Response('{}', { status: 503 });
    };
    const config = { appid: '10001', password: 'p', base_url: 'http://sandbox.example:7000/v5/ec' };
    await getSimAdapter('onelink', config, { fetch: recording })
      .testConnection()
      .catch(() => undefined);
    await getSimAdapter('onelink', config, { fetch: recording, baseUrl: 'http://other.example/v5/ec' })
      .testConnection()
      .catch(() => undefined);
    expect(paths.map((u) => new URL(u).origin)).toEqual([
      'http://sandbox.example:7000',
      'http://other.example',
    ]);
  });

  it('lists the secret fields of every kind, and each is a field of its schema', () => {
    expect(SIM_PROVIDER_SECRET_FIELDS).toEqual({ manual: [], onelink: ['password'], '1nce': ['password'] });
    for (const kind of SIM_PROVIDER_KINDS) {
      const shape = SIM_PROVIDER_CONFIG_SCHEMAS[kind].shape as Record<string, unknown>;
      for (const field of SIM_PROVIDER_SECRET_FIELDS[kind]) expect(shape).toHaveProperty(field);
    }
    expect(isSimProviderKind('1nce')).toBe(true);
    expect(isSimProviderKind('unicom')).toBe(false);
  });
});

describe('manual adapter', () => {
  it('makes no remote calls: empty results, no usage or quota, lifecycle unsupported', async () => {
    const calls: unknown[] = [];
    const a = getSimAdapter(
      'manual',
      {},
      { fetch: async (...args) => (calls.push(args), new Response('{}')) },
    );
    expect(a.capabilities.remote).toBe(false);
    await a.testConnection();
    expect(await a.getCards(['89860412345678901234'])).toEqual({ cards: [], notFound: [] });
    expect(await a.getUsage('89860412345678901234', { month: '2025-06' })).toBeNull();
    expect(await a.getQuota('89860412345678901234')).toBeNull();
    for (const action of [a.activate('89860412345678901234'), a.suspend('89860412345678901234')]) {
      const err = await action.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({ code: 'unsupported', retryable: false });
    }
    expect(calls).toHaveLength(0);
  });
});

describe('helpers', () => {
  it('parseRetryAfter: seconds, HTTP dates, garbage', () => {
    const now = new Date('2025-06-15T12:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30);
    expect(parseRetryAfter('0', now)).toBe(1);
    expect(parseRetryAfter('Sun, 15 Jun 2025 12:02:00 GMT', now)).toBe(120);
    expect(parseRetryAfter('Sun, 15 Jun 2025 11:00:00 GMT', now)).toBe(1);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it('parseLocalDateTime reads the OneLink forms in China time', () => {
    const at = (s: string) => parseLocalDateTime(s, 480)?.toISOString() ?? null;
    expect(at('2024-03-01 10:20:30')).toBe('2024-03-01T02:20:30.000Z');
    expect(at('20240301102030')).toBe('2024-03-01T02:20:30.000Z');
    expect(at('2024-03-01')).toBe('2024-02-29T16:00:00.000Z');
    expect(at('20240301')).toBe('2024-02-29T16:00:00.000Z');
    expect(at('2024-02-30 00:00:00')).toBeNull();
    expect(at('')).toBeNull();
    expect(at('yesterday')).toBeNull();
  });

  it('onelinkTransid: appid + China date-time + 8 digits, unique in a burst', () => {
    const now = new Date('2025-12-31T16:59:59Z'); // 2026-01-01 00:59:59 in China
    const ids = Array.from({ length: 1000 }, () => onelinkTransid('100001', now));
    for (const id of ids) expect(id).toMatch(/^10000120260101005959\d{8}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
