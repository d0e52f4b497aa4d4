import type { JsonSchema, Operation, OperationParam } from './openapi-operations';

/**
 * Invalid (and boundary) inputs for one operation of the OpenAPI document, generated from its schemas: wrong types
 * per field, boundaries, NUL and lone surrogates, huge strings, deep nesting, prototype keys, wrong content types,
 * malformed JSON, bodies on GET, floods of and duplicated query parameters. Bodies are JSON text built here, so
 * `__proto__` keys and numbers JSON.stringify cannot write (-0, 2^53+1, 1e400) reach the server as sent.
 *
 * Every input is drawn with one seeded PRNG, so a seed and an index name an input exactly.
 */

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

/** JSON text placed as is: prototype keys, deep nesting, numbers JSON.stringify would rewrite. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A field left out. */
export const OMIT: unique symbol = Symbol('omit');

export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v === OMIT || v === undefined) continue;
      parts.push(`${JSON.stringify(k)}:${toJsonText(v)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export type Actor = 'admin' | 'user' | 'anonymous';

export interface FuzzInput {
  /** The family of the input (`body.type`, `query.flood`, `content-type` ...): the figure's and label's kind. */
  kind: string;
  /** What exactly was sent, short: `body.name=null`. */
  detail: string;
  method: Operation['method'];
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  actor: Actor;
}

// ---------------------------------------------------------------------------------------------------------------
// Valid values, the base every mutation starts from: one field wrong at a time reaches the check of that field.

const STRING_CANDIDATES = [
  'fuzz_1',
  'abcd1234',
  'Abc12345',
  '13800138000',
  '123456',
  'fuzz@example.com',
  '2024-02-10',
  '2024-02-10T12:00:00Z',
  '2024-02',
  'cn-shanghai',
  'zh-cn',
  'example.com',
  'https://example.invalid/fuzz',
  '12345678901234567890',
  '89860000000000000000',
  '+8613800138000',
  'v1.0.0',
  `1.abc.${'0'.repeat(64)}`,
  '0'.repeat(64),
  '0'.repeat(32),
  '0a1b',
  'QUJD',
  `AK${'A'.repeat(20)}`,
  '#ffffff',
  '192.168.1.1',
  'fuzz',
  'a',
  'F',
];

function typeOf(s: JsonSchema): string | undefined {
  if (s.type) return s.type;
  const first = s.anyOf?.[0] ?? s.oneOf?.[0] ?? s.allOf?.[0];
  if (first) return typeOf(first);
  if (s.enum && s.enum.length > 0) return typeof s.enum[0];
  return undefined;
}

function fits(s: JsonSchema, text: string): boolean {
  if (s.minLength !== undefined && text.length < s.minLength) return false;
  if (s.maxLength !== undefined && text.length > s.maxLength) return false;
  if (s.pattern !== undefined) {
    try {
      return new RegExp(s.pattern, 'u').test(text);
    } catch {
      return new RegExp(s.pattern).test(text);
    }
  }
  return true;
}

export function validString(s: JsonSchema): string {
  if (s.enum && s.enum.length > 0) return String(s.enum[0]);
  if (s.format === 'email') return 'fuzz@example.com';
  if (s.format === 'date-time') return '2024-02-10T12:00:00.000Z';
  if (s.format === 'date') return '2024-02-10';
  if (s.format === 'uri') return 'https://example.invalid/fuzz';
  const found = STRING_CANDIDATES.find((c) => fits(s, c));
  if (found !== undefined) return found;
  const min = s.minLength ?? 1;
  return 'f'.repeat(Math.min(Math.max(min, 1), s.maxLength ?? 64));
}

function validNumber(s: JsonSchema): number {
  const integer = typeOf(s) === 'integer';
  let min = s.minimum ?? (integer ? 1 : 0);
  if (s.exclusiveMinimum === true) min += integer ? 1 : 0.5;
  if (typeof s.exclusiveMinimum === 'number') min = s.exclusiveMinimum + (integer ? 1 : 0.5);
  const max = s.maximum ?? Number.MAX_SAFE_INTEGER;
  return Math.min(Math.max(min, 1), max);
}

export function validValue(s: JsonSchema, depth = 0): unknown {
  if (s.const !== undefined) return s.const;
  if (s.enum && s.enum.length > 0) return s.enum[0];
  const alt = s.anyOf ?? s.oneOf;
  if (alt && alt.length > 0) return validValue(alt[0]!, depth);
  if (s.allOf && s.allOf.length > 0) return validValue(s.allOf[0]!, depth);
  switch (s.type) {
    case 'string':
      return validString(s);
    case 'integer':
    case 'number':
      return validNumber(s);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const n = s.minItems ?? 0;
      return depth > 6 || !s.items ? [] : Array.from({ length: n }, () => validValue(s.items!, depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties ?? {})) {
        // Required fields always; optional ones too (so their checks run), except past a few levels.
        if (s.required?.includes(k) || depth < 2) out[k] = validValue(v, depth + 1);
      }
      return out;
    }
    default:
      return s.default ?? 'fuzz';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Hostile values.

const TWO53_PLUS_1 = new RawJson('9007199254740993');
export const DEEP = 10_000;
// Built once: every field of every route gets the same ones.
const DEEP_ARRAY = new RawJson(`${'['.repeat(DEEP)}${']'.repeat(DEEP)}`);
const DEEP_OBJECT = new RawJson(`${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`);
const deepArray = () => DEEP_ARRAY;
const deepObject = () => DEEP_OBJECT;
const ITEMS_100K = new RawJson(`[${Array(100_000).fill('1').join(',')}]`);
const KEYS_10K = new RawJson(`{${Array.from({ length: 10_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`);
const LONG_64K = 'x'.repeat(65_536);
const PROTO_VALUES = [
  new RawJson('{"__proto__":{"polluted":"fuzz","isAdmin":true,"role":"admin"}}'),
  new RawJson('{"constructor":{"prototype":{"polluted":"fuzz"}}}'),
  new RawJson('{"prototype":{"polluted":"fuzz"},"__proto__":null}'),
  new RawJson('{"__proto__":[1,2,3]}'),
  new RawJson('{"toString":"fuzz","valueOf":1,"hasOwnProperty":null}'),
];
/** Strings that are text (the guard lets them through) and strings that are not. */
const HOSTILE_STRINGS: [string, string][] = [
  ['empty', ''],
  ['space', ' '],
  ['NUL', 'a\u0000b'],
  ['lone-surrogate', 'a\ud800b'],
  ['lone-low-surrogate', '\udc00'],
  ['emoji', '🚰泵'],
  ['line-separator', 'a\u2028b\u2029'],
  ['rtl', '\u202eabc'],
  ['control', '\u0001\u001f\u007f'],
  ['sql', "' OR '1'='1'; --"],
  ['like', '%_\\'],
  ['path', '../../../etc/passwd'],
  ['html', '<script>alert(1)</script>'],
  ['numeric-text', '1e308'],
  ['nan-text', 'NaN'],
  ['date-garbage', '2024-13-45T99:99:99Z'],
  ['date-far', '+275760-09-13T00:00:00.001Z'],
  ['zero-date', '0000-00-00'],
  ['newline', 'fuzz\n'],
  ['long-64k', LONG_64K],
  ['unicode-long', '泵'.repeat(5_000)],
];

interface Mutation {
  kind: string;
  name: string;
  value: unknown;
}

function numberMutations(s: JsonSchema): Mutation[] {
  const m: Mutation[] = [];
  const b = (name: string, value: unknown) => m.push({ kind: 'boundary', name, value });
  if (s.minimum !== undefined) {
    b('min-1', s.minimum - 1);
    b('min', s.minimum);
  }
  if (s.maximum !== undefined) {
    b('max+1', s.maximum + 1);
    b('max', s.maximum);
  }
  b('-0', new RawJson('-0'));
  b('1e308', 1e308);
  b('-1e308', -1e308);
  b('1e400', new RawJson('1e400'));
  b('2^53+1', TWO53_PLUS_1);
  b('-2^53-1', new RawJson('-9007199254740993'));
  b('2^31', 2 ** 31);
  b('-1', -1);
  b('0', 0);
  b('0.5', 0.5);
  b('1e-7', 1e-7);
  b('1.0', new RawJson('1.0'));
  b('"1"', '1');
  b('"NaN"', 'NaN');
  b('"Infinity"', 'Infinity');
  b('"0x10"', '0x10');
  return m;
}

function stringMutations(s: JsonSchema): Mutation[] {
  const m: Mutation[] = [];
  const b = (name: string, value: unknown) => m.push({ kind: 'boundary', name, value });
  if (s.maxLength !== undefined) {
    b('maxLength+1', 'x'.repeat(s.maxLength + 1));
    b('maxLength', validPadded(s, s.maxLength));
  }
  if (s.minLength !== undefined && s.minLength > 0) b('minLength-1', 'x'.repeat(s.minLength - 1));
  if (s.pattern !== undefined) b('pattern-miss', 'not / a $ match');
  if (s.enum) {
    b('enum-miss', 'NOT_IN_ENUM');
    b('enum-upper', String(s.enum[0]).toUpperCase() + 'X');
  }
  for (const [name, value] of HOSTILE_STRINGS) {
    m.push({ kind: name === 'NUL' || name.includes('surrogate') ? 'text' : 'string', name, value });
  }
  return m;
}

/** The valid string padded to `length`, if padding keeps it valid; else plain x's. */
function validPadded(s: JsonSchema, length: number): string {
  const base = validString(s);
  const padded = base + 'x'.repeat(Math.max(0, length - base.length));
  return fits(s, padded) ? padded : 'x'.repeat(length);
}

function typeMutations(s: JsonSchema): Mutation[] {
  const t = typeOf(s);
  const m: Mutation[] = [
    { kind: 'type', name: 'null', value: null },
    { kind: 'type', name: 'missing', value: OMIT },
    { kind: 'type', name: 'object', value: { fuzz: 1 } },
    { kind: 'type', name: 'array', value: [1, 'a', null] },
  ];
  if (t !== 'boolean') m.push({ kind: 'type', name: 'boolean', value: false });
  if (t !== 'string') m.push({ kind: 'type', name: 'string', value: 'fuzz' });
  if (t !== 'number' && t !== 'integer') m.push({ kind: 'type', name: 'number', value: 42 });
  return m;
}

function structureMutations(s: JsonSchema): Mutation[] {
  const m: Mutation[] = [
    { kind: 'nesting', name: 'deep-array', value: deepArray() },
    { kind: 'nesting', name: 'deep-object', value: deepObject() },
    ...PROTO_VALUES.map((value, i) => ({ kind: 'proto', name: `proto-${i}`, value })),
  ];
  const t = typeOf(s);
  if (t === 'array') {
    const item = s.items ? validValue(s.items, 1) : 1;
    m.push({ kind: 'boundary', name: 'empty-array', value: [] });
    if (s.maxItems !== undefined) {
      m.push({
        kind: 'boundary',
        name: 'maxItems+1',
        value: Array.from({ length: s.maxItems + 1 }, () => item),
      });
      m.push({ kind: 'boundary', name: 'maxItems', value: Array.from({ length: s.maxItems }, () => item) });
    }
    m.push({ kind: 'huge', name: '100k-items', value: ITEMS_100K });
    m.push({ kind: 'type', name: 'items-null', value: [null, null] });
    m.push({ kind: 'proto', name: 'items-proto', value: [PROTO_VALUES[0]] });
  }
  if (t === 'object') {
    m.push({ kind: 'boundary', name: 'empty-object', value: {} });
    m.push({ kind: 'huge', name: '10k-keys', value: KEYS_10K });
  }
  return m;
}

function mutationsOf(s: JsonSchema): Mutation[] {
  const t = typeOf(s);
  return [
    ...typeMutations(s),
    ...(t === 'integer' || t === 'number' ? numberMutations(s) : []),
    ...(t === 'string' || t === undefined ? stringMutations(s) : []),
    ...structureMutations(s),
  ];
}

/** Field paths of a body schema (objects and first array items), a few levels deep. */
function fieldsOf(
  s: JsonSchema,
  prefix: (string | number)[] = [],
  depth = 0,
): { path: (string | number)[]; schema: JsonSchema }[] {
  const out: { path: (string | number)[]; schema: JsonSchema }[] = [];
  const alt = s.anyOf ?? s.oneOf;
  if (alt && alt.length > 0 && !s.type) return fieldsOf(alt[0]!, prefix, depth);
  if (depth > 3) return out;
  if (s.type === 'object') {
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      out.push({ path: [...prefix, k], schema: v });
      out.push(...fieldsOf(v, [...prefix, k], depth + 1));
    }
  } else if (s.type === 'array' && s.items) {
    out.push({ path: [...prefix, 0], schema: s.items });
    out.push(...fieldsOf(s.items, [...prefix, 0], depth + 1));
  }
  return out;
}

function clone<T>(v: T): T {
  if (v instanceof RawJson || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(clone) as T;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)])) as T;
}

/** `base` with the value at `path` replaced (parents created as needed). */
function setAt(base: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const container: Record<string | number, unknown> | unknown[] =
    base !== null && typeof base === 'object' && !(base instanceof RawJson)
      ? (clone(base) as Record<string, unknown>)
      : typeof head === 'number'
        ? []
        : {};
  const child = (container as Record<string | number, unknown>)[head!];
  (container as Record<string | number, unknown>)[head!] = setAt(child, rest, value);
  return container;
}

// ---------------------------------------------------------------------------------------------------------------
// Query strings and path segments, as sent on the wire (already percent-encoded where meant).

const enc = encodeURIComponent;

function paramValue(p: OperationParam): string {
  const v = validValue(p.schema);
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function textMutations(s: JsonSchema): { kind: string; name: string; encoded: string }[] {
  const out: { kind: string; name: string; encoded: string }[] = [];
  const b = (kind: string, name: string, raw: string) => out.push({ kind, name, encoded: enc(raw) });
  const t = typeOf(s);
  if (t === 'integer' || t === 'number') {
    if (s.minimum !== undefined) b('boundary', 'min-1', String(s.minimum - 1));
    if (s.maximum !== undefined) b('boundary', 'max+1', String(s.maximum + 1));
    if (s.maximum !== undefined) b('boundary', 'max', String(s.maximum));
    for (const [n, v] of [
      ['-1', '-1'],
      ['0', '0'],
      ['-0', '-0'],
      ['1.5', '1.5'],
      ['1e3', '1e3'],
      ['1e308', '1e308'],
      ['1e400', '1e400'],
      ['2^53+1', '9007199254740993'],
      ['NaN', 'NaN'],
      ['Infinity', 'Infinity'],
      ['0x10', '0x10'],
      ['fullwidth', '１２'],
      ['digits-400', '9'.repeat(400)],
      ['plus', '+1'],
      ['space', ' 1 '],
    ] as const) {
      b('boundary', n, v);
    }
  }
  if (s.maxLength !== undefined) b('boundary', 'maxLength+1', 'x'.repeat(s.maxLength + 1));
  if (s.enum) b('boundary', 'enum-miss', 'NOT_IN_ENUM');
  if (s.pattern) b('boundary', 'pattern-miss', 'not / a $ match');
  b('type', 'true', 'true');
  b('type', 'null', 'null');
  b('type', 'object-text', '{"a":1}');
  b('type', 'array-text', '[1,2]');
  b('string', 'empty', '');
  b('string', 'emoji', '🚰泵');
  b('string', 'sql', "' OR 1=1 --");
  b('string', 'like', '%_\\');
  b('string', 'path', '../../etc/passwd');
  b('string', 'date-garbage', '2024-13-45T99:99:99Z');
  b('huge', 'long-16k', 'x'.repeat(16_384));
  out.push({ kind: 'text', name: 'NUL', encoded: 'a%00b' });
  out.push({ kind: 'text', name: 'surrogate-utf8', encoded: 'a%ED%A0%80b' });
  out.push({ kind: 'text', name: 'bad-escape', encoded: '%zz%' });
  out.push({ kind: 'text', name: 'invalid-utf8', encoded: '%FF%FE' });
  out.push({ kind: 'text', name: 'lone-surrogate', encoded: enc('a') + '%ED%B0%80' });
  return out;
}

const PATH_MUTATIONS: { kind: string; name: string; encoded: string }[] = [
  { kind: 'path', name: 'empty', encoded: '' },
  { kind: 'path', name: 'dot-dot', encoded: '..' },
  { kind: 'path', name: 'encoded-dot-dot', encoded: '%2e%2e' },
  { kind: 'path', name: 'encoded-slash', encoded: 'a%2Fb' },
  { kind: 'path', name: 'space', encoded: '%20' },
  { kind: 'path', name: 'over-100', encoded: 'x'.repeat(101) },
  { kind: 'path', name: 'long-5000', encoded: 'x'.repeat(5000) },
  { kind: 'path', name: 'percent', encoded: '%' },
  { kind: 'path', name: 'bad-escape', encoded: '%zz' },
  { kind: 'path', name: 'quote', encoded: "'" },
  { kind: 'path', name: 'star', encoded: '*' },
  { kind: 'path', name: 'proto', encoded: '__proto__' },
  { kind: 'path', name: 'constructor', encoded: 'constructor' },
];

// ---------------------------------------------------------------------------------------------------------------
// Inputs.

const JSON_TYPE = 'application/json';
const BOUNDARY = 'fuzzboundary7MA4YWxkTrZu0gW';

function multipartBody(
  parts: { name: string; filename?: string; type?: string; content: string }[],
  close = true,
): string {
  const lines: string[] = [];
  for (const p of parts) {
    lines.push(`--${BOUNDARY}`);
    lines.push(
      `Content-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`,
    );
    if (p.type) lines.push(`Content-Type: ${p.type}`);
    lines.push('', p.content);
  }
  if (close) lines.push(`--${BOUNDARY}--`, '');
  return lines.join('\r\n');
}
const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

export interface InputContext {
  /** Path parameter values that name something (an existing device, product...); else generated ones. */
  knownParams?: Record<string, string>;
  bodyLimit: number;
}

type Thunk = () => Omit<FuzzInput, 'actor'>;

/**
 * The inputs of one operation, made one at a time (some are a megabyte): families of thunks, drawn round-robin so even a small sample touches every family,
 * each family in a seeded random order; once a family is used up it is drawn from again at random.
 */
export function* generateInputs(
  op: Operation,
  count: number,
  prng: Prng,
  ctx: InputContext,
): Generator<FuzzInput> {
  const pathValues: Record<string, string> = {};
  for (const p of op.pathParams) pathValues[p.name] = ctx.knownParams?.[p.name] ?? enc(paramValue(p));
  const urlWith = (override: Record<string, string> = {}, query = baseQuery()) => {
    const path = op.path.replace(
      /\{(\w+)\}/g,
      (_m, name: string) => override[name] ?? pathValues[name] ?? 'fuzz',
    );
    return query ? `${path}?${query}` : path;
  };
  function baseQuery(except?: string): string {
    return op.queryParams
      .filter((p) => p.required && p.name !== except)
      .map((p) => `${enc(p.name)}=${enc(paramValue(p))}`)
      .join('&');
  }
  const takesJson = op.body !== undefined || (!op.multipart && op.method !== 'GET' && op.method !== 'DELETE');
  const base = op.body ? validValue(op.body) : undefined;
  const baseText = base === undefined ? '{}' : toJsonText(base);
  const json =
    (payload: string, kind: string, detail: string, headers: Record<string, string> = {}): Thunk =>
    () => ({
      kind,
      detail,
      method: op.method,
      url: urlWith(),
      headers: { 'content-type': JSON_TYPE, ...headers },
      payload,
    });
  const plain =
    (kind: string, detail: string, url: string, extra: Partial<FuzzInput> = {}): Thunk =>
    () => ({
      kind,
      detail,
      method: op.method,
      url,
      headers: takesJson ? { 'content-type': JSON_TYPE } : {},
      payload: takesJson ? baseText : undefined,
      ...extra,
    });

  const families = new Map<string, Thunk[]>();
  const add = (family: string, thunk: Thunk) => {
    const list = families.get(family) ?? [];
    list.push(thunk);
    families.set(family, list);
  };

  // Body fields: every field, every mutation of its type.
  if (op.body) {
    for (const field of fieldsOf(op.body)) {
      const name = field.path.join('.');
      for (const m of mutationsOf(field.schema)) {
        add(`body.${m.kind}`, () => {
          const text = toJsonText(setAt(base, field.path, m.value));
          return json(text, `body.${m.kind}`, `body.${name}=${m.name}`)();
        });
      }
    }
    // The whole body.
    for (const m of mutationsOf(op.body)) {
      if (m.value === OMIT) continue;
      add(`body.${m.kind}`, () => json(toJsonText(m.value), `body.${m.kind}`, `body=${m.name}`)());
    }
    const rest = baseText.slice(1);
    const sep = rest === '}' ? '' : ',';
    for (const [name, text] of [
      ['__proto__', `{"__proto__":{"polluted":"fuzz","isAdmin":true}${sep}${rest}`],
      ['constructor', `{"constructor":{"prototype":{"polluted":"fuzz"}}${sep}${rest}`],
      ['prototype', `{"prototype":{"polluted":"fuzz"}${sep}${rest}`],
      ['__proto__-last', `${baseText.slice(0, -1)}${sep}"__proto__":{"role":"admin","uid":1}}`],
      ['duplicate-keys', `${baseText.slice(0, -1)}${sep}${baseText.slice(1)}`],
    ] as const) {
      add('body.proto', json(text, 'body.proto', `body=${name}+valid`));
    }
    add('body.huge', () => {
      // One string field just under the body limit: reaches validation, not the 413.
      const field = fieldsOf(op.body!).find((f) => typeOf(f.schema) === 'string');
      const big = 'x'.repeat(ctx.bodyLimit - baseText.length - 1024);
      return json(
        toJsonText(setAt(base, field?.path ?? ['fuzz_big'], big)),
        'body.huge',
        `body.${field?.path.join('.') ?? 'fuzz_big'}=~1MB`,
      )();
    });
  }

  if (takesJson) {
    for (const [name, text] of [
      ['truncated', baseText.slice(0, -1)],
      ['open-brace', '{'],
      ['missing-value', '{"a":}'],
      ['single-quotes', "{'a':1}"],
      ['trailing-comma', '{"a":1,}'],
      ['bom', `\ufeff${baseText}`],
      ['NaN-literal', '{"a":NaN}'],
      ['comment', `/*c*/${baseText}`],
      ['garbage-after', `${baseText}garbage`],
      ['bad-escape', '{"a":"\\u12"}'],
      ['lone-surrogate-escape', '"\\ud800"'],
      ['control-in-string', '{"a":"\u0001"}'],
      ['only-whitespace', ' \n\t '],
      ['null-byte', '\u0000'],
    ] as const) {
      add('malformed', json(text, 'malformed', `json=${name}`));
    }
    for (const [name, text] of [
      ['array', '[]'],
      ['array-of-base', `[${baseText}]`],
      ['string', '"fuzz"'],
      ['number', '1'],
      ['null', 'null'],
      ['true', 'true'],
      ['empty', ''],
      ['deep-array', deepArray().text],
      ['deep-object', deepObject().text],
      ['proto-only', '{"__proto__":{"polluted":"fuzz"}}'],
      ['constructor-only', '{"constructor":{"prototype":{"polluted":"fuzz"}}}'],
    ] as const) {
      add('body.shape', json(text, 'body.shape', `body=${name}`));
    }
    add('body.huge', () =>
      json(`{"a":"${'x'.repeat(ctx.bodyLimit + 1024)}"}`, 'body.huge', 'body over the limit')(),
    );
    for (const [name, type, text] of [
      ['text/plain', 'text/plain', baseText],
      ['urlencoded', 'application/x-www-form-urlencoded', 'a=1&b=%00&__proto__[polluted]=fuzz'],
      ['multipart', MULTIPART_TYPE, multipartBody([{ name: 'a', content: baseText }])],
      ['multipart-no-boundary', 'multipart/form-data', baseText],
      ['charset-latin1', 'application/json; charset=latin1', baseText],
      ['charset-utf16', 'application/json; charset=utf-16', baseText],
      ['charset-garbage', 'application/json; charset=fuzz-8', baseText],
      ['json-suffix', 'application/merge-patch+json', baseText],
      ['jsonx', 'application/jsonx', baseText],
      ['xml', 'application/xml', '<a>1</a>'],
      ['octet-stream', 'application/octet-stream', baseText],
      ['upper-case', 'APPLICATION/JSON; CHARSET=UTF-8', baseText],
      ['params-garbage', 'application/json; ;;; =', baseText],
    ] as const) {
      add('content-type', () => ({
        kind: 'content-type',
        detail: `content-type=${name}`,
        method: op.method,
        url: urlWith(),
        headers: { 'content-type': type },
        payload: text,
      }));
    }
    add('content-type', () => ({
      kind: 'content-type',
      detail: 'no content-type with a body',
      method: op.method,
      url: urlWith(),
      headers: {},
      payload: baseText,
    }));
  } else if (!op.multipart) {
    // GET and DELETE: bodies nobody reads must not matter.
    for (const [name, type, text] of [
      ['json', JSON_TYPE, '{"__proto__":{"polluted":"fuzz"}}'],
      ['malformed-json', JSON_TYPE, '{'],
      ['deep-json', JSON_TYPE, deepArray().text],
      ['text', 'text/plain', 'fuzz'],
      ['multipart', MULTIPART_TYPE, multipartBody([{ name: 'a', content: 'b' }])],
      ['no-type', '', 'fuzz'],
      ['huge', JSON_TYPE, `"${'x'.repeat(ctx.bodyLimit + 1024)}"`],
    ] as const) {
      add('body-on-get', () => ({
        kind: 'body-on-get',
        detail: `${op.method} with body ${name}`,
        method: op.method,
        url: urlWith(),
        headers: type ? { 'content-type': type } : ({} as Record<string, string>),
        payload: text,
      }));
    }
  }

  if (op.multipart) {
    const file = (content: string, filename = 'fuzz.csv', type = 'text/csv') =>
      multipartBody([{ name: 'file', filename, type, content }]);
    for (const [name, type, text] of [
      ['json', JSON_TYPE, '{"file":"fuzz"}'],
      ['json-proto', JSON_TYPE, '{"__proto__":{"polluted":"fuzz"}}'],
      ['text', 'text/plain', 'fuzz'],
      ['no-boundary', 'multipart/form-data', file('a')],
      ['wrong-boundary', 'multipart/form-data; boundary=other', file('a')],
      [
        'truncated',
        MULTIPART_TYPE,
        multipartBody([{ name: 'file', filename: 'a.csv', content: 'a,b' }], false),
      ],
      ['empty', MULTIPART_TYPE, ''],
      ['only-close', MULTIPART_TYPE, `--${BOUNDARY}--\r\n`],
      ['no-file', MULTIPART_TYPE, multipartBody([{ name: 'note', content: 'fuzz' }])],
      ['empty-file', MULTIPART_TYPE, file('')],
      ['nul-filename', MULTIPART_TYPE, file('a', 'a\u0000b.csv')],
      ['surrogate-filename', MULTIPART_TYPE, file('a', 'a\ud800.csv')],
      ['traversal-filename', MULTIPART_TYPE, file('a', '../../../etc/passwd')],
      ['long-filename', MULTIPART_TYPE, file('a', `${'f'.repeat(5000)}.csv`)],
      [
        'proto-field',
        MULTIPART_TYPE,
        multipartBody([
          { name: '__proto__', content: 'fuzz' },
          { name: 'constructor', content: 'x' },
        ]),
      ],
      [
        'many-parts',
        MULTIPART_TYPE,
        multipartBody(Array.from({ length: 200 }, (_, i) => ({ name: `p${i}`, content: 'x' }))),
      ],
      [
        'two-files',
        MULTIPART_TYPE,
        multipartBody([
          { name: 'file', filename: 'a.csv', content: 'a' },
          { name: 'file', filename: 'b.csv', content: 'b' },
        ]),
      ],
      [
        'binary-garbage',
        MULTIPART_TYPE,
        file('\u0000\u0001\u00ff'.repeat(100), 'a.bin', 'application/octet-stream'),
      ],
      ['wrong-type-png', MULTIPART_TYPE, file('not a png', 'a.png', 'image/png')],
      ['csv-nul-cells', MULTIPART_TYPE, file('iccid,phone\n\u0000,\ud800\n')],
      ['csv-formula', MULTIPART_TYPE, file('iccid,phone\n=cmd|calc,+1\n')],
      ['over-limit', MULTIPART_TYPE, file('x'.repeat(ctx.bodyLimit + 1024))],
    ] as const) {
      add('upload', () => ({
        kind: 'upload',
        detail: `upload=${name}`,
        method: op.method,
        url: urlWith(),
        headers: { 'content-type': type },
        payload: text,
      }));
    }
  }

  // Query parameters.
  for (const p of op.queryParams) {
    for (const m of textMutations(p.schema)) {
      add(`query.${m.kind}`, () => {
        const q = [baseQuery(p.name), `${enc(p.name)}=${m.encoded}`].filter(Boolean).join('&');
        return plain(`query.${m.kind}`, `query.${p.name}=${m.name}`, urlWith({}, q))();
      });
    }
    add('query.duplicate', () => {
      const q = [
        baseQuery(p.name),
        `${enc(p.name)}=${enc(paramValue(p))}`,
        `${enc(p.name)}=${enc(paramValue(p))}`,
      ]
        .filter(Boolean)
        .join('&');
      return plain('query.duplicate', `query.${p.name} twice`, urlWith({}, q))();
    });
    add('query.syntax', () =>
      plain(
        'query.syntax',
        `query.${p.name}[]`,
        urlWith({}, [baseQuery(p.name), `${enc(p.name)}[]=1`].filter(Boolean).join('&')),
      )(),
    );
    add('query.syntax', () =>
      plain(
        'query.syntax',
        `query.${p.name}[__proto__]`,
        urlWith(
          {},
          [baseQuery(p.name), `${enc(p.name)}[__proto__][polluted]=fuzz`].filter(Boolean).join('&'),
        ),
      )(),
    );
  }
  for (const [name, q] of [
    ['1000-params', Array.from({ length: 1000 }, (_, i) => `p${i}=${i}`).join('&')],
    ['1000-duplicates', Array(1000).fill('dup=1').join('&')],
    ['proto', '__proto__=fuzz&constructor=fuzz&prototype=fuzz&__proto__[polluted]=fuzz'],
    ['proto-nested', 'a[__proto__][polluted]=fuzz&constructor[prototype][polluted]=fuzz'],
    ['empty-pairs', '&&&=&=x&y='],
    ['bare-question', ''],
    ['percent', '%'],
    ['plus-space', 'keyword=a+b&current=+1'],
    ['nul-name', 'a%00b=1'],
    ['long-name', `${'n'.repeat(10_000)}=1`],
  ] as const) {
    const query = [baseQuery(), q].filter(Boolean).join('&');
    add('query.flood', plain('query.flood', `query=${name}`, `${urlWith({}, '')}?${query}`));
  }

  // Path parameters.
  for (const p of op.pathParams) {
    for (const m of [...textMutations(p.schema), ...PATH_MUTATIONS]) {
      add(
        `path.${m.kind}`,
        plain(`path.${m.kind}`, `path.${p.name}=${m.name}`, urlWith({ [p.name]: m.encoded })),
      );
    }
  }

  // Headers the server reads.
  for (const [name, headers] of [
    ['authorization-garbage', { authorization: 'Bearer ' + 'x'.repeat(4096) }],
    ['authorization-basic', { authorization: 'Basic Zm9vOmJhcg==' }],
    ['authorization-empty', { authorization: '' }],
    ['range', { range: 'bytes=99999999999999999999-1' }],
    ['range-multi', { range: 'bytes=0-1,2-3,4-5,6-7' }],
    ['if-range', { 'if-range': 'Wed, 99 Foo 9999 99:99:99 GMT' }],
    ['idempotency-long', { 'idempotency-key': 'k'.repeat(8000) }],
    ['forwarded-garbage', { 'x-forwarded-for': '999.999.999.999, ::::, <script>' }],
    ['accept-encoding', { 'accept-encoding': 'br;q=2, gzip;q=-1, *;q=NaN, identity;q=0' }],
    ['x-n-partial', { 'x-n-accesskey': `AK${'A'.repeat(20)}`, 'x-n-ts': '1e400' }],
    ['content-length-garbage', { 'x-http-method-override': 'DELETE' }],
  ] as const) {
    add('headers', () => {
      const base = plain('headers', `headers=${name}`, urlWith())();
      // An authorization header here replaces the actor's token (the test applies it only when absent).
      return { ...base, headers: { ...base.headers, ...headers } };
    });
  }

  // Several fields wrong at once, drawn at random: an endless family.
  const combo: Thunk = () => {
    const singles = [...families.entries()].filter(
      ([k]) => k.startsWith('body.') || k.startsWith('query.') || k.startsWith('path.'),
    );
    const picks = Array.from({ length: 2 + prng.int(3) }, () =>
      prng.pick(singles.length > 0 ? singles : [...families.entries()]),
    );
    const parts = picks.map(([, list]) => prng.pick(list)());
    // Merge: the URL of a path or query mutation, the body of a body mutation.
    const withBody = parts.find((p) => p.kind.startsWith('body.'));
    const withUrl = parts.filter((p) => !p.kind.startsWith('body.'));
    const first = withUrl[0] ?? parts[0]!;
    return {
      kind: 'combo',
      detail: parts.map((p) => p.detail).join(' + '),
      method: op.method,
      url: first.url,
      headers: withBody?.headers ?? first.headers,
      payload: withBody?.payload ?? first.payload,
    };
  };

  const names = prng.shuffle([...families.keys()]);
  const queues = new Map(names.map((n) => [n, prng.shuffle([...families.get(n)!])]));
  names.push('combo');
  for (let i = 0; i < count; i++) {
    const family = names[i % names.length]!;
    let thunk: Thunk;
    if (family === 'combo') thunk = combo;
    else {
      const queue = queues.get(family)!;
      thunk = queue.shift() ?? prng.pick(families.get(family)!);
    }
    const roll = prng.next();
    const actor: Actor = roll < 0.85 ? 'admin' : roll < 0.95 ? 'user' : 'anonymous';
    yield { ...thunk(), actor };
  }
}
