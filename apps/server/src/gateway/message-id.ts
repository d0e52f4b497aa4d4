/** Longest `id` a property message may carry (the contract's `messageId`). */
const MAX_ID_LENGTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * The top-level string `"id"` of a JSON object, found without parsing the whole message: a message dropped for its
 * size or over the rate limit is not parsed (that work is what the limits protect), yet the device is promised an
 * answer with that id. One pass over the bytes up to the id; nested objects, arrays and strings are skipped, so an
 * `"id"` inside `params` is not taken. Undefined when the payload is not a JSON object, has no such id, or the id is
 * not a string of at most 64 characters.
 */
export function messageIdOf(payload: Buffer): string | undefined {
  const n = payload.length;
  let i = 0;
  const skipSpace = () => {
    while (i < n && isSpace(payload[i])) i++;
  };
  /** Moves past the string starting at `i` (a quote); returns its end (exclusive) or -1 when unterminated. */
  const skipString = (): number => {
    i++;
    while (i < n) {
      const b = payload[i]!;
      if (b === BACKSLASH) i += 2;
      else if (b === QUOTE) return ++i;
      else i++;
    }
    return -1;
  };
  /** Moves past one value (string, number, literal, object or array). False when the JSON breaks off. */
  const skipValue = (): boolean => {
    const b = payload[i];
    if (b === QUOTE) return skipString() !== -1;
    if (b === 0x7b || b === 0x5b) {
      let depth = 0;
      while (i < n) {
        const c = payload[i]!;
        if (c === QUOTE) {
          if (skipString() === -1) return false;
          continue;
        }
        if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          depth--;
          if (depth === 0) {
            i++;
            return true;
          }
        }
        i++;
      }
      return false;
    }
    // Number or literal: up to the next delimiter.
    const start = i;
    while (i < n && payload[i] !== 0x2c && payload[i] !== 0x7d && !isSpace(payload[i])) i++;
    return i > start;
  };
  const decode = (start: number, end: number): string | undefined => {
    try {
      return JSON.parse(payload.toString('utf8', start, end)) as string;
    } catch {
      return undefined;
    }
  };

  skipSpace();
  if (payload[i] !== 0x7b) return undefined;
  i++;
  for (;;) {
    skipSpace();
    if (payload[i] !== QUOTE) return undefined;
    const keyStart = i;
    const keyEnd = skipString();
    if (keyEnd === -1) return undefined;
    // `"id"` exactly, or an escaped spelling of it.
    const key =
      keyEnd - keyStart === 4 ? payload.toString('latin1', keyStart, keyEnd) : decode(keyStart, keyEnd);
    skipSpace();
    if (payload[i] !== 0x3a) return undefined;
    i++;
    skipSpace();
    if (key === '"id"' || key === 'id') {
      if (payload[i] !== QUOTE) return undefined;
      const valueStart = i;
      const valueEnd = skipString();
      if (valueEnd === -1) return undefined;
      const id = decode(valueStart, valueEnd);
      return id !== undefined && id.length <= MAX_ID_LENGTH ? id : undefined;
    }
    if (!skipValue()) return undefined;
    skipSpace();
    if (payload[i] !== 0x2c) return undefined;
    i++;
  }
}
