/**
 * A local stand-in for the 1NCE Management API (https://api.1nce.com/management-api) as its published OpenAPI
 * documents (Authorization v2.1.1, SIM Management v1) describe it:
 * - POST /oauth/token: Basic authentication, Content-Type application/json, body {"grant_type":
 *   "client_credentials"}; 400 with errorCode AuthValidationError / BodyValidationError / BadCredentials /
 *   UnsupportedContentTypeError; 200 {status_code, access_token, token_type, expires_in, userId, scope}.
 * - /v1/sims...: a live bearer token (else 401), 10 requests per second per customer (else 429 with
 *   Retry-After), 404 for unknown SIMs, 403 for SIMs of another customer, page/pageSize limits, YYYY-MM-DD usage
 *   dates, and the SIM update body (iccid and status Enabled|Disabled required).
 */
import { randomBytes } from 'node:crypto';
import { FakeHttp, type FakeReply, type FakeRequest } from './fake-http';

export interface FakeOneNceSim {
  iccid: string;
  iccid_with_luhn: string;
  imsi: string;
  msisdn: string;
  status: 'Enabled' | 'Disabled';
  activation_date: string;
  /** Data quota in MB; null: the SIM has none (404 on quota/data). */
  quota: { volume: number; total_volume: number; expiry_date: string } | null;
  /** Data MB used per UTC day `YYYY-MM-DD`. */
  dailyMb: Record<string, number>;
}

const PREFIX = '/management-api';

export class FakeOneNce {
  readonly username = 'api-user@example.com';
  readonly password = 'OneNce-Test-Pass-42';
  readonly sims = new Map<string, FakeOneNceSim>();
  /** SIMs that exist in another customer's account. */
  readonly foreignIccids = new Set<string>();
  tokenTtlSeconds = 3600;
  now: () => Date = () => new Date();
  /** /sims requests allowed per (real) second; the published limit is 10 per customer. */
  simsPerSecond = 10;
  tokenRequests = 0;
  readonly updates: { iccid: string; status: string }[] = [];
  private readonly tokens = new Map<string, number>();
  private window = { second: 0, count: 0 };
  readonly http = new FakeHttp((req) => this.handle(req));

  async start(): Promise<this> {
    await this.http.start();
    return this;
  }

  stop(): Promise<void> {
    return this.http.stop();
  }

  get baseUrl(): string {
    return `${this.http.url}${PREFIX}`;
  }

  addSim(sim: Partial<FakeOneNceSim> & { iccid: string }): FakeOneNceSim {
    const full: FakeOneNceSim = {
      iccid_with_luhn: `${sim.iccid}0`,
      imsi: `901405${sim.iccid.slice(-9)}`,
      msisdn: `882285${sim.iccid.slice(-9)}`,
      status: 'Enabled',
      activation_date: '2024-03-09T07:59:09.000+0000',
      quota: { volume: 435.787951, total_volume: 500, expiry_date: '2034-03-09T00:00:00.000Z' },
      dailyMb: {},
      ...sim,
    };
    this.sims.set(full.iccid, full);
    return full;
  }

  /** Back to an empty account with default settings (between tests). */
  reset(): void {
    this.sims.clear();
    this.foreignIccids.clear();
    this.tokens.clear();
    this.updates.length = 0;
    this.tokenRequests = 0;
    this.tokenTtlSeconds = 3600;
    this.simsPerSecond = 10;
    this.resetRateLimit();
    this.http.clearInjections();
    this.http.requests.length = 0;
  }

  expireTokens(): void {
    this.tokens.clear();
  }

  resetRateLimit(): void {
    this.window = { second: 0, count: 0 };
  }

  private handle(req: FakeRequest): FakeReply {
    if (!req.path.startsWith(`${PREFIX}/`)) return { status: 404, json: { message: 'Not Found' } };
    const path = req.path.slice(PREFIX.length);
    if (path === '/oauth/token') {
      return req.method === 'POST' ? this.token(req) : { status: 404, json: { message: 'Not Found' } };
    }
    if (!path.startsWith('/v1/sims')) return { status: 404, json: { message: 'Not Found' } };

    const auth = req.headers.authorization ?? '';
    const bearer = /^Bearer (\S+)$/.exec(auth)?.[1];
    const expiresAt = bearer ? this.tokens.get(bearer) : undefined;
    if (expiresAt === undefined || expiresAt <= this.now().getTime()) return { status: 401, json: {} };

    const second = Math.floor(Date.now() / 1000);
    if (this.window.second !== second) this.window = { second, count: 0 };
    this.window.count += 1;
    if (this.window.count > this.simsPerSecond) {
      return { status: 429, json: { message: 'Too Many Requests' }, headers: { 'retry-after': '1' } };
    }

    if (path === '/v1/sims') return req.method === 'GET' ? this.list(req) : notFound();
    const m = /^\/v1\/sims\/([^/]+)(\/quota\/data|\/usage)?$/.exec(path);
    if (!m) return notFound();
    const iccid = decodeURIComponent(m[1]!);
    const sim = this.sims.get(iccid);
    if (!sim) return this.foreignIccids.has(iccid) ? { status: 403, json: {} } : notFound();
    const sub = m[2];
    if (sub === undefined && req.method === 'GET') return { status: 200, json: this.simJson(sim) };
    if (sub === undefined && req.method === 'PUT') return this.update(req, sim);
    if (sub === '/quota/data' && req.method === 'GET') {
      return sim.quota
        ? {
            status: 200,
            json: {
              ...sim.quota,
              peak_throughput: 1000000,
              last_volume_added: 500,
              last_status_change_date: '2024-03-09T07:59:09.000Z',
              threshold_percentage: 20,
            },
          }
        : notFound();
    }
    if (sub === '/usage' && req.method === 'GET') return this.usage(req, sim);
    return notFound();
  }

  private token(req: FakeRequest): FakeReply {
    this.tokenRequests += 1;
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (type !== 'application/json')
      return tokenError('UnsupportedContentTypeError', 'Content-Type not supported');
    const basic = /^Basic (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const decoded = basic ? Buffer.from(basic, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const username = colon >= 0 ? decoded.slice(0, colon) : '';
    const password = colon >= 0 ? decoded.slice(colon + 1) : '';
    if (!username)
      return tokenError('AuthValidationError', "Auth header validation error: Missing attributes 'username'");
    if (!password)
      return tokenError('AuthValidationError', "Auth header validation error: Missing attributes 'password'");
    let body: unknown;
    try {
      body = JSON.parse(req.body);
    } catch {
      body = null;
    }
    const grant = (body as { grant_type?: unknown } | null)?.grant_type;
    if (typeof grant !== 'string') {
      return tokenError(
        'BodyValidationError',
        "Request body validation error: Missing attributes 'grant_type'",
      );
    }
    if (grant !== 'client_credentials') return tokenError('BodyValidationError', 'Unsupported grant_type');
    if (username !== this.username || password !== this.password) {
      return tokenError('BadCredentials', 'User does not exist.');
    }
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, this.now().getTime() + this.tokenTtlSeconds * 1000);
    return {
      status: 200,
      json: {
        status_code: 200,
        access_token: token,
        token_type: 'bearer',
        expires_in: this.tokenTtlSeconds,
        userId: 'user',
        scope: 'all',
      },
    };
  }

  private list(req: FakeRequest): FakeReply {
    const page = Number(req.query.get('page') ?? '1');
    const pageSize = Number(req.query.get('pageSize') ?? '10');
    if (
      !Number.isInteger(page) ||
      page < 1 ||
      !Number.isInteger(pageSize) ||
      pageSize < 1 ||
      pageSize > 100
    ) {
      return { status: 400, json: { message: 'Invalid paging parameters' } };
    }
    const all = [...this.sims.values()];
    const items = all.slice((page - 1) * pageSize, page * pageSize).map((s) => this.simJson(s));
    return {
      status: 200,
      json: items,
      headers: {
        'x-count-per-page': String(pageSize),
        'x-current-page': String(page),
        'x-total-count': String(all.length),
        'x-total-pages': String(Math.max(1, Math.ceil(all.length / pageSize))),
      },
    };
  }

  private update(req: FakeRequest, sim: FakeOneNceSim): FakeReply {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (type !== 'application/json') return { status: 400, json: { message: 'Content-Type not supported' } };
    let body: { iccid?: unknown; status?: unknown };
    try {
      body = JSON.parse(req.body) as typeof body;
    } catch {
      return { status: 400, json: { message: 'Malformed JSON' } };
    }
    if (typeof body.iccid !== 'string' || (body.status !== 'Enabled' && body.status !== 'Disabled')) {
      return {
        status: 400,
        json: { message: "Request body validation error: 'iccid' and 'status' are required" },
      };
    }
    sim.status = body.status;
    this.updates.push({ iccid: sim.iccid, status: body.status });
    return { status: 200, text: '' };
  }

  private usage(req: FakeRequest, sim: FakeOneNceSim): FakeReply {
    const start = req.query.get('start_dt') ?? '';
    const end = req.query.get('end_dt') ?? '';
    if (!isDay(start) || !isDay(end) || start > end) {
      return { status: 400, json: { message: 'start_dt and end_dt must be dates in format YYYY-MM-DD' } };
    }
    const stats = Object.entries(sim.dailyMb)
      .filter(([day]) => day >= start && day <= end)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([day, mb]) => ({
        date: `${day}T00:00:00.000Z`,
        data: {
          cost: mb.toFixed(6),
          currency: { id: 1, symbol: '€', code: 'EUR' },
          traffic_type: { description: 'Data', id: 5, unit: 'MB' },
          volume: mb.toFixed(6),
          volume_rx: (mb / 2).toFixed(6),
          volume_tx: (mb - mb / 2).toFixed(6),
        },
        sms: {
          cost: '0',
          currency: { id: 1, symbol: '€', code: 'EUR' },
          traffic_type: { description: 'SMS', id: 6, unit: 'SMS' },
          volume: '0',
          volume_rx: '0',
          volume_tx: '0',
        },
      }));
    return { status: 200, json: { stats } };
  }

  private simJson(sim: FakeOneNceSim) {
    return {
      iccid: sim.iccid,
      iccid_with_luhn: sim.iccid_with_luhn,
      imsi: sim.imsi,
      current_imsi: sim.imsi,
      msisdn: sim.msisdn,
      imei: '8635760478500000',
      imei_lock: false,
      status: sim.status,
      activation_date: sim.activation_date,
      ip_address: '100.100.100.18',
      current_quota: sim.quota?.total_volume ?? 0,
      quota_status: { id: 0, description: 'More than 20% available' },
      current_quota_SMS: 250,
      quota_status_SMS: { id: 0, description: 'More than 20% available' },
      label: null,
    };
  }
}

function isDay(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

const notFound = (): FakeReply => ({ status: 404, json: {} });

const tokenError = (errorCode: string, message: string): FakeReply => ({
  status: 400,
  json: { statusCode: 400, errorCode, message },
});
