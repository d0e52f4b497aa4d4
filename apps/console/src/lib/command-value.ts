import type { CommandType } from '@cellhub/contract/protocol';

/** Hex is often written in bytes ("a1 b2"); blanks between them carry nothing, so they are dropped. */
export function normaliseCommandData(type: CommandType, data: string | undefined): string | undefined {
  return type === 'hex' && data !== undefined && data.trim() !== '' ? data.replace(/\s+/g, '') : data;
}
