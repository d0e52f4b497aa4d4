/**
 * The request layer of seed sections 7 and 8 over fetch. Every call carries the stored token; a JSON body without
 * `status` is a failure, shown as a toast in the active language unless the code is one of the silent ones or the
 * caller asked for silence (forms that put the error next to a field).
 */
import { clearAuth, getToken } from './auth';
import { loadErrorTable } from './error-table';
import { getLocale } from './locale-store';
import { translate } from './messages';
import { doneProgress, startProgress } from './progress';
import { toast } from './toast';

export const TOAST_DURATION = 5000;
export const LOGIN_EXPIRED_DEBOUNCE_MS = 2000;

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    /** Code of the contract's table; 0 when the server was never reached or sent no code. */
    readonly code: number,
    message: string,
    /** 0 when the request never got an answer. */
    readonly httpStatus: number,
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** The server answered and refused (not a network failure or a crash): its message says what to change. */
  get answered(): boolean {
    return this.httpStatus > 0 && this.httpStatus < 500;
  }
}

export type QueryParams = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  params?: QueryParams;
  /** Skip every toast; the caller shows the error itself. Auth expiry still signs out. */
  silent?: boolean;
  signal?: AbortSignal;
  /** Reports the bytes of the body sent so far (uploads); the call then goes through XMLHttpRequest. */
  onUploadProgress?: (loaded: number, total: number | undefined) => void;
  /** Extra request headers (e.g. `Idempotency-Key` of a payment). */
  headers?: Record<string, string>;
}

export interface ListResult<T, X extends object = object> {
  data: T[];
  total: number;
  /** `false` when `total` is only a lower bound (the device list stops counting at a cap: "10,000+"). */
  totalExact?: boolean;
  /** The envelope's other fields (the device list's `property_defs`), as the list's contract names them. */
  extra?: Partial<X>;
}

type AuthExpiredHandler = () => void;
let onAuthExpired: AuthExpiredHandler = () => {
  window.location.assign('/login');
};

/** The app installs a router-aware handler (clear caches, navigate to /login without a reload). */
export function setAuthExpiredHandler(handler: AuthExpiredHandler): void {
  onAuthExpired = handler;
}

let lastExpiredWarning = -Infinity;

/** For tests: forget when the last "login expired" warning was shown. */
export function resetRequestState(): void {
  lastExpiredWarning = -Infinity;
}

export function apiBaseUrl(): string {
  return (import.meta.env.VITE_API_BASE_URL ?? '').replace(/\/+$/, '');
}

export function buildUrl(url: string, params?: QueryParams): string {
  const full = /^https?:\/\//.test(url) ? url : `${apiBaseUrl()}${url}`;
  if (!params) return full;
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    search.append(k, String(v));
  }
  const qs = search.toString();
  if (!qs) return full;
  return `${full}${full.includes('?') ? '&' : '?'}${qs}`;
}

function toastError(content: string, silent: boolean | undefined): void {
  if (!silent) toast('error', content, TOAST_DURATION);
}

function authExpired(message: string): void {
  const now = Date.now();
  // Several calls fail together when a token expires; one warning is enough (seed section 4: once per 2 s).
  if (now - lastExpiredWarning >= LOGIN_EXPIRED_DEBOUNCE_MS) {
    lastExpiredWarning = now;
    toast('warning', message, TOAST_DURATION);
    clearAuth();
    onAuthExpired();
  } else {
    clearAuth();
  }
}

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  details?: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface CodeInfo {
  /** The code table's text in the active locale, if the code is in the table. */
  text?: string;
  /** One of the codes whose failures the caller handles without a toast (QR polling). */
  silent: boolean;
}

async function codeInfo(code: number): Promise<CodeInfo> {
  const table = code ? await loadErrorTable() : undefined;
  // Without the table (its chunk could not be fetched) the server's message and a toast still say what happened.
  if (!table) return { silent: false };
  return { text: table.errorText(code, getLocale()), silent: table.SILENT_CODES.includes(code) };
}

const serverMessage = (body: ErrorLike) =>
  typeof body.message === 'string' && body.message ? body.message : undefined;

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const NULL_BODY_STATUS = [101, 204, 205, 304];

/**
 * fetch() cannot report upload progress; XMLHttpRequest can. Answers a Response so the rest of the request layer
 * treats both the same; failures reject like fetch (TypeError, or AbortError when aborted).
 */
function xhrFetch(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: BodyInit; signal?: AbortSignal },
  onProgress: NonNullable<RequestOptions['onUploadProgress']>,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(init.method, url);
    for (const [k, v] of Object.entries(init.headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : undefined);
    xhr.onload = () =>
      resolve(
        new Response(NULL_BODY_STATUS.includes(xhr.status) ? null : xhr.responseText, {
          status: xhr.status,
          headers: { 'content-type': xhr.getResponseHeader('content-type') ?? '' },
        }),
      );
    xhr.onerror = () => reject(new TypeError('Network request failed'));
    xhr.onabort = () => reject(new DOMException('The request was aborted', 'AbortError'));
    if (init.signal?.aborted) return xhr.abort();
    init.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send((init.body ?? null) as XMLHttpRequestBodyInit | null);
  });
}

async function request<T>(method: string, url: string, body: unknown, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }

  startProgress();
  let res: Response;
  try {
    const init = { method, headers, body: payload, signal: opts.signal };
    const target = buildUrl(url, opts.params);
    res = await (opts.onUploadProgress ? xhrFetch(target, init, opts.onUploadProgress) : fetch(target, init));
  } catch (err) {
    doneProgress();
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    const message = translate('request.networkError');
    toastError(message, opts.silent);
    throw new ApiError(0, message, 0);
  }
  const json = await readJson(res).finally(doneProgress);

  if (!res.ok) {
    const errBody: ErrorLike = isObject(json) ? json : {};
    const code = typeof errBody.code === 'number' ? errBody.code : 0;
    if (res.status === 403) {
      const message = translate('request.loginExpired');
      authExpired(message);
      throw new ApiError(code, message, 403, errBody.details);
    }
    if (res.status === 404) {
      const message = translate('request.notFound');
      toastError(message, opts.silent);
      throw new ApiError(code, message, 404, errBody.details);
    }
    const info = await codeInfo(code);
    const message = info.text ?? serverMessage(errBody) ?? translate('request.error');
    if (!info.silent) toastError(message, opts.silent);
    throw new ApiError(code, message, res.status, errBody.details);
  }

  if (!isObject(json) || !('status' in json) || json.status !== true) {
    const errBody: ErrorLike = isObject(json) ? json : {};
    const code = typeof errBody.code === 'number' ? errBody.code : 0;
    // Seed section 8: the code table of the active locale, else the server's message, else 'Error'.
    const info = await codeInfo(code);
    const message = info.text ?? serverMessage(errBody) ?? translate('request.unknownError');
    if (!info.silent) toastError(message, opts.silent);
    throw new ApiError(code, message, res.status, errBody.details);
  }
  return json as T;
}

interface Envelope<T> {
  status: true;
  data: T;
  total?: number;
  total_exact?: boolean;
}

export const http = {
  get: async <T>(url: string, opts?: RequestOptions) =>
    (await request<Envelope<T>>('GET', url, undefined, opts)).data,
  post: async <T>(url: string, body?: unknown, opts?: RequestOptions) =>
    (await request<Envelope<T>>('POST', url, body, opts)).data,
  put: async <T>(url: string, body?: unknown, opts?: RequestOptions) =>
    (await request<Envelope<T>>('PUT', url, body, opts)).data,
  patch: async <T>(url: string, body?: unknown, opts?: RequestOptions) =>
    (await request<Envelope<T>>('PATCH', url, body, opts)).data,
  delete: async <T>(url: string, opts?: RequestOptions) =>
    (await request<Envelope<T>>('DELETE', url, undefined, opts)).data,
  /** A paged list: `current` / `per_page` go in `params`; answers `{ data, total }`. */
  list: async <T, X extends object = object>(
    url: string,
    params?: QueryParams,
    opts?: Omit<RequestOptions, 'params'>,
  ): Promise<ListResult<T, X>> => {
    const res = await request<Envelope<T[]> & Partial<X>>('GET', url, undefined, { ...opts, params });
    const { status: _status, data, total, total_exact: totalExact, ...extra } = res;
    return { data, total: total ?? data.length, totalExact, extra: extra as Partial<X> };
  },
};
