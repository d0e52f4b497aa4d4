import type { SessionScope } from '../../realtime/event-bus';

/** What a session lookup yields: the account behind a valid token. */
export interface SessionIdentity {
  sessionId: number;
  uid: number;
  username: string;
  role: 'admin' | 'user';
  expiresAt: Date;
}

interface Entry extends SessionIdentity {
  /** When the database last said this session was valid (ms). */
  checkedAt: number;
}

/**
 * Sessions the database confirmed valid in the last `ttlMs`, keyed by token hash, so a page that fires ten API
 * calls, or a list polled by many tabs, costs one session lookup instead of one per call.
 *
 * Revocation: sign-out, password change and disabling an account announce the ended sessions on the event bus
 * (here and, through LISTEN/NOTIFY, on every other instance); `end` drops them at once. A lookup that started
 * before such an announcement is not cached (generation check), so it cannot put a revoked session back. If the
 * announcement cannot reach another instance (its LISTEN connection is down), that instance still refuses the
 * session within `ttlMs`. Expiry is checked against the cached `expiresAt` on every call.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** A session confirmed within the TTL and not expired at `now`, else undefined. */
  get(tokenHash: string, now: number): SessionIdentity | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (now - entry.checkedAt >= this.ttlMs || entry.expiresAt.getTime() <= now) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry;
  }

  /** Call before the database lookup; pass the result to `set` so a revocation in between wins. */
  mark(): number {
    return this.generation;
  }

  set(tokenHash: string, identity: SessionIdentity, now: number, mark: number): void {
    if (!this.enabled || mark !== this.generation) return;
    if (this.entries.size >= this.maxEntries) {
      // Oldest first (Map keeps insertion order): drop a tenth rather than one per insert.
      let n = Math.ceil(this.maxEntries / 10);
      for (const key of this.entries.keys()) {
        this.entries.delete(key);
        if (--n === 0) break;
      }
    }
    this.entries.delete(tokenHash);
    this.entries.set(tokenHash, { ...identity, checkedAt: now });
  }

  end(scope: SessionScope): void {
    this.generation++;
    for (const [key, entry] of this.entries) {
      if ('uid' in scope ? entry.uid === scope.uid : entry.sessionId === scope.sessionId)
        this.entries.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
