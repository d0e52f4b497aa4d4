/**
 * Batch creation of cards from a file (with its stock creation log row) and usage imports for manual cards.
 */
import { count, desc, eq, inArray, sql } from 'drizzle-orm';
import {
  iccidProblem,
  SIM_IMPORT_COLUMNS,
  SIM_OPERATORS,
  type SimCardLogDetail,
  type SimCardLogItem,
  type SimImportFailure,
  type SimOperator,
  type SimUsageImportResult,
} from '@cellhub/contract/sim';
import { AppError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { writeAudit } from '../audit/audit.service';
import { users } from '../users/users.table';
import { MB, monthOf } from './sim-common';
import { packageStart, refreshExhausted } from './sim-cards.service';
import { simCardLogs, simCards, simUsageDaily, simUsageMonthly } from './sim-cards.table';
import type { TableRow } from './sim-import-file';
import { type SimPackageRow, simPackages } from './sim-packages.table';
import { type SimProviderRow, simProviders } from './sim-providers.table';

type Column = (typeof SIM_IMPORT_COLUMNS)[number];

const HEADER_ALIASES: Record<string, Column> = {
  msisdn: 'phone',
  手机号: 'phone',
  卡号: 'phone',
  号码: 'phone',
  运营商: 'operator',
  平台: 'provider',
  供应商: 'provider',
  套餐: 'package',
  套餐编码: 'package',
  package_code: 'package',
  provider_id: 'provider',
};

export function simImportColumn(header: string): Column | undefined {
  if ((SIM_IMPORT_COLUMNS as readonly string[]).includes(header)) return header as Column;
  return HEADER_ALIASES[header];
}

const OPERATOR_ALIASES: Record<string, SimOperator> = {
  移动: 'china_mobile',
  中国移动: 'china_mobile',
  cmcc: 'china_mobile',
  'china mobile': 'china_mobile',
  联通: 'china_unicom',
  中国联通: 'china_unicom',
  cucc: 'china_unicom',
  'china unicom': 'china_unicom',
  电信: 'china_telecom',
  中国电信: 'china_telecom',
  ctcc: 'china_telecom',
  'china telecom': 'china_telecom',
  其他: 'other',
};

function operatorOf(value: string): SimOperator | undefined {
  const v = value.trim().toLowerCase();
  if ((SIM_OPERATORS as readonly string[]).includes(v)) return v as SimOperator;
  return OPERATOR_ALIASES[v];
}

const MSISDN = /^\+?\d{5,20}$/;
const IMSI = /^\d{6,15}$/;

interface Lookup {
  providers: SimProviderRow[];
  packages: SimPackageRow[];
}

function findProviderIn(lookup: Lookup, value: string): SimProviderRow | undefined {
  if (/^\d+$/.test(value)) {
    const byId = lookup.providers.find((p) => p.id === Number(value));
    if (byId) return byId;
  }
  return lookup.providers.find((p) => p.name === value);
}

function findPackageIn(lookup: Lookup, value: string): SimPackageRow | undefined {
  return (
    lookup.packages.find((p) => p.code === value) ??
    (/^\d+$/.test(value) ? lookup.packages.find((p) => p.id === Number(value)) : undefined)
  );
}

interface Candidate {
  row: number;
  iccid: string;
  msisdn: string;
  imsi: string;
  operator: SimOperator;
  provider: SimProviderRow;
  pkg: SimPackageRow | undefined;
}

/**
 * Creates the valid rows and writes one stock creation log row listing every refused one with its reason:
 * `iccid_rule` / `iccid_luhn`, `duplicate_in_file`, `duplicate` (exists), `unknown_provider`, `unknown_package`,
 * `invalid` (phone, imsi, operator, or a package of another operator).
 */
export async function importCards(
  deps: Deps,
  actor: Actor,
  filename: string,
  rows: TableRow[],
): Promise<SimCardLogDetail> {
  requireAdmin(actor);
  const now = deps.now();
  const lookup: Lookup = {
    providers: await deps.db.select().from(simProviders),
    packages: await deps.db.select().from(simPackages),
  };
  const failures: SimImportFailure[] = [];
  const fail = (row: number, iccid: string, reason: SimImportFailure['reason'], message: string) =>
    failures.push({ row, iccid, reason, message });
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  for (const { row, values } of rows) {
    const iccid = (values.iccid ?? '').replace(/\s+/g, '');
    const problem = iccidProblem(iccid);
    if (problem) {
      const hint = /e\+/i.test(iccid)
        ? ' (the spreadsheet stored it as a number: format the column as text)'
        : '';
      fail(
        row,
        iccid,
        problem,
        problem === 'iccid_luhn' ? 'check digit (Luhn) does not match' : `ICCID must be 19-20 digits${hint}`,
      );
      continue;
    }
    if (seen.has(iccid)) {
      fail(row, iccid, 'duplicate_in_file', 'the ICCID appears earlier in the file');
      continue;
    }
    seen.add(iccid);
    const provider = values.provider ? findProviderIn(lookup, values.provider) : undefined;
    if (!provider) {
      fail(
        row,
        iccid,
        'unknown_provider',
        values.provider ? `no provider "${values.provider}"` : 'provider is required',
      );
      continue;
    }
    const pkg = values.package ? findPackageIn(lookup, values.package) : undefined;
    if (values.package && !pkg) {
      fail(row, iccid, 'unknown_package', `no package "${values.package}"`);
      continue;
    }
    const operator = values.operator ? operatorOf(values.operator) : provider.operator;
    if (!operator) {
      fail(row, iccid, 'invalid', `unknown operator "${values.operator}"`);
      continue;
    }
    if (pkg && pkg.operator !== operator) {
      fail(row, iccid, 'invalid', `package ${pkg.code} is for ${pkg.operator}, the card is ${operator}`);
      continue;
    }
    const msisdn = values.phone ?? '';
    if (msisdn && !MSISDN.test(msisdn)) {
      fail(row, iccid, 'invalid', 'phone (msisdn) must be 5-20 digits');
      continue;
    }
    const imsi = values.imsi ?? '';
    if (imsi && !IMSI.test(imsi)) {
      fail(row, iccid, 'invalid', 'imsi must be 6-15 digits');
      continue;
    }
    candidates.push({ row, iccid, msisdn, imsi, operator, provider, pkg });
  }

  const logId = await deps.db.transaction(async (tx) => {
    const created: string[] = [];
    for (let i = 0; i < candidates.length; i += 500) {
      const chunk = candidates.slice(i, i + 500);
      const inserted = await tx
        .insert(simCards)
        .values(
          chunk.map((c) => ({
            iccid: c.iccid,
            msisdn: c.msisdn,
            imsi: c.imsi,
            operator: c.operator,
            providerId: c.provider.id,
            ...(c.pkg ? packageStart(c.pkg, now) : {}),
          })),
        )
        .onConflictDoNothing()
        .returning({ iccid: simCards.iccid });
      const ok = new Set(inserted.map((r) => r.iccid));
      for (const c of chunk) {
        if (ok.has(c.iccid)) created.push(c.iccid);
        else fail(c.row, c.iccid, 'duplicate', 'the ICCID already exists');
      }
    }
    failures.sort((a, b) => a.row - b.row);
    const [log] = await tx
      .insert(simCardLogs)
      .values({
        uid: actor.uid,
        source: 'batch',
        filename: filename.slice(0, 200),
        total: rows.length,
        created: created.length,
        failed: failures.length,
        failures,
        iccids: created,
      })
      .returning({ id: simCardLogs.id });
    if (!log) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'sim_card_batch',
      target: `sim-card-log:${log.id}`,
      ip: actor.ip,
      detail: { filename, total: rows.length, created: created.length, failed: failures.length },
    });
    return log.id;
  });
  return getCardLog(deps, actor, logId);
}

function toLogItem(row: typeof simCardLogs.$inferSelect, username: string | null): SimCardLogItem {
  return {
    id: row.id,
    uid: row.uid,
    username,
    source: row.source,
    filename: row.filename,
    total: row.total,
    created: row.created,
    failed: row.failed,
    createdat: row.createdat.toISOString(),
  };
}

export async function listCardLogs(
  deps: Deps,
  actor: Actor,
  query: { current: number; per_page: number },
): Promise<{ items: SimCardLogItem[]; total: number }> {
  requireAdmin(actor);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({
        id: simCardLogs.id,
        uid: simCardLogs.uid,
        source: simCardLogs.source,
        filename: simCardLogs.filename,
        total: simCardLogs.total,
        created: simCardLogs.created,
        failed: simCardLogs.failed,
        createdat: simCardLogs.createdat,
        username: users.username,
      })
      .from(simCardLogs)
      .leftJoin(users, eq(users.id, simCardLogs.uid))
      .orderBy(desc(simCardLogs.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(simCardLogs),
  ]);
  return {
    items: rows.map((r) => ({
      id: r.id,
      uid: r.uid,
      username: r.username,
      source: r.source,
      filename: r.filename,
      total: r.total,
      created: r.created,
      failed: r.failed,
      createdat: r.createdat.toISOString(),
    })),
    total: total?.n ?? 0,
  };
}

export async function getCardLog(deps: Deps, actor: Actor, id: number): Promise<SimCardLogDetail> {
  requireAdmin(actor);
  const [row] = await deps.db
    .select({ log: simCardLogs, username: users.username })
    .from(simCardLogs)
    .leftJoin(users, eq(users.id, simCardLogs.uid))
    .where(eq(simCardLogs.id, id));
  if (!row) throw new AppError(10107);
  return {
    ...toLogItem(row.log, row.username),
    failures: row.log.failures,
    iccids: row.log.iccids.slice(0, 10_000),
  };
}

// --- usage import ----------------------------------------------------------------------------------------------

export const USAGE_IMPORT_COLUMNS = ['iccid', 'date', 'used_mb'] as const;
const USAGE_ALIASES: Record<string, (typeof USAGE_IMPORT_COLUMNS)[number]> = {
  day: 'date',
  日期: 'date',
  used: 'used_mb',
  'used (mb)': 'used_mb',
  流量: 'used_mb',
  '用量(mb)': 'used_mb',
};
export function usageImportColumn(header: string): string | undefined {
  if ((USAGE_IMPORT_COLUMNS as readonly string[]).includes(header)) return header;
  return USAGE_ALIASES[header];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
function validDay(v: string): boolean {
  const m = DATE.exec(v);
  if (!m) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

/**
 * Daily usage rows (iccid, date YYYY-MM-DD, used_mb): each replaces that card's figure for that day; the months
 * touched are recomputed as the sum of their days, and the cards' flags refreshed.
 */
export async function importUsage(
  deps: Deps,
  actor: Actor,
  filename: string,
  rows: TableRow[],
): Promise<SimUsageImportResult> {
  requireAdmin(actor);
  const now = deps.now();
  const failures: SimUsageImportResult['failures'] = [];
  const iccids = [...new Set(rows.map((r) => r.values.iccid ?? '').filter(Boolean))];
  const cards = new Map<string, number>();
  for (let i = 0; i < iccids.length; i += 1000) {
    const found = await deps.db
      .select({ id: simCards.id, iccid: simCards.iccid })
      .from(simCards)
      .where(inArray(simCards.iccid, iccids.slice(i, i + 1000)));
    for (const c of found) cards.set(c.iccid, c.id);
  }
  const valid: { cardId: number; day: string; bytes: number }[] = [];
  for (const { row, values } of rows) {
    const iccid = values.iccid ?? '';
    const cardId = cards.get(iccid);
    if (cardId === undefined) {
      failures.push({ row, iccid, message: 'no such card' });
      continue;
    }
    const day = values.date ?? '';
    if (!validDay(day)) {
      failures.push({ row, iccid, message: 'date must be YYYY-MM-DD' });
      continue;
    }
    if (day > monthOf(now) + '-31') {
      failures.push({ row, iccid, message: 'date is in the future' });
      continue;
    }
    const mb = Number(values.used_mb);
    if (values.used_mb === undefined || !Number.isFinite(mb) || mb < 0 || mb > 10_000_000) {
      failures.push({ row, iccid, message: 'used_mb must be a number of MB, 0 or more' });
      continue;
    }
    valid.push({ cardId, day, bytes: Math.round(mb * MB) });
  }
  await deps.db.transaction(async (tx) => {
    for (const v of valid) {
      await tx
        .insert(simUsageDaily)
        .values({ cardId: v.cardId, day: v.day, usedBytes: v.bytes, source: 'import' })
        .onConflictDoUpdate({
          target: [simUsageDaily.cardId, simUsageDaily.day],
          set: { usedBytes: v.bytes, source: 'import', updatedat: now },
        });
    }
    const months = new Map<string, { cardId: number; month: string }>();
    for (const v of valid)
      months.set(`${v.cardId}:${v.day.slice(0, 7)}`, { cardId: v.cardId, month: v.day.slice(0, 7) });
    for (const { cardId, month } of months.values()) {
      await tx.execute(sql`
        insert into ${simUsageMonthly} (card_id, month, used_bytes, source)
        select ${cardId}, ${month}, coalesce(sum(used_bytes), 0), 'import' from ${simUsageDaily}
        where card_id = ${cardId} and to_char(day, 'YYYY-MM') = ${month}
        on conflict (card_id, month) do update set used_bytes = excluded.used_bytes, source = 'import', updatedat = now()`);
    }
    await refreshExhausted(tx, [...new Set(valid.map((v) => v.cardId))], now);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'sim_usage_import',
      target: 'sim-usage',
      ip: actor.ip,
      detail: { filename, total: rows.length, imported: valid.length, failed: failures.length },
    });
  });
  return { total: rows.length, imported: valid.length, failures };
}
