import type { SimCardStatus, SimProviderKind } from '@cellhub/contract/sim';

/**
 * The operator-neutral face of a SIM provider: what the SIM sync job and the card-admin screens call, whichever
 * operator API (or none) is behind it. Adapters translate each operator's reply into these shapes and its failures
 * into the four errors of ./errors.ts. See docs/sim-providers.md for where every mapping comes from.
 */

// Kinds and the normalised status set are the contract's (packages/contract/src/sim.ts): one name everywhere.
// `inactive`: not yet in service (stock, test, waiting for activation); `active`; `suspended`: stopped, can come
// back; `deactivated`: cancelled or being cancelled; `unknown`: a value this adapter has no mapping for (kept in
// `rawStatus`).
export { SIM_CARD_STATUSES, SIM_PROVIDER_KINDS } from '@cellhub/contract/sim';
export type { SimCardStatus, SimProviderKind } from '@cellhub/contract/sim';

export interface SimCardInfo {
  iccid: string;
  status: SimCardStatus;
  /** The operator's own status value, unchanged (OneLink `cardStatus` "2", 1NCE `status` "Enabled"). */
  rawStatus: string | null;
  msisdn: string | null;
  imsi: string | null;
  /** First activation, when the operator reports it. */
  activatedAt: Date | null;
  /** When service (or the current quota) ends, when the operator reports it. */
  expiresAt: Date | null;
}

export interface SimCardsResult {
  cards: SimCardInfo[];
  /** ICCIDs the operator does not know, or that belong to another customer account. */
  notFound: string[];
}

export interface SimDailyUsage {
  /** Calendar day in the operator's time zone, `YYYY-MM-DD`. */
  date: string;
  usedBytes: number;
}

export interface SimMonthUsage {
  iccid: string;
  /** `YYYY-MM`. */
  month: string;
  usedBytes: number;
  /**
   * Days of that month the operator can report, oldest first. `null` when the operator offers no daily figures;
   * an empty array when it does, but none of the month's days is in its query window (OneLink: last 7 days).
   */
  daily: SimDailyUsage[] | null;
}

export interface SimQuota {
  iccid: string;
  totalBytes: number | null;
  usedBytes: number | null;
  remainingBytes: number | null;
  expiresAt: Date | null;
}

/** What an adapter can do, so callers (sync job, UI) skip what it cannot instead of calling and failing. */
export interface SimAdapterCapabilities {
  /** False for `manual`: nothing is fetched, data is kept by hand and by imports. */
  remote: boolean;
  cards: boolean;
  monthlyUsage: boolean;
  dailyUsage: boolean;
  quota: boolean;
  activate: boolean;
  suspend: boolean;
}

export interface SimAdapter {
  readonly kind: SimProviderKind;
  readonly capabilities: SimAdapterCapabilities;
  /** Signs in with the stored credentials (a fresh token) and makes one cheap read. Resolves when both work. */
  testConnection(): Promise<void>;
  /** Status and identity of each card; cards the operator does not know are listed in `notFound`. */
  getCards(iccids: readonly string[]): Promise<SimCardsResult>;
  /** Data used in one calendar month (`YYYY-MM`); `null` when the adapter has no remote usage (manual). */
  getUsage(iccid: string, options: { month: string; daily?: boolean }): Promise<SimMonthUsage | null>;
  /** Package volume and what is left of it; `null` when the operator offers none for this card. */
  getQuota(iccid: string): Promise<SimQuota | null>;
  /** Brings a card into service (or back from a stop). Throws ProviderError `unsupported` when not offered. */
  activate(iccid: string): Promise<void>;
  /** Stops a card's service (reversible). Throws ProviderError `unsupported` when not offered. */
  suspend(iccid: string): Promise<void>;
}

export interface SimAdapterOptions {
  /**
   * The HTTP client; defaults to the outbound client (lib/outbound.ts), which refuses private and local addresses
   * unless `outboundAllow` names them: `base_url` is typed by an admin. Tests pass their own to observe calls.
   */
  fetch?: typeof fetch;
  /** OUTBOUND_ALLOW entries (config `outboundAllow`): on-premise operator hosts the default client may reach. */
  outboundAllow?: readonly string[];
  /** Operator API root; wins over the config's `base_url`, which wins over the real service. Tests use a fake. */
  baseUrl?: string;
  /** Per-request timeout. Default 15 s. */
  timeoutMs?: number;
  /** Clock for token expiry and "current month"; tests move it instead of sleeping. */
  now?: () => Date;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
