import { manualProviderConfig } from '@cellhub/contract/sim';
import type { z } from 'zod';
import { unsupported } from './errors';
import type { SimAdapter, SimAdapterCapabilities, SimCardsResult } from './types';

/** `manual`: an operator account whose cards are kept by hand and by imports. Nothing is fetched. */
export const manualConfigSchema = manualProviderConfig;
export type ManualConfig = z.infer<typeof manualConfigSchema>;

const CAPABILITIES: SimAdapterCapabilities = {
  remote: false,
  cards: false,
  monthlyUsage: false,
  dailyUsage: false,
  quota: false,
  activate: false,
  suspend: false,
};

export class ManualAdapter implements SimAdapter {
  readonly kind = 'manual' as const;
  readonly capabilities = CAPABILITIES;

  /** Nothing to connect to: always works. */
  async testConnection(): Promise<void> {}

  /** No remote knowledge: no card is reported, and none is "not found" (the sync job leaves manual cards alone). */
  async getCards(_iccids: readonly string[]): Promise<SimCardsResult> {
    return { cards: [], notFound: [] };
  }

  async getUsage(): Promise<null> {
    return null;
  }

  async getQuota(): Promise<null> {
    return null;
  }

  async activate(): Promise<void> {
    throw unsupported(this.kind, 'activating a card');
  }

  async suspend(): Promise<void> {
    throw unsupported(this.kind, 'suspending a card');
  }
}
