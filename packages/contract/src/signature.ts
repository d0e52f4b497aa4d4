/**
 * The signed open API (issue 14, docs/open-api.md): how a request made with an access key is reduced to the one
 * string its signature covers. Pure and browser-safe: the HMAC itself lives where node:crypto or WebCrypto is
 * (apps/server/src/modules/access-keys/signature-verify.ts, packages/client).
 *
 * A signed request carries four headers: `x-n-accesskey`, `x-n-ts` (Unix seconds), `x-n-nonce` and
 * `x-n-signature` = lowercase hex HMAC-SHA256, keyed by the secret (its UTF-8 bytes), of the UTF-8 bytes of
 * `canonicalString(...)`. The canonical string is these items joined with `&`:
 *
 *   1. the request path without its `/api` prefix and without the query string, exactly as sent on the wire
 *      (percent-escapes stay as they are): `/api/devices/SN%201?x=1` → `/devices/SN%201`;
 *   2. `x-n-ts=<ts>` and 3. `x-n-nonce=<nonce>`, the header values as sent;
 *   4. then one `name=value` item per parameter, sorted by name and, for equal names, by value (both by UTF-16
 *      code unit, as JavaScript's default sort and `<` compare strings):
 *      - GET, DELETE and HEAD: every query parameter, decoded as application/x-www-form-urlencoded (`+` is a space,
 *        `%XX` escapes are UTF-8); a name without `=` has the value ''; a repeated name (`?a=2&a=1`) gives one item
 *        per occurrence (`a=1&a=2` after sorting); the body is not signed;
 *      - every other method: every top-level field of the JSON object body (none when the body is empty, not JSON
 *        or not an object, e.g. multipart); the query string is not signed. Values are written:
 *          string         as it is, no escaping (`name=a&b` stays `name=a&b`)
 *          number         as JavaScript writes it (`1.0` → `1`, `1e21` → `1e+21`, `-0` → `0`)
 *          boolean        `true` / `false`
 *          null           the empty string (`uid=`)
 *          object, array  compact JSON of the parsed value (`JSON.stringify`: no spaces, key order as sent except
 *                         that integer-like keys come first in ascending order, as JavaScript orders them)
 *
 * Nothing in a name or value is escaped, so `&` or `=` inside a value cannot be told from a separator: this is the
 * product's SDK form and is kept for compatibility; the timestamp and nonce still make every string unique.
 */

/** The headers of a signed request (lower case, as Node and fetch give them). */
export const SIGNATURE_HEADERS = {
  accessKey: 'x-n-accesskey',
  ts: 'x-n-ts',
  nonce: 'x-n-nonce',
  signature: 'x-n-signature',
} as const;

/** How far `x-n-ts` may be from the server's clock, either way (10222 beyond). Nonces are kept this long too. */
export const SIGNATURE_WINDOW_SECONDS = 300;

/** `x-n-ts`: whole Unix seconds, decimal, no sign. */
export const SIGNATURE_TS_RULE = /^\d{1,12}$/;
/** `x-n-nonce`: 8 to 64 characters of letters, digits, `-` and `_` (a UUID or 16 random hex bytes both fit). */
export const SIGNATURE_NONCE_RULE = /^[A-Za-z0-9_-]{8,64}$/;
/** `x-n-signature`: 64 hex digits (the server accepts upper case too). */
export const SIGNATURE_HEX_RULE = /^[0-9a-fA-F]{64}$/;

/** The methods whose query string (not body) is signed. */
export const QUERY_SIGNED_METHODS = ['GET', 'DELETE', 'HEAD'] as const;

/**
 * The parameters to sign: a JSON body object (its top-level fields; `undefined` fields are left out, as
 * JSON.stringify leaves them out), or name/value pairs (the query string, where a name may repeat).
 */
export type SignatureParams = Readonly<Record<string, unknown>> | ReadonlyArray<readonly [string, string]>;

export interface CanonicalInput {
  /** The path as sent, with or without the `/api` prefix, with or without a query string (both are cut off). */
  path: string;
  ts: string | number;
  nonce: string;
  params?: SignatureParams;
}

/** One value written the documented way; undefined for a field that is left out. */
export function canonicalValue(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? '';
}

/** `/api/devices/X?a=1` → `/devices/X`. The path alone is `/` for `/api` itself. */
export function canonicalPath(path: string): string {
  const q = path.indexOf('?');
  const bare = q === -1 ? path : path.slice(0, q);
  if (bare === '/api') return '/';
  return bare.startsWith('/api/') ? bare.slice(4) : bare;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The sorted `name=value` items of the parameters. */
export function canonicalParams(params: SignatureParams | undefined): string[] {
  if (!params) return [];
  const pairs: [string, string][] = [];
  if (Array.isArray(params)) {
    for (const [name, value] of params as ReadonlyArray<readonly [string, string]>) pairs.push([name, value]);
  } else {
    for (const [name, raw] of Object.entries(params)) {
      const value = canonicalValue(raw);
      if (value !== undefined) pairs.push([name, value]);
    }
  }
  pairs.sort((a, b) => byCodeUnit(a[0], b[0]) || byCodeUnit(a[1], b[1]));
  return pairs.map(([name, value]) => `${name}=${value}`);
}

/** The string the signature covers (see the top of this file). */
export function canonicalString(input: CanonicalInput): string {
  return [
    canonicalPath(input.path),
    `x-n-ts=${input.ts}`,
    `x-n-nonce=${input.nonce}`,
    ...canonicalParams(input.params),
  ].join('&');
}

const decodeFormComponent = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));

/**
 * The query string (with or without `?`, or a whole path with one) as name/value pairs, decoded as
 * application/x-www-form-urlencoded; empty pieces (`a=1&&b=2`) are skipped. null when an escape is malformed.
 */
export function parseQueryPairs(search: string): [string, string][] | null {
  const q = search.indexOf('?');
  const raw = q === -1 ? search : search.slice(q + 1);
  const pairs: [string, string][] = [];
  if (raw === '') return pairs;
  try {
    for (const piece of raw.split('&')) {
      if (piece === '') continue;
      const eq = piece.indexOf('=');
      pairs.push(
        eq === -1
          ? [decodeFormComponent(piece), '']
          : [decodeFormComponent(piece.slice(0, eq)), decodeFormComponent(piece.slice(eq + 1))],
      );
    }
  } catch {
    return null;
  }
  return pairs;
}

/** Whether a method signs its query string (GET, DELETE, HEAD) rather than its body. */
export const signsQuery = (method: string): boolean =>
  (QUERY_SIGNED_METHODS as readonly string[]).includes(method.toUpperCase());

/**
 * The parameters of a request as the signature sees them: the query pairs for GET/DELETE/HEAD, else the JSON
 * body's top-level fields (a body that is not a plain object signs no parameters). null for a malformed query.
 */
export function requestParams(method: string, url: string, body: unknown): SignatureParams | null {
  if (signsQuery(method)) return parseQueryPairs(url.includes('?') ? url : '');
  if (body !== null && typeof body === 'object' && !Array.isArray(body))
    return body as Record<string, unknown>;
  return [];
}

/**
 * Test vectors (secret `SIGNATURE_VECTOR_SECRET`), checked by signature.test.ts with node:crypto and by the
 * server's and the client's tests; docs/open-api.md prints the same. Keep them in step.
 */
export const SIGNATURE_VECTOR_SECRET = 'cellhub-test-secret-0123456789abcdef';
export const SIGNATURE_VECTORS: ReadonlyArray<{
  name: string;
  method: string;
  url: string;
  body?: unknown;
  ts: string;
  nonce: string;
  canonical: string;
  signature: string;
}> = [
  {
    name: 'GET list, query sorted',
    method: 'GET',
    url: '/api/devices?per_page=10&current=1&keyword=a+b%26c',
    ts: '1764115200',
    nonce: 'n0nce-0001',
    canonical: '/devices&x-n-ts=1764115200&x-n-nonce=n0nce-0001&current=1&keyword=a b&c&per_page=10',
    signature: '06d1ec1ea0d937d8d99e2ca3bfbe424163d29d7d3a93c90a729641607fa1cc94',
  },
  {
    name: 'GET repeated key and bare name',
    method: 'GET',
    url: '/api/devices/SN%20001/properties?key=temp&key=hum&raw',
    ts: '1764115200',
    nonce: 'n0nce-0002',
    canonical: '/devices/SN%20001/properties&x-n-ts=1764115200&x-n-nonce=n0nce-0002&key=hum&key=temp&raw=',
    signature: '8f2b04b3f5d34e57b76a9e9fd203601f153ca757c42f89c2ffc131a599dd0010',
  },
  {
    name: 'POST body: string, number, boolean, null, object, array',
    method: 'POST',
    url: '/api/devices/SN001/commands?ignored=1',
    body: {
      type: 'raw',
      payload: 'a&b=c',
      qos: 1,
      ratio: 1.5,
      retain: false,
      ttl: null,
      params: { b: 1, a: [1, 'x'] },
      tags: ['z', 'y'],
    },
    ts: '1764115200',
    nonce: 'n0nce-0003',
    canonical:
      '/devices/SN001/commands&x-n-ts=1764115200&x-n-nonce=n0nce-0003&params={"b":1,"a":[1,"x"]}&payload=a&b=c&qos=1&ratio=1.5&retain=false&tags=["z","y"]&ttl=&type=raw',
    signature: '0e8e0658bb57bb9893f50ca779317de26620223d1dea1390a9a22594d2c8afe6',
  },
  {
    name: 'PUT empty body',
    method: 'PUT',
    url: '/api/devices/SN001',
    ts: '1764115200',
    nonce: 'n0nce-0004',
    canonical: '/devices/SN001&x-n-ts=1764115200&x-n-nonce=n0nce-0004',
    signature: 'fcf83b31e761be313db89120eb4bbd7c856cea162580361f044e6b9354ec5cf5',
  },
  {
    name: 'DELETE, non-ASCII query',
    method: 'DELETE',
    url: '/api/alerts/triggers/7?note=%E6%B8%A9%E5%BA%A6',
    ts: '1764115200',
    nonce: 'n0nce-0005',
    canonical: '/alerts/triggers/7&x-n-ts=1764115200&x-n-nonce=n0nce-0005&note=温度',
    signature: '2b7ff13c424122202f697be649910296e297fa559afbc93a1a760c6dd6c3985d',
  },
];
