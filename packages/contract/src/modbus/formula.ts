// Capture and control formulas (`x*0.1+2`): parsed by jsep into a tree, then compiled into closures by our own
// evaluator. Only numbers, the variable `x`, a few named constants, arithmetic, comparison, bit and logical
// operators, the conditional operator and a whitelist of Math functions exist; everything else is refused with
// its position before anything runs. Nothing reaches `eval`, `Function` or any property of a host object.
import jsep from 'jsep';

export const MAX_FORMULA_LENGTH = 256;

type Fn = (x: number) => number;

/** Named constants a formula may use. */
const CONSTANTS = new Map<string, number>([
  ['PI', Math.PI],
  ['E', Math.E],
  ['LN2', Math.LN2],
  ['LN10', Math.LN10],
  ['SQRT2', Math.SQRT2],
]);

/** The functions a formula may call, with their arity [min, max]. A Map: no prototype to reach. */
const FUNCTIONS = new Map<string, { fn: (...a: number[]) => number; min: number; max: number }>([
  ['abs', { fn: Math.abs, min: 1, max: 1 }],
  ['ceil', { fn: Math.ceil, min: 1, max: 1 }],
  ['floor', { fn: Math.floor, min: 1, max: 1 }],
  ['round', { fn: Math.round, min: 1, max: 1 }],
  ['trunc', { fn: Math.trunc, min: 1, max: 1 }],
  ['sign', { fn: Math.sign, min: 1, max: 1 }],
  ['sqrt', { fn: Math.sqrt, min: 1, max: 1 }],
  ['cbrt', { fn: Math.cbrt, min: 1, max: 1 }],
  ['exp', { fn: Math.exp, min: 1, max: 1 }],
  ['log', { fn: Math.log, min: 1, max: 1 }],
  ['log2', { fn: Math.log2, min: 1, max: 1 }],
  ['log10', { fn: Math.log10, min: 1, max: 1 }],
  ['sin', { fn: Math.sin, min: 1, max: 1 }],
  ['cos', { fn: Math.cos, min: 1, max: 1 }],
  ['tan', { fn: Math.tan, min: 1, max: 1 }],
  ['asin', { fn: Math.asin, min: 1, max: 1 }],
  ['acos', { fn: Math.acos, min: 1, max: 1 }],
  ['atan', { fn: Math.atan, min: 1, max: 1 }],
  ['atan2', { fn: Math.atan2, min: 2, max: 2 }],
  ['pow', { fn: Math.pow, min: 2, max: 2 }],
  ['hypot', { fn: Math.hypot, min: 1, max: 8 }],
  ['min', { fn: Math.min, min: 1, max: 8 }],
  ['max', { fn: Math.max, min: 1, max: 8 }],
]);

export const FORMULA_FUNCTIONS: readonly string[] = [...FUNCTIONS.keys()];
export const FORMULA_CONSTANTS: readonly string[] = [...CONSTANTS.keys()];

const BINARY = new Map<string, (a: number, b: number) => number>([
  ['+', (a, b) => a + b],
  ['-', (a, b) => a - b],
  ['*', (a, b) => a * b],
  ['/', (a, b) => a / b],
  ['%', (a, b) => a % b],
  ['**', (a, b) => a ** b],
  ['&', (a, b) => a & b],
  ['|', (a, b) => a | b],
  ['^', (a, b) => a ^ b],
  ['<<', (a, b) => a << b],
  ['>>', (a, b) => a >> b],
  ['>>>', (a, b) => a >>> b],
  ['==', (a, b) => +(a === b)],
  ['!=', (a, b) => +(a !== b)],
  ['===', (a, b) => +(a === b)],
  ['!==', (a, b) => +(a !== b)],
  ['<', (a, b) => +(a < b)],
  ['>', (a, b) => +(a > b)],
  ['<=', (a, b) => +(a <= b)],
  ['>=', (a, b) => +(a >= b)],
]);

const UNARY = new Map<string, (a: number) => number>([
  ['-', (a) => -a],
  ['+', (a) => +a],
  ['~', (a) => ~a],
  ['!', (a) => +!a],
]);

// Where each token starts, recorded by jsep hooks while parsing (parsing is synchronous, so one table will do).
let positions = new WeakMap<object, number>();
let starts: number[] = [];
const NUMBER = /^(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/;

jsep.hooks.add('gobble-token', function (env) {
  starts.push(this.index);
  // Numbers are read here (decimal, and hexadecimal 0x0F, binary 0b101, octal 0o17) so every token passes
  // through 'after-token' and gets its position.
  const m = NUMBER.exec(this.expr.slice(this.index, this.index + 64));
  if (!m) return;
  const raw = m[0];
  this.index += raw.length;
  const next = this.expr.charCodeAt(this.index);
  if ((next >= 65 && next <= 90) || (next >= 97 && next <= 122) || next === 95 || next === 36 || next === 46)
    this.throwError(`Invalid number ${raw}${this.expr[this.index]}`);
  const value = /^0[xXbBoO]/.test(raw) ? Number(raw) : parseFloat(raw);
  env.node = { type: 'Literal', value, raw } as jsep.Literal;
});
jsep.hooks.add('after-token', function (env) {
  const start = starts.pop();
  if (env.node && start !== undefined && !positions.has(env.node)) positions.set(env.node, start);
});

export type FormulaCheck = { ok: true } | { ok: false; reason: string; index: number; code: 80004 };

export interface CompiledFormula {
  readonly source: string;
  /** Evaluates for `x`; the result may be NaN or ±Infinity (division by zero): callers check it. */
  evaluate: Fn;
  /** Whether the formula reads `x` at all. */
  readonly usesX: boolean;
}

class Refusal extends Error {
  constructor(
    readonly reason: string,
    readonly index: number,
  ) {
    super(reason);
  }
}

function parse(src: string): jsep.Expression {
  if (typeof src !== 'string') throw new Refusal('the formula must be text', 0);
  if (src.length > MAX_FORMULA_LENGTH)
    throw new Refusal(`the formula is longer than ${MAX_FORMULA_LENGTH} characters`, MAX_FORMULA_LENGTH);
  // Printable ASCII only: no NUL, no control characters, no look-alike Unicode.
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c > 0x7e)
      throw new Refusal(`character U+${c.toString(16).padStart(4, '0').toUpperCase()} is not allowed`, i);
  }
  if (src.trim() === '') throw new Refusal('the formula is empty', 0);
  positions = new WeakMap();
  starts = [];
  try {
    return jsep(src);
  } catch (err) {
    const e = err as { description?: string; index?: number; message?: string };
    throw new Refusal(
      e.description ?? e.message ?? 'syntax error',
      typeof e.index === 'number' ? e.index : 0,
    );
  } finally {
    starts = [];
  }
}

function compileNode(node: jsep.Expression, at: number, uses: { x: boolean }): Fn {
  const pos = positions.get(node) ?? at;
  switch (node.type) {
    case 'Literal': {
      const v = (node as jsep.Literal).value;
      if (typeof v !== 'number' || !Number.isFinite(v))
        throw new Refusal(
          `only numbers are allowed, not ${JSON.stringify(String((node as jsep.Literal).raw))}`,
          pos,
        );
      return () => v;
    }
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      if (name === 'x') {
        uses.x = true;
        return (x) => x;
      }
      const c = CONSTANTS.get(name);
      if (c !== undefined) return () => c;
      throw new Refusal(`unknown name "${name}" (use x, ${FORMULA_CONSTANTS.join(', ')})`, pos);
    }
    case 'UnaryExpression': {
      const u = node as jsep.UnaryExpression;
      const op = UNARY.get(u.operator);
      if (!op) throw new Refusal(`operator ${u.operator} is not allowed`, pos);
      const a = compileNode(u.argument, pos, uses);
      return (x) => op(a(x));
    }
    case 'BinaryExpression': {
      const b = node as jsep.BinaryExpression;
      const left = compileNode(b.left, pos, uses);
      const right = compileNode(b.right, positions.get(b.right) ?? pos, uses);
      if (b.operator === '&&') return (x) => (left(x) ? right(x) : 0);
      if (b.operator === '||') return (x) => left(x) || right(x);
      const op = BINARY.get(b.operator);
      if (!op) throw new Refusal(`operator ${b.operator} is not allowed`, positions.get(b.right) ?? pos);
      return (x) => op(left(x), right(x));
    }
    case 'ConditionalExpression': {
      const c = node as jsep.ConditionalExpression;
      const test = compileNode(c.test, pos, uses);
      const yes = compileNode(c.consequent, pos, uses);
      const no = compileNode(c.alternate, pos, uses);
      return (x) => (test(x) ? yes(x) : no(x));
    }
    case 'CallExpression': {
      const call = node as jsep.CallExpression;
      if (call.callee.type !== 'Identifier') {
        compileNode(call.callee, pos, uses); // names the innermost fault (property access, ...) when there is one
        throw new Refusal('only the listed math functions can be called', positions.get(call.callee) ?? pos);
      }
      const name = (call.callee as jsep.Identifier).name;
      const f = FUNCTIONS.get(name);
      if (!f) throw new Refusal(`unknown function "${name}" (allowed: ${FORMULA_FUNCTIONS.join(', ')})`, pos);
      const n = call.arguments.length;
      if (n < f.min || n > f.max)
        throw new Refusal(
          `${name} takes ${f.min === f.max ? f.min : `${f.min}-${f.max}`} arguments, not ${n}`,
          pos,
        );
      const args = call.arguments.map((a) => compileNode(a, positions.get(a) ?? pos, uses));
      const fn = f.fn;
      if (args.length === 1) {
        const a0 = args[0]!;
        return (x) => fn(a0(x));
      }
      return (x) => fn(...args.map((a) => a(x)));
    }
    case 'MemberExpression':
      throw new Refusal(
        'property access is not allowed',
        positions.get((node as jsep.MemberExpression).object) ?? pos,
      );
    case 'ThisExpression':
      throw new Refusal('"this" is not allowed', pos);
    case 'ArrayExpression':
      throw new Refusal('arrays are not allowed', pos);
    case 'Compound':
    case 'SequenceExpression':
      throw new Refusal('a formula is one expression', pos);
    default:
      throw new Refusal(`${node.type} is not allowed`, pos);
  }
}

/** Compiles a formula once; throws a FormulaError (code 80004) with the position of the first fault. */
export function compileFormula(src: string): CompiledFormula {
  try {
    const tree = parse(src);
    const uses = { x: false };
    const evaluate = compileNode(tree, 0, uses);
    return { source: src, evaluate, usesX: uses.x };
  } catch (err) {
    if (err instanceof Refusal) throw new FormulaError(err.reason, err.index);
    throw new FormulaError(err instanceof Error ? err.message : 'invalid formula', 0);
  }
}

export class FormulaError extends Error {
  readonly code = 80004;
  constructor(
    readonly reason: string,
    readonly index: number,
  ) {
    super(`${reason} (at ${index})`);
    this.name = 'FormulaError';
  }
}

export function checkFormula(src: string): FormulaCheck {
  try {
    compileFormula(src);
    return { ok: true };
  } catch (err) {
    const e = err as FormulaError;
    return { ok: false, reason: e.reason, index: e.index, code: 80004 };
  }
}

/** Samples for the numeric checks: a spread of register-like values. */
const SAMPLES = [-1000, -37.5, -1, 0, 0.5, 1, 2, 10, 123.25, 1000, 32767, 65535];

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

/** `f(x) = a*x + b` when the formula is linear over the samples (and a is not 0), else undefined. */
export function linearCoefficients(f: CompiledFormula): { a: number; b: number } | undefined {
  const b = f.evaluate(0);
  const a = f.evaluate(1) - b;
  if (!Number.isFinite(a) || !Number.isFinite(b) || a === 0) return undefined;
  return SAMPLES.every((x) => close(f.evaluate(x), a * x + b)) ? { a, b } : undefined;
}

export type ControlCheck =
  | { ok: true; control?: CompiledFormula; inverse?: { a: number; b: number } }
  | { ok: false; reason: string; index: number; code: 80004; field: 'capture' | 'control' };

/**
 * Checks the pair of a writable variable. Without a capture formula (or with `x`), none is needed. With a
 * linear capture formula and no control formula the inverse (y - b) / a is derived. A non-linear capture formula
 * needs a control formula, and a given control formula must undo the capture formula on the samples.
 */
export function checkControlFormula(capture?: string | null, control?: string | null): ControlCheck {
  const blank = (s?: string | null) => s === undefined || s === null || s.trim() === '';
  let cap: CompiledFormula | undefined;
  let ctl: CompiledFormula | undefined;
  try {
    if (!blank(capture)) cap = compileFormula(capture!);
  } catch (err) {
    const e = err as FormulaError;
    return { ok: false, reason: e.reason, index: e.index, code: 80004, field: 'capture' };
  }
  try {
    if (!blank(control)) ctl = compileFormula(control!);
  } catch (err) {
    const e = err as FormulaError;
    return { ok: false, reason: e.reason, index: e.index, code: 80004, field: 'control' };
  }
  if (!cap) return { ok: true, control: ctl };
  if (!ctl) {
    const lin = linearCoefficients(cap);
    if (lin) {
      const { a, b } = lin;
      return {
        ok: true,
        inverse: lin,
        control: { source: `(x - ${b}) / ${a}`, evaluate: (y) => (y - b) / a, usesX: true },
      };
    }
    return {
      ok: false,
      reason: 'the capture formula is not linear: a control formula is needed to write this variable',
      index: 0,
      code: 80004,
      field: 'control',
    };
  }
  const tested = SAMPLES.filter((x) => Number.isFinite(cap.evaluate(x)));
  const bad = tested.find((x) => !close(ctl.evaluate(cap.evaluate(x)), x));
  if (tested.length === 0 || bad !== undefined)
    return {
      ok: false,
      reason: `the control formula does not undo the capture formula (raw ${bad ?? 0} comes back as ${ctl.evaluate(cap.evaluate(bad ?? 0))})`,
      index: 0,
      code: 80004,
      field: 'control',
    };
  return { ok: true, control: ctl };
}
