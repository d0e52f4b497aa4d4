import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkControlFormula,
  checkFormula,
  compileFormula,
  FormulaError,
  MAX_FORMULA_LENGTH,
} from './formula';

const run = (src: string, x: number) => compileFormula(src).evaluate(x);

describe('formula language', () => {
  it('evaluates arithmetic, bit operators, conditionals and math functions', () => {
    expect(run('x*0.1+2', 100)).toBeCloseTo(12);
    expect(run('x / 10 - 40', 650)).toBe(25);
    expect(run('x % 7', 30)).toBe(2);
    expect(run('2 ** 3 ** 2', 0)).toBe(512);
    expect(run('x & 0x0F', 0xab)).toBe(0x0b);
    expect(run('(x >> 8) | 0b1', 0x1200)).toBe(0x13);
    expect(run('x ^ 0xFF', 0x0f)).toBe(0xf0);
    expect(run('~x', 0)).toBe(-1);
    expect(run('x << 2', 3)).toBe(12);
    expect(run('x >>> 28', -1)).toBe(15);
    expect(run('-x + +2', 5)).toBe(-3);
    expect(run('x > 100 ? 100 : x < 0 ? 0 : x', 150)).toBe(100);
    expect(run('x > 100 ? 100 : x < 0 ? 0 : x', -3)).toBe(0);
    expect(run('x >= 1 && x <= 2', 1.5)).toBe(1);
    expect(run('!x || 5', 0)).toBe(1);
    expect(run('round(sqrt(x) * 100) / 100', 2)).toBe(1.41);
    expect(run('max(x, 0, min(3, 4))', -9)).toBe(3);
    expect(run('PI * 2', 0)).toBeCloseTo(Math.PI * 2);
    expect(run('1e3 + .5 + 0o17', 0)).toBe(1015.5);
    expect(run('x / 0', 1)).toBe(Infinity);
    expect(compileFormula('3').usesX).toBe(false);
    expect(compileFormula(' x*2 ').usesX).toBe(true);
  });

  it('compiles once and evaluates fast', () => {
    const f = compileFormula('(x * 0.1 + 2) * (x > 0 ? 1 : -1)');
    const t0 = Date.now();
    let s = 0;
    for (let i = 0; i < 200_000; i++) s += f.evaluate(i);
    expect(s).toBeGreaterThan(0);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('refuses what is not in the language, with a position', () => {
    const refused: [string, number, RegExp][] = [
      ["constructor.constructor('return process')()", 0, /property access/],
      ['x.__proto__', 0, /property access/],
      ['x["constructor"]', 0, /property access/],
      ['this', 0, /this/],
      ['globalThis', 0, /unknown name/],
      ['process.exit(1)', 0, /property access|unknown/],
      ['x + y', 4, /unknown name "y"/],
      ['  eval("1")', 2, /unknown function "eval"/],
      ['Math.max(1, 2)', 0, /property access|only the listed/],
      ['"abc"', 0, /only numbers/],
      ['x + true', 4, /only numbers/],
      ['null', 0, /only numbers/],
      ['[1, 2]', 0, /arrays/],
      ['x = 1', 2, /.+/],
      ['x, 1', 0, /one expression/],
      ['x ?? 1', 5, /operator \?\? is not allowed/],
      ['max()', 0, /arguments/],
      ['atan2(x)', 0, /arguments/],
      ['(x', 2, /.+/],
      ['0x', 1, /.+/],
      ['12abc', 2, /Invalid number/],
      ['', 0, /empty/],
      ['   ', 0, /empty/],
      ['x\u0000+1', 1, /U\+0000/],
      ['x + １', 4, /U\+FF11/],
      ['(() => 1)()', 4, /Unexpected/],
      ['`x`', 0, /.+/],
      ['new Function("a")', 0, /.+/],
    ];
    for (const [src, index, reason] of refused) {
      const r = checkFormula(src);
      expect(r.ok, src).toBe(false);
      if (r.ok) continue;
      expect(r.code).toBe(80004);
      expect(r.reason, src).toMatch(reason);
      expect(r.index, src).toBe(index);
    }
    const long = checkFormula('x+'.repeat(MAX_FORMULA_LENGTH) + 'x');
    expect(long).toMatchObject({ ok: false, index: MAX_FORMULA_LENGTH });
    expect(() => compileFormula('x.y')).toThrow(FormulaError);
  });

  describe('never executes host code', () => {
    const touched: string[] = [];
    afterEach(() => {
      expect(touched).toEqual([]);
    });
    it('does not reach prototypes or globals, whatever the input', () => {
      const g = globalThis as Record<string, unknown>;
      Object.defineProperty(Object.prototype, '__formulaProbe', {
        configurable: true,
        get() {
          touched.push('prototype');
          return 1;
        },
      });
      g.formulaProbe = () => touched.push('global');
      try {
        for (const src of [
          '__formulaProbe',
          'x.__formulaProbe',
          'formulaProbe()',
          'x.constructor',
          'toString()',
        ]) {
          expect(checkFormula(src).ok, src).toBe(false);
        }
        fc.assert(
          fc.property(fc.string({ maxLength: 80 }), (src) => {
            const r = checkFormula(src);
            if (r.ok) {
              const v = compileFormula(src).evaluate(3);
              expect(typeof v).toBe('number');
            }
          }),
          { numRuns: 1000 },
        );
      } finally {
        delete (Object.prototype as Record<string, unknown>).__formulaProbe;
        delete g.formulaProbe;
      }
    });
  });
});

describe('control formulas', () => {
  it('needs none without a capture formula', () => {
    expect(checkControlFormula(undefined, undefined)).toMatchObject({ ok: true });
    expect(checkControlFormula('', '  ')).toMatchObject({ ok: true });
  });

  it('derives the inverse of a linear capture formula', () => {
    const r = checkControlFormula('x*0.1+2', undefined);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.inverse!.a).toBeCloseTo(0.1);
    expect(r.inverse!.b).toBeCloseTo(2);
    expect(r.control!.evaluate(12)).toBeCloseTo(100);
    expect(checkControlFormula('(x - 4000) / 16', null)).toMatchObject({ ok: true });
  });

  it('asks for a control formula when the capture formula is not linear', () => {
    const r = checkControlFormula('x*x', undefined);
    expect(r).toMatchObject({ ok: false, code: 80004, field: 'control' });
    expect(checkControlFormula('3', undefined)).toMatchObject({ ok: false, field: 'control' });
    expect(checkControlFormula('x & 0xFF', '')).toMatchObject({ ok: false, field: 'control' });
  });

  it('verifies a given control formula undoes the capture formula', () => {
    expect(checkControlFormula('x*0.1+2', '(x-2)*10')).toMatchObject({ ok: true });
    expect(checkControlFormula('x*x', 'sqrt(x)')).toMatchObject({ ok: false, field: 'control' });
    expect(checkControlFormula('x ** 3', 'cbrt(x)')).toMatchObject({ ok: true });
    expect(checkControlFormula('x*0.1', 'x*100')).toMatchObject({ ok: false, field: 'control' });
    expect(checkControlFormula('x.y', 'x')).toMatchObject({ ok: false, field: 'capture', index: 0 });
    expect(checkControlFormula('x', 'this')).toMatchObject({ ok: false, field: 'control' });
  });
});
