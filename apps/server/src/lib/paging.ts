import { and, count, desc, inArray, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { ownerFilter } from './authz';
import type { Actor, Deps } from './deps';

export interface PageQuery {
  current: number;
  per_page: number;
}

/** `%keyword%` for ILIKE, with the keyword's own `%`, `_` and `\` matched literally. */
export const likeKeyword = (keyword: string): string => `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of a per-user table the actor may see (newest id first), with the total the filter matches.
 * Both queries share one WHERE so the total always counts the rows being paged.
 */
export async function ownedPage<T extends PgTable & { id: PgColumn; uid: PgColumn }>(
  deps: Deps,
  table: T,
  actor: Actor,
  query: PageQuery,
  filter?: SQL,
): Promise<{ rows: T['$inferSelect'][]; total: number }> {
  const where = and(ownerFilter(actor, table.uid), filter);
  // drizzle's from() cannot check a still-generic table; the plain PgTable view of it is accepted.
  const source: PgTable = table;
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(source)
      .where(where)
      .orderBy(desc(table.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(source).where(where),
  ]);
  // Through the PgTable view the row type is lost; `select()` of the whole table is exactly T's $inferSelect.
  return { rows: rows as T['$inferSelect'][], total: total?.n ?? 0 };
}

/** How many rows of `fk`'s table point at each of `ids` (ids with none are absent from the map). */
export async function countPerId(deps: Deps, fk: PgColumn, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await deps.db
    .select({ id: fk, n: count() })
    .from(fk.table)
    .where(inArray(fk, ids))
    .groupBy(fk);
  return new Map(rows.map((r) => [r.id as number, r.n]));
}
