import type { FastifyBaseLogger } from 'fastify';
import type { AccessScope } from '@cellhub/contract/access';
import type { Role } from '@cellhub/contract/routes';
import type { Config } from '../config';
import type { Db } from '../db/client';
import type { DeviceLink } from '../gateway/device-link';
import type { PastDayCache } from '../modules/dashboard/past-day-cache';
import type { DeviceCountCache } from '../modules/devices/device-count-cache';
import type { ShareAudienceCache } from '../modules/shares/share-audience';
import type { EventBus } from '../realtime/event-bus';
import type { PgChannels } from '../realtime/pg-channels';
import type { SecretBox } from './crypto';
import type { SmsProvider } from './sms';

/** What services need from the running server; built once in app.ts. */
export interface Deps {
  db: Db;
  config: Config;
  box: SecretBox;
  sms: SmsProvider;
  log: FastifyBaseLogger;
  /** Device events for the console's live updates (src/realtime); publish never throws. */
  events: EventBus;
  /**
   * Named notification channels: LISTEN/NOTIFY on the instance's one LISTEN connection (PostgreSQL), in process on
   * PGlite. Wake-ups and change signals between instances go here; nobody opens a LISTEN connection of their own.
   */
  channels: PgChannels;
  /** Injectable clock: expiry tests move time instead of sleeping. */
  now(): Date;
  /** Downlinks and connection control: the device gateway (20401 until the broker is attached). */
  link: DeviceLink;
  /** What this running server keeps in memory for itself. */
  caches: InstanceCaches;
}

/**
 * The in-memory state of one running server, made once with its deps (app.ts): two servers in one process (tests,
 * benchmarks) never share it, and no module keeps a registry of its own keyed by the deps object. Other instances
 * have their own; each cache says what it may miss, and for how long.
 */
export interface InstanceCaches {
  /** Device-list counts (modules/devices/device-count-cache.ts); device changes through this instance empty it. */
  deviceCounts: DeviceCountCache;
  /** The dashboard trend's finished days (modules/dashboard/past-day-cache.ts); entries expire. */
  dashboardDays: PastDayCache;
  /** Live device shares for the browser stream and the alert evaluator (modules/shares/share-audience.ts). */
  shares: ShareAudienceCache;
}

/** Where a request came from; recorded in sessions and audit rows. */
export interface RequestContext {
  ip: string;
  userAgent: string;
}

/** The signed-in caller every protected service function takes first. */
export interface Actor extends RequestContext {
  uid: number;
  username: string;
  role: Role;
  sessionId: number;
  /**
   * Set for a caller limited to some scopes (an access key): the authorisation layer (lib/authz.ts) then grants
   * only what both the owner's rights and these scopes allow. Absent for a person's session.
   */
  scopes?: readonly AccessScope[];
}
