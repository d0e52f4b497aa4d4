/**
 * 1NCE Management API (https://api.1nce.com/management-api), SIM Management v1.
 *
 * A bearer token comes from `POST /oauth/token` with HTTP Basic authentication (the API user's username and
 * password) and the JSON body `{"grant_type": "client_credentials"}`; it lasts `expires_in` seconds (3600 in the
 * published example). A 401 on a SIM call is answered by fetching a new token once. /sims is limited to 10
 * requests per second per customer; a 429 becomes RateLimitError. Sources: docs/sim-providers.md.
 */
import { oneNceProviderConfig } from '@cellhub/contract/sim';
import { z } from 'zod';
import { daysInMonth, isoDay, isoMonth, monthIndex, parseMonth, wallClock, type Ymd } from './calendar';
import { AuthError, NotFoundError, ProviderError, malformed } from './errors';
import { AccessToken, adapterSetup, type HttpContext, requestJson, toNumber } from './http';
import {
  type SimAdapter,
  type SimAdapterCapabilities,
  type SimAdapterOptions,
  type SimCardInfo,
  type SimCardStatus,
  type SimCardsResult,
  type SimMonthUsage,
  type SimQuota,
} from './types';

export const ONE_NCE_DEFAULT_BASE_URL = 'https://api.1nce.com/management-api';

/** The contract's 1NCE provider config (username, password, optional base_url), password required. */
export const oneNceConfigSchema = oneNceProviderConfig.extend({ password: z.string().min(1).max(256) });
export type OneNceConfig = z.input<typeof oneNceConfigSchema>;

/** The /sims limit is per second; without a Retry-After header, one second is the wait that clears it. */
const DEFAULT_RETRY_AFTER_S = 1;
/**
 * "The output is limited to the last 6 months" (Get SIM Usage): months that begin inside that window, i.e. this
 * month and the five before it.
 */
const USAGE_MONTHS_BACK = 5;
/** 1NCE reports data in MB; read as MiB, like the 1024-based KB of OneLink (docs/sim-providers.md). */
const MB = 1024 * 1024;
const mbToBytes = (mb: number) => Math.round(mb * MB);

/** `status` of a SIM: "A SIM can be enabled (active) or disabled (deactivated)", and re-enabled by the API. */
const STATUS: Record<string, SimCardStatus> = { Enabled: 'active', Disabled: 'suspended' };

const CAPABILITIES: SimAdapterCapabilities = {
  remote: true,
  cards: true,
  monthlyUsage: true,
  dailyUsage: true,
  quota: true,
  activate: true,
  suspend: true,
};

const numberish = z.union([z.number(), z.string()]);
const tokenReply = z.object({ access_token: z.string().min(1), expires_in: numberish.nullish() });
const tokenError = z.object({ errorCode: z.string(), message: z.string().nullish() });
const simReply = z.object({
  iccid: z.string().nullish(),
  imsi: z.string().nullish(),
  msisdn: z.string().nullish(),
  status: z.string().nullish(),
  activation_date: z.string().nullish(),
});
const quotaReply = z.object({
  volume: numberish.nullish(),
  total_volume: numberish.nullish(),
  expiry_date: z.string().nullish(),
});
const usageReply = z.object({
  stats: z.array(
    z.object({
      date: z.string(),
      data: z.object({ volume: numberish.nullish() }).nullish(),
    }),
  ),
});

// ICCIDs go into the URL path.
const ICCID_RE = /^[0-9A-Za-z]{10,22}$/;

/** "2018-03-09T07:59:09.000+0000" (offset without colon, as the examples show) or any ISO 8601 date. */
export function parseOneNceDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const normalised = value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const t = Date.parse(normalised);
  return Number.isNaN(t) ? null : new Date(t);
}

export class OneNceAdapter implements SimAdapter {
  readonly kind = '1nce' as const;
  readonly capabilities = CAPABILITIES;
  private readonly config: OneNceConfig;
  private readonly base: string;
  private readonly http: HttpContext;
  private readonly now: () => Date;
  private readonly token: AccessToken;

  constructor(config: OneNceConfig, options: SimAdapterOptions = {}) {
    this.config = config;
    ({
      base: this.base,
      now: this.now,
      http: this.http,
    } = adapterSetup(this.kind, options, config.base_url, ONE_NCE_DEFAULT_BASE_URL));
    this.token = new AccessToken(() => this.fetchToken(), this.now);
  }

  async testConnection(): Promise<void> {
    this.token.forget();
    await this.token.get();
    // Get All SIMs, one per page: proves the user may use the SIM Management API, not only sign in.
    await this.call('GET', '/v1/sims', { query: { page: '1', pageSize: '1' } });
  }

  async getCards(iccids: readonly string[]): Promise<SimCardsResult> {
    const cards: SimCardInfo[] = [];
    const notFound: string[] = [];
    for (const iccid of iccids) {
      try {
        cards.push(await this.getCard(iccid));
      } catch (err) {
        if (err instanceof NotFoundError) notFound.push(iccid);
        else throw err;
      }
    }
    return { cards, notFound };
  }

  async getUsage(iccid: string, options: { month: string; daily?: boolean }): Promise<SimMonthUsage> {
    this.checkIccid(iccid);
    const month = parseMonth(options.month);
    if (!month) throw new TypeError(`month must be YYYY-MM, got ${options.month}`);
    const today = this.today();
    const back = monthIndex(today.year, today.month) - monthIndex(month.year, month.month);
    if (back < 0 || back > USAGE_MONTHS_BACK) {
      throw new ProviderError(
        this.kind,
        'out_of_range',
        back < 0 ? `${options.month} has not begun` : `1NCE reports usage for the last six months only`,
        { retryable: false },
      );
    }
    const first: Ymd = { year: month.year, month: month.month, day: 1 };
    const last: Ymd =
      back === 0
        ? today
        : { year: month.year, month: month.month, day: daysInMonth(month.year, month.month) };
    const body = await this.call('GET', `/v1/sims/${iccid}/usage`, {
      query: { start_dt: isoDay(first), end_dt: isoDay(last) },
      iccid,
    });
    const parsed = usageReply.safeParse(body);
    if (!parsed.success) throw malformed(this.kind, 'usage stats');
    const daily = parsed.data.stats.map((s) => {
      const mb = toNumber(s.data?.volume ?? '0');
      if (mb === null || mb < 0) throw malformed(this.kind, 'data volume is not a number');
      return { date: s.date.slice(0, 10), usedBytes: mbToBytes(mb) };
    });
    daily.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    const usedBytes = daily.reduce((sum, d) => sum + d.usedBytes, 0);
    return {
      iccid,
      month: isoMonth(month.year, month.month),
      usedBytes,
      daily: options.daily === false ? null : daily,
    };
  }

  async getQuota(iccid: string): Promise<SimQuota | null> {
    this.checkIccid(iccid);
    const parsed = quotaReply.safeParse(await this.call('GET', `/v1/sims/${iccid}/quota/data`, { iccid }));
    if (!parsed.success) throw malformed(this.kind, 'data quota');
    const q = parsed.data;
    const remaining = q.volume === null || q.volume === undefined ? null : toNumber(q.volume);
    const total = q.total_volume === null || q.total_volume === undefined ? null : toNumber(q.total_volume);
    if ((q.volume != null && remaining === null) || (q.total_volume != null && total === null)) {
      throw malformed(this.kind, 'quota volume is not a number');
    }
    return {
      iccid,
      totalBytes: total === null ? null : mbToBytes(total),
      remainingBytes: remaining === null ? null : mbToBytes(remaining),
      usedBytes:
        total === null || remaining === null ? null : Math.max(0, mbToBytes(total) - mbToBytes(remaining)),
      expiresAt: parseOneNceDate(q.expiry_date),
    };
  }

  async activate(iccid: string): Promise<void> {
    await this.setStatus(iccid, 'Enabled');
  }

  async suspend(iccid: string): Promise<void> {
    await this.setStatus(iccid, 'Disabled');
  }

  // --- calls ---------------------------------------------------------------------------------------------

  private async getCard(iccid: string): Promise<SimCardInfo> {
    this.checkIccid(iccid);
    const parsed = simReply.safeParse(await this.call('GET', `/v1/sims/${iccid}`, { iccid }));
    if (!parsed.success) throw malformed(this.kind, 'SIM');
    const sim = parsed.data;
    // The SIM object has no end date; the data quota's expiry_date is when the current volume (and, on the
    // lifetime product, the SIM's validity) runs out.
    const quota = await this.getQuota(iccid).catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
    return {
      iccid,
      status: (sim.status && STATUS[sim.status]) || 'unknown',
      rawStatus: sim.status ?? null,
      msisdn: sim.msisdn || null,
      imsi: sim.imsi || null,
      activatedAt: parseOneNceDate(sim.activation_date),
      expiresAt: quota?.expiresAt ?? null,
    };
  }

  /** Create Single SIM Configuration: PUT with the required `iccid` and `status`. */
  private async setStatus(iccid: string, status: 'Enabled' | 'Disabled'): Promise<void> {
    this.checkIccid(iccid);
    await this.call('PUT', `/v1/sims/${iccid}`, { body: { iccid, status }, iccid });
  }

  /**
   * One SIM Management call with the bearer token; on 401 a new token is fetched once. `iccid` marks a
   * card-specific call: 404 (and 403, which 1NCE documents as "SIM does not belong to user") are NotFoundError.
   */
  private async call(
    method: 'GET' | 'PUT',
    path: string,
    opts: { query?: Record<string, string>; body?: unknown; iccid?: string },
    retried = false,
  ): Promise<unknown> {
    const token = await this.token.get();
    const url = new URL(this.base + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${token}` };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const reply = await requestJson(
      this.http,
      url,
      { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) },
      DEFAULT_RETRY_AFTER_S,
    );
    if (reply.status === 401) {
      this.token.forget();
      if (!retried) return this.call(method, path, opts, true);
      throw new AuthError(this.kind, '1NCE refused a fresh token (HTTP 401)');
    }
    if (opts.iccid && (reply.status === 404 || reply.status === 403)) {
      throw new NotFoundError(this.kind, opts.iccid, `1NCE answered HTTP ${reply.status} for ${opts.iccid}`);
    }
    if (reply.status === 403) throw new AuthError(this.kind, '1NCE user may not use the SIM Management API');
    if (reply.status === 422) {
      throw new ProviderError(this.kind, 'sim_expired', 'SIM expired: 1NCE only permits extensions', {
        retryable: false,
        status: 422,
      });
    }
    if (reply.status < 200 || reply.status >= 300) {
      throw new ProviderError(this.kind, `http_${reply.status}`, `1NCE answered HTTP ${reply.status}`, {
        retryable: false,
        status: reply.status,
      });
    }
    return reply.body;
  }

  /** One token request (AccessToken caches the answer and shares it between concurrent callers). */
  private async fetchToken(): Promise<{ value: string; ttlS: number | null }> {
    const basic = Buffer.from(`${this.config.username}:${this.config.password}`, 'utf8').toString('base64');
    const reply = await requestJson(
      this.http,
      new URL(`${this.base}/oauth/token`),
      {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          authorization: `Basic ${basic}`,
        },
        body: JSON.stringify({ grant_type: 'client_credentials' }),
      },
      DEFAULT_RETRY_AFTER_S,
    );
    if (reply.status === 400 || reply.status === 401 || reply.status === 403) {
      const err = tokenError.safeParse(reply.body);
      const code = err.success ? err.data.errorCode : `HTTP ${reply.status}`;
      // BadCredentials / AuthValidationError are the credentials; BodyValidationError or
      // UnsupportedContentTypeError would be a request we built wrong, still nothing a retry fixes.
      throw new AuthError(
        this.kind,
        `1NCE refused the credentials: ${code}${err.success && err.data.message ? ` (${err.data.message})` : ''}`,
      );
    }
    if (reply.status !== 200) {
      throw new ProviderError(
        this.kind,
        `http_${reply.status}`,
        `token request answered HTTP ${reply.status}`,
        {
          retryable: false,
          status: reply.status,
        },
      );
    }
    const parsed = tokenReply.safeParse(reply.body);
    if (!parsed.success) throw malformed(this.kind, 'token reply');
    return { value: parsed.data.access_token, ttlS: toNumber(parsed.data.expires_in ?? null) };
  }

  private today(): Ymd {
    const w = wallClock(this.now(), 0);
    return { year: w.year, month: w.month, day: w.day };
  }

  private checkIccid(iccid: string): void {
    if (!ICCID_RE.test(iccid)) throw new NotFoundError(this.kind, iccid, `${iccid} is not an ICCID`);
  }
}
