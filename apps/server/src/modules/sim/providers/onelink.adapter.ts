/**
 * China Mobile OneLink (中移物联网 OneLink 能力开放平台), card API v5 ("EC" interfaces under /v5/ec).
 *
 * Every call carries `transid` (appid + yyyyMMddHHmmss + an 8-digit sequence) and a `token` from
 * `get/token` (appid + password + transid). Replies are `{status, message, result: [...]}` with status "0" for
 * success; status "12021" means the token is missing or expired, which is answered by fetching a new token once.
 * Sources and the points the published material leaves unclear: docs/sim-providers.md.
 */
import { onelinkProviderConfig } from '@cellhub/contract/sim';
import { z } from 'zod';
import {
  addDays,
  compactDateTime,
  compactDay,
  compactMonth,
  isoDay,
  isoMonth,
  monthIndex,
  parseLocalDateTime,
  parseMonth,
  wallClock,
  type Ymd,
} from './calendar';
import { AuthError, NotFoundError, ProviderError, malformed } from './errors';
import { AccessToken, adapterSetup, type HttpContext, requestJson, toNumber } from './http';
import {
  type SimAdapter,
  type SimAdapterCapabilities,
  type SimAdapterOptions,
  type SimCardInfo,
  type SimCardStatus,
  type SimCardsResult,
  type SimDailyUsage,
  type SimMonthUsage,
  type SimQuota,
} from './types';

export const ONELINK_DEFAULT_BASE_URL = 'https://api.iot.10086.cn/v5/ec';

/**
 * The contract's OneLink provider config (appid, password, optional base_url), with the password required: an
 * adapter is built from the stored, decrypted config.
 */
export const onelinkConfigSchema = onelinkProviderConfig.extend({ password: z.string().min(1).max(256) });
/** What the constructor takes: `base_url` may be left out. */
export type OnelinkConfig = z.input<typeof onelinkConfigSchema>;

/** China time; OneLink dates, months and transids are written in it. */
const CHINA_OFFSET_MIN = 8 * 60;
/** Used when the token reply has no usable `ttl` (the v5 material describes a one-hour token). */
/** A token this close to its expiry is replaced before use rather than spent on a call that may bounce. */

const STATUS_OK = '0';
const STATUS_TOKEN_INVALID = '12021';
/** 12009: card not owned by this customer; 12010: card not in the system. Both mean "unknown card" to us. */
const STATUS_CARD_UNKNOWN = new Set(['12009', '12010']);

/** `cardStatus` when the card is on OneLink-CT. */
const CT_STATUS: Record<string, SimCardStatus> = {
  '1': 'inactive', // 待激活
  '2': 'active', // 已激活
  '4': 'suspended', // 停机
  '6': 'inactive', // 可测试
  '7': 'inactive', // 库存
  '8': 'deactivated', // 预销户
  '9': 'deactivated', // 已销户
};
/** `cardStatus` when the card is on OneLink-PB (two digits). "99" (号码不存在) is handled as not found. */
const PB_STATUS: Record<string, SimCardStatus> = {
  '00': 'active', // 正常
  '01': 'suspended', // 单向停机
  '02': 'suspended', // 停机
  '03': 'deactivated', // 预销号
  '04': 'deactivated', // 销号
  '05': 'unknown', // 过户
  '06': 'inactive', // 休眠
  '07': 'inactive', // 待激活
};
const PB_NUMBER_NOT_FOUND = '99';

/**
 * CMIOT_API23S03 单卡状态变更 `operType` by the card's current (CT) status. The published table:
 * 0 申请停机 (已激活->已停机), 1 申请复机 (已停机->已激活), 2 库存->已激活, 3 可测试->库存, 4 可测试->待激活,
 * 5 可测试->已激活, 6 待激活->已激活.
 */
const ACTIVATE_OPER_TYPE: Record<string, string> = { '7': '2', '6': '5', '1': '6', '4': '1' };
const SUSPEND_OPER_TYPE: Record<string, string> = { '2': '0' };

const CAPABILITIES: SimAdapterCapabilities = {
  remote: true,
  cards: true,
  monthlyUsage: true,
  dailyUsage: true,
  quota: true,
  activate: true,
  suspend: true,
};

// Reply shapes. Fields are strings in the published examples; numbers are accepted too.
const numberish = z.union([z.string(), z.number()]);
const envelopeSchema = z.object({
  status: z.union([z.string(), z.number()]).transform(String),
  message: z.string().nullish(),
  result: z.unknown().optional(),
});
const tokenResult = z.array(z.object({ token: z.string().min(1), ttl: numberish.nullish() })).min(1);
const statusResult = z
  .array(z.object({ cardStatus: z.string().min(1), lastChangeDate: z.string().nullish() }))
  .min(1);
const basicInfoResult = z
  .array(
    z.object({
      msisdn: z.string().nullish(),
      imsi: z.string().nullish(),
      iccid: z.string().nullish(),
      activeDate: z.string().nullish(),
      openDate: z.string().nullish(),
    }),
  )
  .min(1);
const dataUsageResult = z.array(z.object({ dataAmount: numberish })).min(1);
const batchUsageResult = z
  .array(
    z.object({
      dataAmountList: z.array(
        z.object({
          iccid: z.string().nullish(),
          msisdn: z.string().nullish(),
          imsi: z.string().nullish(),
          dataAmount: numberish,
        }),
      ),
    }),
  )
  .min(1);
const marginResult = z
  .array(
    z.object({
      accmMarginList: z
        .array(
          z.object({
            offeringName: z.string().nullish(),
            totalAmount: numberish.nullish(),
            useAmount: numberish.nullish(),
            remainAmount: numberish.nullish(),
          }),
        )
        .nullish(),
    }),
  )
  .min(1);

// Unique enough across server instances that start in the same second: the sequence starts at a random point.
let sequence = Math.floor(Math.random() * 90_000_000);
function nextSequence(): string {
  sequence = (sequence % 99_999_999) + 1;
  return String(sequence).padStart(8, '0');
}

/** transid = appid + yyyyMMddHHmmss (China time) + 8-digit sequence. */
export function onelinkTransid(appid: string, now: Date): string {
  return `${appid}${compactDateTime(now, CHINA_OFFSET_MIN)}${nextSequence()}`;
}

// An ICCID goes into a query string and, in batch calls, into an underscore-joined list: anything but letters
// and digits cannot be a card of the operator, so it is "not found" without a call.
const ICCID_RE = /^[0-9A-Za-z]{10,22}$/;
const KB = 1024;
const kbToBytes = (kb: number) => Math.round(kb * KB);

export class OnelinkAdapter implements SimAdapter {
  readonly kind = 'onelink' as const;
  readonly capabilities = CAPABILITIES;
  private readonly config: OnelinkConfig;
  private readonly base: string;
  private readonly http: HttpContext;
  private readonly now: () => Date;
  private readonly token: AccessToken;

  constructor(config: OnelinkConfig, options: SimAdapterOptions = {}) {
    this.config = config;
    ({
      base: this.base,
      now: this.now,
      http: this.http,
    } = adapterSetup(this.kind, options, config.base_url, ONELINK_DEFAULT_BASE_URL));
    this.token = new AccessToken(() => this.fetchToken(), this.now);
  }

  async testConnection(): Promise<void> {
    this.token.forget();
    await this.token.get();
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
    let usedBytes: number;
    if (back < 0) {
      throw new ProviderError(this.kind, 'out_of_range', `${options.month} has not begun`, {
        retryable: false,
      });
    } else if (back === 0) {
      // CMIOT_API25U04: this month so far (OneLink-CT real time; OneLink-PB up to yesterday 24:00), in KB.
      const result = dataUsageResult.safeParse(await this.call('/query/sim-data-usage', { iccid }, iccid));
      if (!result.success) throw malformed(this.kind, 'sim-data-usage result');
      usedBytes = this.kb(result.data[0]!.dataAmount, 'dataAmount');
    } else if (back <= 5) {
      // CMIOT_API25U03: one month of the last six (this one included), up to 100 cards, in KB.
      const queryDate = compactMonth(month.year, month.month);
      const entry = await this.batchEntry('/query/sim-data-usage-monthly/batch', iccid, { queryDate });
      usedBytes = this.kb(entry.dataAmount, 'dataAmount');
    } else {
      throw new ProviderError(
        this.kind,
        'out_of_range',
        `OneLink reports monthly usage for the last six months only (${options.month} asked)`,
        { retryable: false },
      );
    }
    const daily = options.daily === false ? null : await this.dailyUsage(iccid, month, today);
    return { iccid, month: isoMonth(month.year, month.month), usedBytes, daily };
  }

  async getQuota(iccid: string): Promise<SimQuota | null> {
    this.checkIccid(iccid);
    // CMIOT_API23U07: this month's package volume, per offering, in KB.
    const parsed = marginResult.safeParse(await this.call('/query/sim-data-margin', { iccid }, iccid));
    if (!parsed.success) throw malformed(this.kind, 'sim-data-margin result');
    const list = parsed.data.flatMap((r) => r.accmMarginList ?? []);
    if (list.length === 0) return null;
    const sum = (key: 'totalAmount' | 'useAmount' | 'remainAmount'): number | null => {
      let total = 0;
      for (const item of list) {
        const v = item[key];
        if (v === null || v === undefined) return null;
        total += this.kb(v, key);
      }
      return total;
    };
    return {
      iccid,
      totalBytes: sum('totalAmount'),
      usedBytes: sum('useAmount'),
      remainingBytes: sum('remainAmount'),
      expiresAt: null,
    };
  }

  async activate(iccid: string): Promise<void> {
    await this.changeStatus(iccid, ACTIVATE_OPER_TYPE, '2');
  }

  async suspend(iccid: string): Promise<void> {
    await this.changeStatus(iccid, SUSPEND_OPER_TYPE, '4');
  }

  // --- calls ---------------------------------------------------------------------------------------------

  private async getCard(iccid: string): Promise<SimCardInfo> {
    this.checkIccid(iccid);
    const rawStatus = await this.cardStatus(iccid);
    // CMIOT_API23S00: numbers, open date and first activation.
    const info = basicInfoResult.safeParse(await this.call('/query/sim-basic-info', { iccid }, iccid));
    if (!info.success) throw malformed(this.kind, 'sim-basic-info result');
    const basic = info.data[0]!;
    return {
      iccid,
      status: CT_STATUS[rawStatus] ?? PB_STATUS[rawStatus] ?? 'unknown',
      rawStatus,
      msisdn: basic.msisdn || null,
      imsi: basic.imsi || null,
      activatedAt: parseLocalDateTime(basic.activeDate, CHINA_OFFSET_MIN),
      expiresAt: null,
    };
  }

  /** CMIOT_API25S04 单卡状态查询 -> the raw `cardStatus`. */
  private async cardStatus(iccid: string): Promise<string> {
    const parsed = statusResult.safeParse(await this.call('/query/sim-status', { iccid }, iccid));
    if (!parsed.success) throw malformed(this.kind, 'sim-status result');
    const raw = parsed.data[0]!.cardStatus;
    if (raw === PB_NUMBER_NOT_FOUND) throw new NotFoundError(this.kind, iccid);
    return raw;
  }

  private async changeStatus(
    iccid: string,
    operTypes: Record<string, string>,
    target: string,
  ): Promise<void> {
    this.checkIccid(iccid);
    const current = await this.cardStatus(iccid);
    if (current === target) return;
    const operType = operTypes[current];
    if (!operType) {
      throw new ProviderError(
        this.kind,
        'transition',
        `OneLink offers no status change from cardStatus ${current} to ${target}`,
        { retryable: false },
      );
    }
    // CMIOT_API23S03 单卡状态变更. The same card cannot be changed again through these interfaces for a while
    // (the operator answers with a non-zero status, surfaced as a non-retryable ProviderError).
    await this.call('/change/sim-status', { iccid, operType }, iccid);
  }

  /** CMIOT_API25U01: one day per call, only the 7 days before today (China time). */
  private async dailyUsage(iccid: string, month: { year: number; month: number }, today: Ymd) {
    const out: SimDailyUsage[] = [];
    // Oldest first.
    for (let back = 7; back >= 1; back--) {
      const day = addDays(today, -back);
      if (day.year !== month.year || day.month !== month.month) continue;
      const entry = await this.batchEntry('/query/sim-data-usage-daily/batch', iccid, {
        queryDate: compactDay(day),
      });
      out.push({ date: isoDay(day), usedBytes: this.kb(entry.dataAmount, 'dataAmount') });
    }
    return out;
  }

  /** A batch usage call for one card, and that card's entry of `dataAmountList`. */
  private async batchEntry(path: string, iccid: string, params: Record<string, string>) {
    const parsed = batchUsageResult.safeParse(await this.call(path, { iccids: iccid, ...params }, iccid));
    if (!parsed.success) throw malformed(this.kind, `${path} result`);
    const list = parsed.data.flatMap((r) => r.dataAmountList);
    const entry =
      list.find((e) => e.iccid === iccid) ?? (list.length === 1 && !list[0]!.iccid ? list[0] : null);
    if (!entry) throw new NotFoundError(this.kind, iccid);
    return entry;
  }

  /**
   * One business call: common parameters, envelope check, one token re-fetch on 12021. `iccid` names the card
   * for NotFoundError when the operator says it does not know it.
   */
  private async call(
    path: string,
    params: Record<string, string>,
    iccid: string,
    retried = false,
  ): Promise<unknown> {
    const token = await this.token.get();
    const url = new URL(this.base + path);
    url.searchParams.set('transid', onelinkTransid(this.config.appid, this.now()));
    url.searchParams.set('token', token);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const reply = await requestJson(this.http, url, {
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    if (reply.status === 401 || reply.status === 403) {
      throw new AuthError(this.kind, `operator refused the call with HTTP ${reply.status}`);
    }
    if (reply.status !== 200) {
      throw new ProviderError(this.kind, `http_${reply.status}`, `operator answered HTTP ${reply.status}`, {
        retryable: false,
        status: reply.status,
      });
    }
    const env = envelopeSchema.safeParse(reply.body);
    if (!env.success) throw malformed(this.kind, `${path} envelope`);
    const { status, message } = env.data;
    if (status === STATUS_TOKEN_INVALID) {
      this.token.forget();
      if (!retried) return this.call(path, params, iccid, true);
      throw new AuthError(this.kind, `token refused twice (${status} ${message ?? ''})`.trim());
    }
    if (STATUS_CARD_UNKNOWN.has(status))
      throw new NotFoundError(this.kind, iccid, `${status} ${message ?? ''}`);
    if (status !== STATUS_OK) {
      throw new ProviderError(this.kind, status, `OneLink ${status}: ${message ?? 'no message'}`, {
        retryable: false,
        status: reply.status,
      });
    }
    return env.data.result;
  }

  /** CMIOT_API25000 认证服务 (`get/token`): one request; AccessToken caches it and shares it between callers. */
  private async fetchToken(): Promise<{ value: string; ttlS: number | null }> {
    const url = new URL(`${this.base}/get/token`);
    url.searchParams.set('appid', this.config.appid);
    url.searchParams.set('password', this.config.password);
    url.searchParams.set('transid', onelinkTransid(this.config.appid, this.now()));
    const reply = await requestJson(this.http, url, {
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    if (reply.status === 401 || reply.status === 403) {
      throw new AuthError(this.kind, `token request refused with HTTP ${reply.status}`);
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
    const env = envelopeSchema.safeParse(reply.body);
    if (!env.success) throw malformed(this.kind, 'get/token envelope');
    if (env.data.status !== STATUS_OK) {
      // The token call only fails on the appid/password pair (or a transid we built wrong): an admin must look.
      throw new AuthError(
        this.kind,
        `OneLink refused the credentials: ${env.data.status} ${env.data.message ?? ''}`,
      );
    }
    const result = tokenResult.safeParse(env.data.result);
    if (!result.success) throw malformed(this.kind, 'get/token result');
    return { value: result.data[0]!.token, ttlS: toNumber(result.data[0]!.ttl ?? null) };
  }

  // --- helpers ------------------------------------------------------------------------------------------

  private today(): Ymd {
    const w = wallClock(this.now(), CHINA_OFFSET_MIN);
    return { year: w.year, month: w.month, day: w.day };
  }

  private checkIccid(iccid: string): void {
    if (!ICCID_RE.test(iccid)) throw new NotFoundError(this.kind, iccid, `${iccid} is not an ICCID`);
  }

  private kb(value: string | number, field: string): number {
    const n = toNumber(value);
    if (n === null || n < 0) throw malformed(this.kind, `${field} is not a number`);
    return kbToBytes(n);
  }
}
