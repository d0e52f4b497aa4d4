/**
 * Entry point for the SIM module: `getSimAdapter(kind, config, options)` builds the adapter of a provider account
 * from its stored, decrypted config (the contract's provider config with the secret filled in). The console's
 * form is validated with the contract's SIM_PROVIDER_CONFIG_SCHEMAS (secrets optional there, for updates); the
 * schemas here require them, because an adapter cannot work without.
 */
import type { z } from 'zod';
import { ManualAdapter, manualConfigSchema } from './manual.adapter';
import { OneNceAdapter, oneNceConfigSchema } from './one-nce.adapter';
import { OnelinkAdapter, onelinkConfigSchema } from './onelink.adapter';
import { SIM_PROVIDER_KINDS, type SimAdapter, type SimAdapterOptions, type SimProviderKind } from './types';

export const SIM_PROVIDER_CONFIG_SCHEMAS = {
  manual: manualConfigSchema,
  onelink: onelinkConfigSchema,
  '1nce': oneNceConfigSchema,
} as const satisfies Record<SimProviderKind, z.ZodType>;

export type SimProviderConfig<K extends SimProviderKind> = z.infer<(typeof SIM_PROVIDER_CONFIG_SCHEMAS)[K]>;

/** Config fields that are credentials (encrypt at rest, never send back): the contract's list. */
export { SIM_PROVIDER_SECRET_FIELDS } from '@cellhub/contract/sim';

export const isSimProviderKind = (value: unknown): value is SimProviderKind =>
  typeof value === 'string' && (SIM_PROVIDER_KINDS as readonly string[]).includes(value);

/** Validates a full (decrypted) provider config for its kind; throws the ZodError (field paths) when invalid. */
export function parseSimProviderConfig<K extends SimProviderKind>(
  kind: K,
  config: unknown,
): SimProviderConfig<K> {
  return SIM_PROVIDER_CONFIG_SCHEMAS[kind].parse(config) as SimProviderConfig<K>;
}

/** The adapter for one provider account. `options.baseUrl` points it elsewhere (tests, an operator sandbox). */
export function getSimAdapter(
  kind: SimProviderKind,
  config: unknown,
  options: SimAdapterOptions = {},
): SimAdapter {
  switch (kind) {
    case 'manual':
      parseSimProviderConfig('manual', config);
      return new ManualAdapter();
    case 'onelink':
      return new OnelinkAdapter(parseSimProviderConfig('onelink', config), options);
    case '1nce':
      return new OneNceAdapter(parseSimProviderConfig('1nce', config), options);
    default: {
      const never: never = kind;
      throw new TypeError(`unknown SIM provider kind ${String(never)}`);
    }
  }
}
