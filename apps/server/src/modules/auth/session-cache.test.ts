import { describe, expect, it } from 'vitest';
import { SessionCache, type SessionIdentity } from './session-cache';

const T0 = 1_000_000;
const identity = (over: Partial<SessionIdentity> = {}): SessionIdentity => ({
  sessionId: 1,
  uid: 10,
  username: 'ann',
  role: 'user',
  expiresAt: new Date(T0 + 3_600_000),
  ...over,
});

describe('SessionCache', () => {
  it('holds a confirmed session for its TTL only', () => {
    const c = new SessionCache(5000);
    c.set('h', identity(), T0, c.mark());
    expect(c.get('h', T0 + 4999)?.uid).toBe(10);
    expect(c.get('h', T0 + 5000)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('never returns a session past its expiry, even inside the TTL', () => {
    const c = new SessionCache(5000);
    c.set('h', identity({ expiresAt: new Date(T0 + 1000) }), T0, c.mark());
    expect(c.get('h', T0 + 999)).toBeDefined();
    expect(c.get('h', T0 + 1000)).toBeUndefined();
  });

  it('drops the sessions of an ended scope: one session, or every session of a user', () => {
    const c = new SessionCache(5000);
    c.set('a', identity({ sessionId: 1, uid: 10 }), T0, c.mark());
    c.set('b', identity({ sessionId: 2, uid: 10 }), T0, c.mark());
    c.set('c', identity({ sessionId: 3, uid: 11 }), T0, c.mark());
    c.end({ sessionId: 1 });
    expect(c.get('a', T0)).toBeUndefined();
    expect(c.get('b', T0)).toBeDefined();
    c.end({ uid: 10 });
    expect(c.get('b', T0)).toBeUndefined();
    expect(c.get('c', T0)?.uid).toBe(11);
  });

  it('does not cache a lookup that started before a revocation', () => {
    const c = new SessionCache(5000);
    const mark = c.mark(); // the lookup starts, reads a still-valid row...
    c.end({ sessionId: 1 }); // ...the session is revoked meanwhile...
    c.set('h', identity(), T0, mark); // ...and the stale answer arrives.
    expect(c.get('h', T0)).toBeUndefined();
    c.set('h', identity(), T0, c.mark());
    expect(c.get('h', T0)).toBeDefined();
  });

  it('stays bounded, dropping the oldest entries first', () => {
    const c = new SessionCache(5000, 100);
    for (let i = 0; i < 250; i++) c.set(`t${i}`, identity({ sessionId: i }), T0, c.mark());
    expect(c.size).toBeLessThanOrEqual(100);
    expect(c.get('t249', T0)?.sessionId).toBe(249);
    expect(c.get('t0', T0)).toBeUndefined();
  });

  it('with a TTL of 0 keeps nothing', () => {
    const c = new SessionCache(0);
    c.set('h', identity(), T0, c.mark());
    expect(c.get('h', T0)).toBeUndefined();
  });
});
