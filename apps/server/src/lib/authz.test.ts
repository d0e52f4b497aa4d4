import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { devices } from '../modules/devices/devices.table';
import { AppError } from './app-error';
import {
  authorizeRoute,
  canControl,
  canManage,
  canShare,
  canView,
  canViewProduct,
  deviceListFilter,
  deviceRight,
  hasScope,
  liveShare,
  ownerFilter,
  productRight,
  requireAdmin,
  requireDeviceRight,
  requireScope,
  ruleWatchesDevice,
  takeAccessQuestions,
  traceAccessQuestions,
  visibleOwned,
} from './authz';
import type { Actor } from './deps';

const actor = (uid: number, role: 'admin' | 'user', scopes?: Actor['scopes']): Actor => ({
  uid,
  role,
  username: `u${uid}`,
  sessionId: uid,
  ip: '127.0.0.1',
  userAgent: 'test',
  ...(scopes ? { scopes } : {}),
});
const admin = actor(1, 'admin');
const alice = actor(2, 'user');
const bob = actor(3, 'user');

/** The code an AppError thrown by `fn` carries (undefined when nothing is thrown). */
function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).code;
  }
}

const dialect = new PgDialect();
const sqlOf = (s: Parameters<PgDialect['sqlToQuery']>[0] | undefined) => {
  if (!s) return undefined;
  const { sql, params } = dialect.sqlToQuery(s);
  return { sql, params };
};

describe('requireAdmin', () => {
  it('lets admins through and refuses users and any scoped caller with 10108', () => {
    expect(codeOf(() => requireAdmin(admin))).toBeUndefined();
    expect(codeOf(() => requireAdmin(alice))).toBe(10108);
    expect(codeOf(() => requireAdmin(actor(1, 'admin', ['devices:write'])))).toBe(10108);
  });
});

describe('authorizeRoute', () => {
  it('opens public and optional routes to anyone, signed-in routes to a caller, admin routes to admins', () => {
    expect(codeOf(() => authorizeRoute('public', null))).toBeUndefined();
    expect(codeOf(() => authorizeRoute('optional', null))).toBeUndefined();
    expect(codeOf(() => authorizeRoute('user', null))).toBe(10102);
    expect(codeOf(() => authorizeRoute('admin', null))).toBe(10102);
    expect(codeOf(() => authorizeRoute('user', alice))).toBeUndefined();
    expect(codeOf(() => authorizeRoute('admin', alice))).toBe(10108);
    expect(codeOf(() => authorizeRoute('admin', admin))).toBeUndefined();
  });
});

describe('devices', () => {
  const ofAlice = { uid: alice.uid };
  const inStock = { uid: null };

  it('gives admins everything, the owner all but administration, anyone else nothing', () => {
    expect(deviceRight(admin, ofAlice)).toBe('admin');
    expect(deviceRight(admin, inStock)).toBe('admin');
    expect(deviceRight(alice, ofAlice)).toBe('owner');
    expect(deviceRight(bob, ofAlice)).toBe('none');
    expect(deviceRight(alice, inStock)).toBe('none');
    expect([canView(bob, ofAlice), canControl(bob, ofAlice), canManage(bob, ofAlice)]).toEqual([
      false,
      false,
      false,
    ]);
    expect([canView(alice, ofAlice), canControl(alice, ofAlice), canManage(alice, ofAlice)]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('gives a shared device the right of its share, never more', () => {
    expect(deviceRight(bob, { uid: alice.uid, shared: 'view' })).toBe('view');
    expect(canView(bob, { uid: alice.uid, shared: 'view' })).toBe(true);
    expect(canControl(bob, { uid: alice.uid, shared: 'view' })).toBe(false);
    expect(canControl(bob, { uid: alice.uid, shared: 'control' })).toBe(true);
    expect(canManage(bob, { uid: alice.uid, shared: 'control' })).toBe(false);
  });

  it('caps a scoped caller by its scopes, admins included', () => {
    expect(deviceRight(actor(2, 'user', ['devices:read']), ofAlice)).toBe('view');
    expect(deviceRight(actor(2, 'user', ['devices:control']), ofAlice)).toBe('control');
    expect(deviceRight(actor(2, 'user', ['devices:write']), ofAlice)).toBe('owner');
    expect(deviceRight(actor(2, 'user', []), ofAlice)).toBe('none');
    expect(deviceRight(actor(1, 'admin', ['devices:read']), ofAlice)).toBe('view');
    // Scopes never add a right the owner rules do not give.
    expect(deviceRight(actor(3, 'user', ['devices:write']), ofAlice)).toBe('none');
  });

  it('answers a device the caller may not see exactly like a missing one, and 10108 for a missing right', () => {
    expect(codeOf(() => requireDeviceRight(bob, undefined, 'view'))).toBe(10117);
    expect(codeOf(() => requireDeviceRight(bob, ofAlice, 'view'))).toBe(10117);
    expect(codeOf(() => requireDeviceRight(bob, { uid: alice.uid, shared: 'view' }, 'control'))).toBe(10108);
    expect(requireDeviceRight(alice, ofAlice, 'owner')).toBe(ofAlice);
    expect(codeOf(() => requireDeviceRight(bob, undefined, 'view', 10107))).toBe(10107);
  });

  it("lets an alert rule watch what its owner may view: any device for an admin's, their own for a user's", () => {
    const owner = (uid: number, role: 'admin' | 'user') => ({ uid, role });
    expect(ruleWatchesDevice(owner(1, 'admin'), ofAlice)).toBe(true);
    expect(ruleWatchesDevice(owner(1, 'admin'), inStock)).toBe(true);
    expect(ruleWatchesDevice(owner(alice.uid, 'user'), ofAlice)).toBe(true);
    // A device given to someone else, or back in stock, stops feeding a user's rules.
    expect(ruleWatchesDevice(owner(bob.uid, 'user'), ofAlice)).toBe(false);
    expect(ruleWatchesDevice(owner(alice.uid, 'user'), inStock)).toBe(false);
    expect(ruleWatchesDevice(owner(bob.uid, 'user'), { uid: alice.uid, shared: 'view' })).toBe(true);
    // Background work, not a request: nothing is recorded for the owner.
    traceAccessQuestions(true);
    try {
      ruleWatchesDevice(owner(alice.uid, 'user'), ofAlice);
      expect(takeAccessQuestions(alice.uid)).toEqual(new Set());
    } finally {
      traceAccessQuestions(false);
    }
  });

  it('filters lists: nothing for admins, the owner column for users, nothing visible without a read scope', () => {
    expect(deviceListFilter(admin, devices.uid)).toBeUndefined();
    expect(sqlOf(deviceListFilter(alice, devices.uid))).toEqual({
      sql: '"devices"."uid" = $1',
      params: [alice.uid],
    });
    expect(sqlOf(deviceListFilter(actor(1, 'admin', []), devices.uid))?.sql).toBe('false');
  });

  it('widens a list with the live shares of the caller when given the id column', () => {
    expect(deviceListFilter(admin, devices.uid, devices.id)).toBeUndefined();
    const q = sqlOf(deviceListFilter(alice, devices.uid, devices.id))!;
    expect(q.sql).toContain('"devices"."uid" = $1 or "devices"."id" = any(array(select ds.device_id');
    expect(q.sql).toContain('sd.uid = ds.owner_uid where ds.grantee_uid = $2');
    expect(q.sql).toContain('(ds.expires_at is null or ds.expires_at > now())');
    expect(q.params).toEqual([alice.uid, alice.uid]);
    expect(sqlOf(deviceListFilter(actor(2, 'user', []), devices.uid, devices.id))?.sql).toBe('false');
  });

  it('ends a share at its expiry, to the millisecond', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    expect(liveShare(undefined, at)).toBeUndefined();
    expect(liveShare({ right: 'view', expiresAt: null }, at)).toBe('view');
    expect(liveShare({ right: 'control', expiresAt: new Date(at.getTime() + 1) }, at)).toBe('control');
    expect(liveShare({ right: 'control', expiresAt: at }, at)).toBeUndefined();
  });

  it('lets only those who manage a device share it, never a share holder', () => {
    expect(canShare(alice, ofAlice)).toBe(true);
    expect(canShare(admin, ofAlice)).toBe(true);
    expect(canShare(bob, { uid: alice.uid, shared: 'control' })).toBe(false);
    expect(canShare(bob, ofAlice)).toBe(false);
    expect(canShare(actor(2, 'user', ['devices:control']), ofAlice)).toBe(false);
  });
});

describe('owned rows', () => {
  it('filters lists by owner except for admins', () => {
    expect(ownerFilter(admin, devices.uid)).toBeUndefined();
    expect(sqlOf(ownerFilter(bob, devices.uid))).toEqual({ sql: '"devices"."uid" = $1', params: [bob.uid] });
  });

  it("answers another user's row with the code of a missing one", () => {
    const row = { id: 7, uid: alice.uid };
    expect(visibleOwned(alice, row, 10107)).toBe(row);
    expect(visibleOwned(admin, row, 10107)).toBe(row);
    expect(codeOf(() => visibleOwned(bob, row, 10107))).toBe(10107);
    expect(codeOf(() => visibleOwned(bob, undefined, 10107))).toBe(10107);
    expect(codeOf(() => visibleOwned(bob, { uid: null }, 60003))).toBe(60003);
  });
});

describe('products', () => {
  const product = { uid: alice.uid };
  it('are managed by their owner and admins, read by a user with a device of them, hidden from anyone else', () => {
    expect(productRight(alice, product, false)).toBe('manage');
    expect(productRight(admin, product, false)).toBe('manage');
    expect(productRight(bob, product, true)).toBe('view');
    expect(productRight(bob, product, false)).toBe('none');
    expect(productRight(bob, undefined, true)).toBe('none');
    expect(productRight(bob, { uid: null }, true)).toBe('view');
    expect(canViewProduct(bob, product, true)).toBe(true);
    expect(canViewProduct(bob, product, false)).toBe(false);
  });
});

describe('scopes', () => {
  it('leave a person (no scopes) alone and hold a scoped caller to them', () => {
    expect(hasScope(alice, 'devices:control')).toBe(true);
    const key = actor(2, 'user', ['devices:read']);
    expect(hasScope(key, 'devices:read')).toBe(true);
    expect(codeOf(() => requireScope(key, 'devices:write'))).toBe(10108);
  });
});

describe('the record of questions', () => {
  it('records per uid only while tracing, and empties on take', () => {
    traceAccessQuestions(true);
    try {
      canView(alice, { uid: alice.uid });
      ownerFilter(bob, devices.uid);
      expect([...takeAccessQuestions(alice.uid)]).toEqual(['device']);
      expect([...takeAccessQuestions(bob.uid)]).toEqual([]);
    } finally {
      traceAccessQuestions(false);
    }
    canView(alice, { uid: alice.uid });
    expect(takeAccessQuestions(alice.uid).size).toBe(0);
  });
});
