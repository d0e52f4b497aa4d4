/**
 * A local stand-in for China Mobile OneLink's v5 EC card API (https://api.iot.10086.cn/v5/ec). It checks what the
 * published interface description requires and answers in its `{status, message, result}` form:
 * - every call: GET or POST, a `transid` of appid + yyyyMMddHHmmss + 8 digits;
 * - `get/token`: appid + password; tokens expire after `tokenTtlSeconds` (fake clock) or `expireTokens()`;
 * - business calls: a live `token` (else 12021), exactly one of msisdn/iccid/imsi (single-card calls) or of
 *   msisdns/iccids/imsis with at most 100 cards (batch calls), the query windows of the daily (7 days before
 *   today) and monthly (last 6 months) usage calls, and the status table of CMIOT_API23S03.
 * Codes the public material names: 0 success, 12021 token, 12022 appid/password, 12009 card of another
 * customer, 12010 card unknown, 11000 parameter error. Anything it does not check is listed in
 * docs/sim-providers.md.
 */
import { randomBytes } from 'node:crypto';
import {
  addDays,
  compactDay,
  compactMonth,
  monthIndex,
  parseLocalDateTime,
  wallClock,
} from '../../modules/sim/providers/calendar';
import { FakeHttp, type FakeReply, type FakeRequest } from './fake-http';

export interface FakeOnelinkCard {
  iccid: string;
  msisdn: string;
  imsi: string;
  /** CT status code ("1" 待激活, "2" 已激活, "4" 停机, "6" 可测试, "7" 库存, ...) or a PB one ("00", ...). */
  cardStatus: string;
  activeDate: string;
  openDate: string;
  /** Usage in KB by month `yyyyMM`. */
  monthKb: Record<string, number>;
  /** Usage in KB by day `yyyyMMdd`. */
  dayKb: Record<string, number>;
  /** Package volumes in KB for CMIOT_API23U07. */
  offerings: { name: string; totalKb: number; usedKb: number }[];
}

const CHINA = 8 * 60;
const PARAM_ERROR = '11000';
const TOKEN_INVALID = '12021';
const BAD_CREDENTIALS = '12022';
const CARD_OF_OTHER_CUSTOMER = '12009';
const CARD_UNKNOWN = '12010';

/** CMIOT_API23S03 operType -> [from, to] cardStatus. */
const TRANSITIONS: Record<string, [string, string]> = {
  '0': ['2', '4'],
  '1': ['4', '2'],
  '2': ['7', '2'],
  '3': ['6', '7'],
  '4': ['6', '1'],
  '5': ['6', '2'],
  '6': ['1', '2'],
};
/** The same card cannot be changed again through the status interfaces within 30 minutes. */
const CHANGE_COOLDOWN_MS = 30 * 60_000;

export class FakeOnelink {
  readonly appid = '100001234';
  readonly password = 'onelink-test-password-0123';
  readonly cards = new Map<string, FakeOnelinkCard>();
  /** ICCIDs that exist but belong to another customer (12009). */
  readonly foreignIccids = new Set<string>();
  tokenTtlSeconds = 3600;
  /** The fake's clock: token expiry, query windows and transid dates. */
  now: () => Date = () => new Date();
  tokenRequests = 0;
  /** When set, every token is refused as if it had expired (the adapter must give up after one re-fetch). */
  refuseAllTokens = false;
  readonly transids: string[] = [];
  readonly statusChanges: { iccid: string; operType: string }[] = [];
  private readonly tokens = new Map<string, number>();
  private readonly lastChange = new Map<string, number>();
  readonly http = new FakeHttp((req) => this.handle(req));

  async start(): Promise<this> {
    await this.http.start();
    return this;
  }

  stop(): Promise<void> {
    return this.http.stop();
  }

  /** The API root to give the adapter (`.../v5/ec`). */
  get baseUrl(): string {
    return `${this.http.url}/v5/ec`;
  }

  addCard(card: Partial<FakeOnelinkCard> & { iccid: string }): FakeOnelinkCard {
    const full: FakeOnelinkCard = {
      msisdn: `1440${card.iccid.slice(-9)}`,
      imsi: `46004${card.iccid.slice(-10)}`,
      cardStatus: '2',
      activeDate: '2024-03-01 10:20:30',
      openDate: '2024-02-20 09:00:00',
      monthKb: {},
      dayKb: {},
      offerings: [],
      ...card,
    };
    this.cards.set(full.iccid, full);
    return full;
  }

  /** Back to an empty account with default settings (between tests). */
  reset(): void {
    this.cards.clear();
    this.foreignIccids.clear();
    this.tokens.clear();
    this.lastChange.clear();
    this.transids.length = 0;
    this.statusChanges.length = 0;
    this.tokenRequests = 0;
    this.tokenTtlSeconds = 3600;
    this.refuseAllTokens = false;
    this.http.clearInjections();
    this.http.requests.length = 0;
  }

  /** Server-side expiry of every token handed out so far. */
  expireTokens(): void {
    this.tokens.clear();
  }

  private handle(req: FakeRequest): FakeReply {
    if (!req.path.startsWith('/v5/ec/')) return { status: 404, json: { message: 'Not Found' } };
    if (req.method !== 'GET' && req.method !== 'POST')
      return { status: 405, json: { message: 'Method Not Allowed' } };
    let params: Record<string, string>;
    try {
      params = this.params(req);
    } catch {
      return answer(PARAM_ERROR, '请求参数错误');
    }
    const transid = params.transid ?? '';
    if (!this.validTransid(transid)) return answer(PARAM_ERROR, 'transid 不合法');
    this.transids.push(transid);
    const path = req.path.slice('/v5/ec'.length);
    if (path === '/get/token') return this.getToken(params);

    const token = params.token ?? '';
    const expiresAt = this.tokens.get(token);
    if (this.refuseAllTokens || expiresAt === undefined || expiresAt <= this.now().getTime()) {
      return answer(TOKEN_INVALID, 'TOKEN不存在或已过期，请重新获取');
    }
    switch (path) {
      case '/query/sim-status':
        return this.single(params, (c) => [
          { cardStatus: c.cardStatus, lastChangeDate: '2024-03-01 10:20:30' },
        ]);
      case '/query/sim-basic-info':
        return this.single(params, (c) => [
          { msisdn: c.msisdn, imsi: c.imsi, iccid: c.iccid, activeDate: c.activeDate, openDate: c.openDate },
        ]);
      case '/query/sim-data-usage':
        return this.single(params, (c) => [
          { dataAmount: String(c.monthKb[this.thisMonth()] ?? 0), apnUseAmountList: [] },
        ]);
      case '/query/sim-data-margin':
        return this.single(params, (c) => [
          {
            accmMarginList: c.offerings.map((o, i) => ({
              offeringId: String(100000 + i),
              offeringName: o.name,
              apnName: 'CMIOT',
              totalAmount: String(o.totalKb),
              useAmount: String(o.usedKb),
              remainAmount: String(o.totalKb - o.usedKb),
            })),
          },
        ]);
      case '/query/sim-data-usage-daily/batch':
        return this.batch(params, 'day');
      case '/query/sim-data-usage-monthly/batch':
        return this.batch(params, 'month');
      case '/change/sim-status':
        return this.changeStatus(params);
      default:
        return { status: 404, json: { message: 'Not Found' } };
    }
  }

  private getToken(params: Record<string, string>): FakeReply {
    this.tokenRequests += 1;
    if (params.appid !== this.appid || params.password !== this.password) {
      return answer(BAD_CREDENTIALS, 'appid或password鉴权不通过');
    }
    if (!params.transid?.startsWith(this.appid)) return answer(PARAM_ERROR, 'transid 与 appid 不匹配');
    const token = randomBytes(32).toString('hex');
    this.tokens.set(token, this.now().getTime() + this.tokenTtlSeconds * 1000);
    return answer('0', '正确', [{ token, ttl: String(this.tokenTtlSeconds) }]);
  }

  /** msisdn, iccid or imsi: exactly one. */
  private single(params: Record<string, string>, result: (card: FakeOnelinkCard) => unknown[]): FakeReply {
    const found = this.lookup(params, ['msisdn', 'iccid', 'imsi']);
    if ('reply' in found) return found.reply;
    const card = found.cards[0]!;
    return answer('0', '正确', result(card));
  }

  private batch(params: Record<string, string>, kind: 'day' | 'month'): FakeReply {
    const found = this.lookup(params, ['msisdns', 'iccids', 'imsis']);
    if ('reply' in found) return found.reply;
    const queryDate = params.queryDate ?? '';
    const now = wallClock(this.now(), CHINA);
    const today = { year: now.year, month: now.month, day: now.day };
    if (kind === 'day') {
      // 当前时间前一天开始的7日内, yyyyMMdd.
      const allowed = Array.from({ length: 7 }, (_, i) => compactDay(addDays(today, -(i + 1))));
      if (!/^\d{8}$/.test(queryDate) || !allowed.includes(queryDate)) {
        return answer(PARAM_ERROR, 'queryDate 只能查询近7天中某一天（截止前一天）');
      }
    } else {
      const m = /^(\d{4})(\d{2})$/.exec(queryDate);
      const back = m ? monthIndex(today.year, today.month) - monthIndex(Number(m[1]), Number(m[2])) : -1;
      if (!m || Number(m[2]) < 1 || Number(m[2]) > 12 || back < 0 || back > 5) {
        return answer(PARAM_ERROR, 'queryDate 只能查询近6个月中某月');
      }
    }
    const key = found.key.slice(0, -1) as 'msisdn' | 'iccid' | 'imsi';
    return answer('0', '正确', [
      {
        ...(kind === 'month' ? { deadLine: compactDay(addDays(today, -1)) } : {}),
        dataAmountList: found.cards.map((c) => {
          const kb = kind === 'day' ? c.dayKb[queryDate] : c.monthKb[queryDate];
          return { [key]: c[key], dataAmount: String(kb ?? 0), apnDataAmountList: [] };
        }),
      },
    ]);
  }

  private changeStatus(params: Record<string, string>): FakeReply {
    const found = this.lookup(params, ['msisdn', 'iccid', 'imsi']);
    if ('reply' in found) return found.reply;
    const card = found.cards[0]!;
    const transition = TRANSITIONS[params.operType ?? ''];
    if (!transition) return answer(PARAM_ERROR, 'operType 不合法');
    if (card.cardStatus !== transition[0]) return answer(PARAM_ERROR, '当前状态不允许该操作');
    const last = this.lastChange.get(card.iccid);
    const nowMs = this.now().getTime();
    // The real code for this refusal is not published; the fake uses the parameter error.
    if (last !== undefined && nowMs - last < CHANGE_COOLDOWN_MS) {
      return answer(PARAM_ERROR, '同一卡号30分钟内不能重复办理业务');
    }
    card.cardStatus = transition[1];
    this.lastChange.set(card.iccid, nowMs);
    this.statusChanges.push({ iccid: card.iccid, operType: params.operType! });
    return answer('0', '正确', [{ iccid: card.iccid }]);
  }

  private lookup(
    params: Record<string, string>,
    keys: string[],
  ): { cards: FakeOnelinkCard[]; key: string } | { reply: FakeReply } {
    const present = keys.filter((k) => params[k] !== undefined && params[k] !== '');
    if (present.length !== 1) return { reply: answer(PARAM_ERROR, `${keys.join('、')}必须有且只有一项`) };
    const key = present[0]!;
    const values = key.endsWith('s') ? params[key]!.split('_') : [params[key]!];
    if (values.length > 100) return { reply: answer(PARAM_ERROR, '每次查询不超过100张卡') };
    const field = (key.endsWith('s') ? key.slice(0, -1) : key) as 'msisdn' | 'iccid' | 'imsi';
    const cards: FakeOnelinkCard[] = [];
    for (const v of values) {
      const card = [...this.cards.values()].find((c) => c[field] === v);
      if (card) cards.push(card);
      else if (field === 'iccid' && this.foreignIccids.has(v)) {
        return { reply: answer(CARD_OF_OTHER_CUSTOMER, '卡号鉴权失败，不属于此用户') };
      } else return { reply: answer(CARD_UNKNOWN, '卡号鉴权失败，不存在本系统') };
    }
    return { cards, key };
  }

  private params(req: FakeRequest): Record<string, string> {
    const out: Record<string, string> = Object.fromEntries(req.query.entries());
    if (req.method === 'POST' && req.body.trim() !== '') {
      const body = JSON.parse(req.body) as Record<string, unknown>;
      for (const [k, v] of Object.entries(body)) out[k] = String(v);
    }
    return out;
  }

  private validTransid(transid: string): boolean {
    const m = /^(.+)(\d{14})(\d{8})$/.exec(transid);
    if (!m || m[1] !== this.appid) return false;
    return parseLocalDateTime(m[2], CHINA) !== null;
  }

  private thisMonth(): string {
    const w = wallClock(this.now(), CHINA);
    return compactMonth(w.year, w.month);
  }
}

function answer(status: string, message: string, result: unknown[] = []): FakeReply {
  return { status: 200, json: { status, message, result } };
}
