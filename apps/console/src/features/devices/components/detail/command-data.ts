/** Seed section 5 for command data, as the form says it: hex has an even length, no 0x, only hex digits. */
import type { CommandType } from '@cellhub/contract/protocol';
import { HEX_RULE } from '@cellhub/contract/protocol';

export const COMMAND_MAX_LENGTH = 4096;

/** The locale key of what is wrong with the data, or undefined when it can be sent. */
export function commandDataError(type: CommandType, data: string | undefined): string | undefined {
  if (!data) return 'deviceDetail.cmd.err.required';
  if (data.length > COMMAND_MAX_LENGTH) return 'deviceDetail.cmd.err.tooLong';
  if (type !== 'hex' || HEX_RULE.test(data)) return undefined;
  if (/^0x/i.test(data)) return 'deviceDetail.cmd.err.prefix';
  if (!/^[0-9A-Fa-f]*$/.test(data)) return 'deviceDetail.cmd.err.chars';
  return 'deviceDetail.cmd.err.odd';
}
