/**
 * The one text type of the contract. PostgreSQL cannot store NUL in text or jsonb, and a lone UTF-16 surrogate has
 * no UTF-8 form, so either one reaching a statement failed it with a 500 (and the database error echoed the input
 * into the log). Every string field of the contract is `text()`, and the server's input guard applies
 * `findBadText` to the JSON body, query string, route parameters and the headers it reads, so a route whose schema
 * forgets `text()` is still covered. Both answer 10113.
 */
import { z } from 'zod';

/** NUL, or a surrogate half without its partner (with the `u` flag a proper pair is one code point, never matched). */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this pattern is for.
const BAD_TEXT = /[\u0000\uD800-\uDFFF]/u;

export const BAD_TEXT_MESSAGE = 'must not contain NUL or unpaired surrogate characters';

/** True when `value` holds a character no stored text may hold. */
export const isBadText = (value: string): boolean => BAD_TEXT.test(value);

/** A string schema that refuses NUL and unpaired surrogates; chain `.min()`, `.regex()`, `.trim()` as on `z.string()`. */
export const text = () => z.string().refine((value) => !isBadText(value), BAD_TEXT_MESSAGE);

/**
 * The dotted path (under `root`) of the first string, value or object key, in a parsed JSON value that `isBadText`
 * refuses, `root` itself (or `value` when empty) for a refused top-level string, or undefined. Depth-first with an explicit stack, so a deeply nested body cannot overflow the call stack.
 */
export function findBadText(value: unknown, root = ''): string | undefined {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === 'string') {
      if (isBadText(item)) return path || 'value';
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], path ? `${path}.${i}` : String(i)]);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        // A refused key is named by its parent: echoing it back would repeat the bad character.
        if (isBadText(key)) return path ? `${path}.(key)` : '(key)';
        stack.push([child, path ? `${path}.${key}` : key]);
      }
    }
  }
  return undefined;
}
