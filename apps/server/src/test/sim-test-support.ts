/** Helpers of the SIM tests: ICCIDs, and providers, packages, cards and balances made through the API. */
import { expect } from 'vitest';
import type { TestApp } from './app';

let seq = 0;
/** A fresh Chinese 20-digit ICCID (prefix 8986: no Luhn check digit). */
export function newIccid(): string {
  seq += 1;
  const n = `${Date.now() % 1_000_000}${String(seq).padStart(5, '0')}${Math.floor(Math.random() * 1000)}`;
  return `89860${n.padStart(15, '0').slice(-15)}`;
}

/** Appends the Luhn check digit to a 19-digit number. */
export function withLuhn(body19: string): string {
  for (let c = 0; c <= 9; c++) {
    const x = `${body19}${c}`;
    let sum = 0;
    for (let i = 0; i < x.length; i++) {
      let v = Number(x[x.length - 1 - i]);
      if (i % 2) {
        v *= 2;
        if (v > 9) v -= 9;
      }
      sum += v;
    }
    if (sum % 10 === 0) return x;
  }
  throw new Error('unreachable');
}

export async function api<T = unknown>(
  t: TestApp,
  token: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  headers?: Record<string, string>,
): Promise<T> {
  const res = await t.inject({ method, url, token, payload: payload as object | undefined, headers });
  if (res.statusCode !== 200) throw new Error(`${method} ${url} -> ${res.statusCode} ${res.body}`);
  return (res.json() as { data: T }).data;
}

export async function manualProvider(t: TestApp, admin: string, operator = 'china_mobile'): Promise<number> {
  const p = await api<{ id: number }>(t, admin, 'POST', '/api/card-admin/providers', {
    name: `manual ${newIccid().slice(-6)}`,
    kind: 'manual',
    operator,
    sync_interval_min: 0,
  });
  return p.id;
}

export interface PackageOptions {
  price_fen?: number;
  flow_mb?: number;
  type?: 'monthly' | 'pool';
  validity_unit?: 'day' | 'month' | 'year';
  validity_count?: number;
  operator?: string;
  on_sale?: boolean;
}

export async function createPackage(t: TestApp, admin: string, o: PackageOptions = {}): Promise<number> {
  const p = await api<{ id: number }>(t, admin, 'POST', '/api/packages', {
    name: `pkg ${seq}`,
    code: `P${newIccid().slice(-10)}`,
    operator: o.operator ?? 'china_mobile',
    type: o.type ?? 'monthly',
    validity_unit: o.validity_unit ?? 'month',
    validity_count: o.validity_count ?? 1,
    flow_mb: o.flow_mb ?? 1024,
    price_fen: o.price_fen ?? 1000,
    on_sale: o.on_sale ?? true,
  });
  return p.id;
}

export async function createCard(
  t: TestApp,
  admin: string,
  body: {
    provider_id: number;
    uid?: number | null;
    package_id?: number | null;
    operator?: string;
    iccid?: string;
  },
): Promise<string> {
  const iccid = body.iccid ?? newIccid();
  await api(t, admin, 'POST', '/api/card-admin/cards', {
    iccid,
    operator: body.operator ?? 'china_mobile',
    provider_id: body.provider_id,
    uid: body.uid ?? null,
    package_id: body.package_id ?? null,
  });
  return iccid;
}

export async function topup(
  t: TestApp,
  admin: string,
  uid: number,
  amountFen: number,
  note = 'test',
): Promise<void> {
  await api(t, admin, 'POST', '/api/balance/topups', { uid, amount_fen: amountFen, note });
}

export async function balanceOf(t: TestApp, token: string): Promise<number> {
  return (await api<{ balance_fen: number }>(t, token, 'GET', '/api/balance')).balance_fen;
}

export function expectCode(
  res: { statusCode: number; json(): unknown },
  code: number,
  status = 400,
): unknown {
  expect(res.statusCode).toBe(status);
  const body = res.json() as { code: number; details?: unknown; status?: unknown };
  expect(body.status).toBeUndefined();
  expect(body.code).toBe(code);
  return body.details;
}
