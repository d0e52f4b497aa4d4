// Test support (not shipped): access keys as callers of the device rights matrix (device-rights-matrix.test.ts).
import type { InjectOptions } from 'fastify';
import { ACCESS_SCOPES, type AccessScope } from '@cellhub/contract/access';
import { OPEN_ROUTES } from '../modules/access-keys/open-routes';
import type { TestApp } from './app';
import {
  bearer,
  type CallerFactory,
  type MatrixCaller,
  type MatrixPerson,
  type MatrixRight,
} from './device-rights';
import { givePhone, signHeaders, verifiedKey } from './signed-request';

/** The request as it goes on the wire: the query in the URL, which is what a key signs. */
function onTheWire(req: InjectOptions): { url: string; payload?: Record<string, unknown> } {
  const query = req.query as Record<string, string> | undefined;
  const qs = query ? new URLSearchParams(query).toString() : '';
  const url = String(req.url) + (qs ? (String(req.url).includes('?') ? '&' : '?') + qs : '');
  const payload =
    req.payload && typeof req.payload === 'object' && !Buffer.isBuffer(req.payload)
      ? (req.payload as Record<string, unknown>)
      : undefined;
  return { url, payload };
}

let phones = 0;
const nextPhone = () => `1390000${String(7000 + phones++).padStart(4, '0')}`;

/**
 * Keys of the device owner and of a view-share holder. Each answers 10227 on a route the open API leaves out or
 * whose scope it lacks (modules/access-keys/open-routes.ts); elsewhere it acts with its holder's right capped by
 * its device scopes (read: view, control: control, write: owner), which is the `right` the matrix judges by. OTA
 * routes are the `ota` scope's: there the key acts with its holder's own right (OTA is the owner's alone).
 */
export const accessKeyCallers: CallerFactory = async (t, people) => {
  const keyCaller = async (
    name: string,
    person: MatrixPerson,
    ownSn: string,
    scopes: AccessScope[],
    right: MatrixRight,
    holderRight: MatrixRight,
  ): Promise<MatrixCaller> => {
    const key = await verifiedKey(t, person.token, phoneOf.get(person.uid)!, { name, scopes });
    return {
      name,
      right,
      ownSn,
      setupAuthorize: bearer(person.token),
      // The `ota` scope runs OTA over the holder's devices as the holder may (its own; never a shared one).
      rightOn: (routeKey) => (OPEN_ROUTES[routeKey] === 'ota' ? holderRight : right),
      refusal: (routeKey) => {
        const scope = OPEN_ROUTES[routeKey];
        return scope && scopes.includes(scope) ? undefined : 10227;
      },
      authorize: (req) => {
        const { url, payload } = onTheWire(req);
        const method = String(req.method ?? 'GET').toUpperCase() as 'GET' | 'POST' | 'PUT' | 'DELETE';
        const headers = { ...(req.headers ?? {}), ...signHeaders(t, { method, url, payload, key }) };
        return { ...req, url, query: undefined, headers } as InjectOptions;
      },
    };
  };
  const phoneOf = new Map<number, string>();
  for (const p of [people.owner, people.view]) {
    const phone = nextPhone();
    await givePhone(t, p.token, phone);
    phoneOf.set(p.uid, phone);
  }
  const own = 'OWNOWNER';
  return [
    await keyCaller('key:read', people.owner, own, ['devices:read'], 'view', 'owner'),
    await keyCaller(
      'key:read+control',
      people.owner,
      own,
      ['devices:read', 'devices:control'],
      'control',
      'owner',
    ),
    await keyCaller('key:all', people.owner, own, [...ACCESS_SCOPES], 'owner', 'owner'),
    // No device scope: whatever the route, the key's device right is none.
    await keyCaller('key:alerts', people.owner, own, ['alerts', 'ota', 'sim'], 'none', 'owner'),
    // A share holder's key never exceeds the share, whatever its scopes.
    await keyCaller('view-holder key:all', people.view, 'OWNVIEW', [...ACCESS_SCOPES], 'view', 'view'),
  ];
};

export type { TestApp };
