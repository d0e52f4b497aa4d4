/**
 * Signing a request with an access key (docs/open-api.md). The canonical string comes from the contract
 * (`@cellhub/contract/signature`, the same code the server verifies with); the HMAC-SHA256 is WebCrypto's
 * (`globalThis.crypto.subtle`), present in Node 20+ and in browsers, so this file imports nothing from Node.
 */
import {
  canonicalString,
  parseQueryPairs,
  requestParams,
  SIGNATURE_HEADERS,
  type SignatureParams,
  signsQuery,
} from '@cellhub/contract/signature';

/** A query as a string (`a=1&b=2`, with or without `?`), name/value pairs, or an object (arrays repeat a name). */
export type SignQuery =
  | string
  | ReadonlyArray<readonly [string, string]>
  | Readonly<
      Record<string, string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>>
    >;

export interface SignInput {
  /** GET, POST, ... (any case). */
  method: string;
  /** The path as sent, e.g. `/api/devices/SN001/properties`; a query string on it is signed when `query` is absent. */
  path: string;
  /** The query parameters (GET, DELETE and HEAD sign them); overrides a query string on `path`. */
  query?: SignQuery;
  /** The JSON body as sent (other methods sign its top-level fields); a string is parsed as JSON first. */
  body?: unknown;
  accessKey: string;
  secret: string;
  /** Unix seconds; now when left out. */
  ts?: number | string;
  /** 8-64 of `[A-Za-z0-9_-]`; 32 random hex digits when left out. */
  nonce?: string;
}

/** The four headers of a signed request. */
export interface SignedHeaders {
  'x-n-accesskey': string;
  'x-n-ts': string;
  'x-n-nonce': string;
  'x-n-signature': string;
}

const encoder = new TextEncoder();

function webCrypto(): typeof globalThis.crypto.subtle {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle)
    throw new Error(
      'WebCrypto (globalThis.crypto.subtle) is not available: Node 20+ or a browser over HTTPS',
    );
  return subtle;
}

/** Lowercase hex HMAC-SHA256 of `message` keyed by `secret` (both as UTF-8). */
export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const subtle = webCrypto();
  const key = await subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await subtle.sign('HMAC', key, encoder.encode(message)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** 16 random bytes as 32 hex digits. */
export function randomNonce(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function queryParams(query: SignQuery): SignatureParams {
  if (typeof query === 'string') {
    const pairs = parseQueryPairs(query);
    if (!pairs) throw new Error('the query string has a malformed percent-escape');
    return pairs;
  }
  if (Array.isArray(query)) return query as ReadonlyArray<readonly [string, string]>;
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) pairs.push([name, v === null ? '' : String(v)]);
  }
  return pairs;
}

function bodyValue(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The parameters the signature covers, as the server reads them from the request. */
export function signatureParams(
  method: string,
  path: string,
  query: SignQuery | undefined,
  body: unknown,
): SignatureParams {
  if (signsQuery(method) && query !== undefined) return queryParams(query);
  const params = requestParams(method, path, bodyValue(body));
  if (!params) throw new Error('the query string has a malformed percent-escape');
  return params;
}

/** The string a request's signature covers (for debugging a 10221 answer: compare it with docs/open-api.md). */
export function canonicalRequest(
  input: Omit<SignInput, 'accessKey' | 'secret'> & { ts: number | string; nonce: string },
): string {
  return canonicalString({
    path: input.path,
    ts: input.ts,
    nonce: input.nonce,
    params: signatureParams(input.method, input.path, input.query, input.body),
  });
}

/** The four headers that sign a request with an access key. */
export async function signRequest(input: SignInput): Promise<SignedHeaders> {
  const ts = String(input.ts ?? Math.floor(Date.now() / 1000));
  const nonce = input.nonce ?? randomNonce();
  const signature = await hmacSha256Hex(input.secret, canonicalRequest({ ...input, ts, nonce }));
  return {
    [SIGNATURE_HEADERS.accessKey]: input.accessKey,
    [SIGNATURE_HEADERS.ts]: ts,
    [SIGNATURE_HEADERS.nonce]: nonce,
    [SIGNATURE_HEADERS.signature]: signature,
  } as SignedHeaders;
}
