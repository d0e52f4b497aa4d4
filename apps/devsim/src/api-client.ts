import type { DeviceIdentity } from './device';

/**
 * The few Cellhub API calls the simulator needs to get a fleet's identities: sign in, create devices, read
 * their secrets. Plain fetch on purpose: the simulator talks to the platform from outside, like a customer script.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

interface Envelope<T> {
  status?: boolean;
  data?: T;
  total?: number;
  code?: number;
  message?: string;
}

export class CellhubApi {
  private token?: string;

  constructor(
    readonly baseUrl: string,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** One call; 429 answers are waited out (the server limits each route per address and minute). */
  async call<T>(method: string, path: string, body?: unknown): Promise<{ data: T; total?: number }> {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status === 429 && attempt < 20) {
        const retryAfter = Number(res.headers.get('retry-after'));
        const waitS = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 2 ** Math.min(attempt, 5);
        if (attempt === 0)
          this.log(`rate limited on ${method} ${path}: waiting ${waitS}s (repeats are quiet)`);
        await new Promise((r) => setTimeout(r, waitS * 1000));
        continue;
      }
      const text = await res.text();
      let json: Envelope<T> = {};
      try {
        json = JSON.parse(text) as Envelope<T>;
      } catch {
        // not JSON: reported below with the status
      }
      if (!res.ok || json.status !== true) {
        throw new ApiError(
          res.status,
          json.code,
          `${method} ${path}: HTTP ${res.status}${json.code ? ` code ${json.code}` : ''} ${json.message ?? text.slice(0, 200)}`,
        );
      }
      return { data: json.data as T, total: json.total };
    }
  }

  async login(username: string, password: string): Promise<void> {
    const { data } = await this.call<{ token: string }>('POST', '/api/auth/login', { username, password });
    this.token = data.token;
  }

  /** Every sn of a product, page by page. */
  async listDeviceSns(productKey: string): Promise<string[]> {
    const sns: string[] = [];
    const perPage = 100; // the API's largest page
    let seen = 0;
    for (let current = 1; ; current++) {
      const q = new URLSearchParams({
        product_key: productKey,
        current: String(current),
        per_page: String(perPage),
      });
      const { data, total } = await this.call<{ sn: string; product_key?: string }[]>(
        'GET',
        `/api/devices?${q}`,
      );
      // A server that ignores the filter must not hand us other products' devices.
      for (const d of data) if (d.product_key === undefined || d.product_key === productKey) sns.push(d.sn);
      seen += data.length;
      // The server may cap per_page below what we asked; `total` says when the last page is in.
      if (data.length === 0 || (total !== undefined ? seen >= total : data.length < perPage)) return sns;
    }
  }

  /** Creates devices in batches; sns that already exist are skipped by the caller, not here. */
  async createDevices(productKey: string, sns: string[]): Promise<void> {
    for (let i = 0; i < sns.length; i += 500) {
      await this.call('POST', '/api/devices', { product_key: productKey, sn: sns.slice(i, i + 500) });
    }
  }

  async deviceIdentity(sn: string): Promise<DeviceIdentity> {
    const { data } = await this.call<{ sn: string; product_key: string; secret?: string }>(
      'GET',
      `/api/devices/${encodeURIComponent(sn)}`,
    );
    if (!data.secret)
      throw new Error(`GET /api/devices/${sn} returned no secret (not the owner or an admin?)`);
    return { sn: data.sn, product_key: data.product_key, secret: data.secret };
  }

  /** Secrets of many devices with a few requests in flight at a time. */
  async identities(sns: string[], concurrency = 8): Promise<DeviceIdentity[]> {
    const out: DeviceIdentity[] = new Array<DeviceIdentity>(sns.length);
    let next = 0;
    const worker = async () => {
      while (next < sns.length) {
        const i = next++;
        out[i] = await this.deviceIdentity(sns[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, sns.length) }, worker));
    return out;
  }
}

/** `SIM` + 6 digits: sortable, valid as sn, clientId and topic level. */
export const fleetSn = (prefix: string, i: number) => `${prefix}${String(i + 1).padStart(6, '0')}`;

/**
 * Makes sure `count` devices named prefix000001.. exist in the product (creating the missing ones) and returns
 * their identities. Running it twice creates nothing the second time.
 */
export async function ensureFleet(
  api: CellhubApi,
  productKey: string,
  count: number,
  prefix: string,
): Promise<DeviceIdentity[]> {
  const wanted = Array.from({ length: count }, (_, i) => fleetSn(prefix, i));
  const existing = new Set(await api.listDeviceSns(productKey));
  const missing = wanted.filter((sn) => !existing.has(sn));
  if (missing.length > 0) await api.createDevices(productKey, missing);
  return api.identities(wanted);
}
