/**
 * The deepest nesting a JSON body may have. Every shape the API takes is a few levels deep, while code further on
 * recurses over what it stores (drizzle's jsonb column runs JSON.stringify, which overflowed the stack at 5,000
 * levels and answered 500), so a body nested deeper is refused where it is parsed, before any of that runs.
 */
export const MAX_JSON_DEPTH = 64;

export const TOO_DEEP_MESSAGE = `nested deeper than ${MAX_JSON_DEPTH} levels`;

/** Whether `value` nests arrays and objects more than `max` levels deep; without recursion, so any depth is safe. */
export function jsonDepthOver(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
