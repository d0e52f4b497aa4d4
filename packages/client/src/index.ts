/**
 * @cellhub/client: a typed client for the Cellhub open API (README.md). Paths, parameters and answers are typed
 * from src/openapi.d.ts, generated from the server's OpenAPI document; every request is signed with an access key
 * (sign.ts) from the exact URL and JSON body it sends. Failures throw CellhubError.
 */
import createFetchClient, {
  type Client,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { signsQuery } from '@cellhub/contract/signature';
import { CellhubError, errorFromAnswer } from './errors';
import type { paths } from './openapi';
import { signRequest } from './sign';

export { CellhubError, isErrorBody } from './errors';
export { canonicalRequest, hmacSha256Hex, randomNonce, signRequest } from './sign';
export type { SignedHeaders, SignInput, SignQuery } from './sign';
export type { paths } from './openapi';

type Json = 'application/json';

/** The JSON body of an operation's 200 answer. */
type Ok<P extends keyof paths, M extends HttpMethod> = M extends keyof paths[P]
  ? paths[P][M] extends { responses: { 200: { content: { 'application/json': infer B } } } }
    ? B
    : never
  : never;

// --- the types of the convenience methods, all from the generated document -------------------------------------

export type DeviceListQuery = NonNullable<paths['/api/devices']['get']['parameters']['query']>;
/** `{status, data, total, total_exact, property_defs}`. */
export type DeviceList = Ok<'/api/devices', 'get'>;
export type Device = DeviceList['data'][number];
export type DeviceDetail = Ok<'/api/devices/{sn}', 'get'>['data'];
export type PropertiesQuery = NonNullable<
  paths['/api/devices/{sn}/properties']['get']['parameters']['query']
>;
/** `{status, data, total}`: the latest value of every property, or one property's history. */
export type PropertyList = Ok<'/api/devices/{sn}/properties', 'get'>;
export type PropertyPoint = PropertyList['data'][number];
export type CommandBody = paths['/api/devices/{sn}/commands']['post']['requestBody'] extends
  { content: { 'application/json': infer B } } | undefined
  ? B
  : never;
export type Command = Ok<'/api/devices/{sn}/commands', 'post'>['data'];
export type CommandListQuery = NonNullable<paths['/api/devices/{sn}/commands']['get']['parameters']['query']>;
/** `{status, data, total}`, newest first. */
export type CommandList = Ok<'/api/devices/{sn}/commands', 'get'>;

// --- the client ---------------------------------------------------------------------------------------------------

export interface ClientOptions {
  /** The server's origin, e.g. `https://cellhub.example.com` (paths start with `/api`). */
  baseUrl: string;
  /** The access key (`AK...`) and its secret, from the console's access-key page. */
  accessKey: string;
  secret: string;
  /** A fetch to use instead of `globalThis.fetch` (tests, proxies, retries). */
  fetch?: (request: Request) => Promise<Response>;
  /** Unix seconds for `x-n-ts`; the local clock when left out (the server allows ±5 minutes). */
  now?: () => number;
}

/** The success body of an operation, as openapi-fetch reads it. */
type Success<O, I> =
  O extends Record<string | number, unknown> ? NonNullable<FetchResponse<O, I, Json>['data']> : never;

/** openapi-fetch's own init argument: optional when the operation needs nothing. */
type InitArg<I> = RequiredKeysOf<I> extends never ? [I?] : [I];

export interface CellhubClient {
  /**
   * Any open-API operation: `request('get', '/api/devices/{sn}', { params: { path: { sn } } })`. Resolves with
   * the success body (`{status: true, data, ...}`); throws CellhubError with the server's code otherwise.
   */
  request<
    M extends HttpMethod,
    P extends PathsWithMethod<paths, M>,
    I extends MaybeOptionalInit<paths[P], M>,
  >(
    method: M,
    path: P,
    ...init: InitArg<I>
  ): Promise<Success<paths[P][M], I>>;
  /** Devices the key's owner may see (scope devices:read). */
  listDevices(query?: DeviceListQuery): Promise<DeviceList>;
  /** One device (scope devices:read). */
  getDevice(sn: string): Promise<DeviceDetail>;
  /** The latest value of each property, or with `key` that property's history (scope devices:read). */
  getDeviceProperties(sn: string, query?: PropertiesQuery): Promise<PropertyList>;
  /** Sends a command to the device (scope devices:control); its reply shows in listCommands. */
  sendCommand(sn: string, body: CommandBody): Promise<Command>;
  /** The device's commands with their replies, newest first. */
  listCommands(sn: string, query?: CommandListQuery): Promise<CommandList>;
  /** The openapi-fetch client underneath (signing included), for `{data, error, response}` answers. */
  readonly raw: Client<paths, Json>;
}

/** The middleware that signs each request from the URL and body it is about to send. */
export function signingMiddleware(options: Pick<ClientOptions, 'accessKey' | 'secret' | 'now'>): Middleware {
  return {
    async onRequest({ request }) {
      const url = new URL(request.url);
      let body: unknown;
      // The body openapi-fetch serialised, read back: the signature covers exactly the JSON that is sent.
      const type = request.headers.get('content-type') ?? '';
      if (!signsQuery(request.method) && request.body && /^application\/json\b/i.test(type)) {
        const text = await request.clone().text();
        body = text === '' ? undefined : (JSON.parse(text) as unknown);
      }
      const headers = await signRequest({
        method: request.method,
        path: url.pathname + url.search,
        body,
        accessKey: options.accessKey,
        secret: options.secret,
        ts: options.now?.(),
      });
      for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
      return request;
    },
  };
}

async function unwrap<T>(
  answer: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  const { data, error, response } = await answer;
  if (!response.ok || error !== undefined) throw errorFromAnswer(response.status, response.statusText, error);
  if (data === undefined || data === null) {
    throw new CellhubError(0, `HTTP ${response.status} without a body`, response.status);
  }
  return data;
}

/** A client for one access key. */
export function createClient(options: ClientOptions): CellhubClient {
  const raw = createFetchClient<paths, Json>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  raw.use(signingMiddleware(options));
  const request = ((method: HttpMethod, path: string, init?: object) =>
    unwrap(
      (
        raw.request as (
          m: string,
          p: string,
          i?: object,
        ) => Promise<{ data?: unknown; error?: unknown; response: Response }>
      )(method, path, init),
    )) as CellhubClient['request'];
  return {
    raw,
    request,
    listDevices: (query) => unwrap(raw.GET('/api/devices', { params: { query } })),
    getDevice: async (sn) => (await unwrap(raw.GET('/api/devices/{sn}', { params: { path: { sn } } }))).data,
    getDeviceProperties: (sn, query) =>
      unwrap(raw.GET('/api/devices/{sn}/properties', { params: { path: { sn }, query } })),
    sendCommand: async (sn, body) =>
      (await unwrap(raw.POST('/api/devices/{sn}/commands', { params: { path: { sn } }, body }))).data,
    listCommands: (sn, query) =>
      unwrap(raw.GET('/api/devices/{sn}/commands', { params: { path: { sn }, query } })),
  };
}
