/**
 * The message box (docs/inbox.md). Producers (the alert engine, the OTA engine, the SIM reminder pass) call
 * `addInboxMessages` with the transaction that records what happened, so a message exists exactly when its event
 * committed. Readers act on themselves only: every user, admins included, sees and marks her own messages.
 */
import { and, count, desc, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import {
  INBOX_CATEGORIES,
  INBOX_CATEGORY_OF,
  type InboxCategory,
  type InboxItem,
  type inboxListQuery,
  type InboxKind,
  type InboxReadBody,
  type InboxTargetType,
  type InboxUnread,
} from '@cellhub/contract/inbox';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { actingOnSelf } from '../../lib/authz';
import { AppError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { type InboxMessageRow, inboxMessages } from './inbox.table';

export interface InboxMessage {
  uid: number;
  kind: InboxKind;
  params: Record<string, string | number>;
  target?: { type: InboxTargetType; key: string };
  /** Written once per user and key (a producer that may run twice passes one). */
  dedupeKey?: string;
}

/** Writes the messages (inside the producer's transaction); a repeated `dedupeKey` of a user is skipped. */
export async function addInboxMessages(db: DbOrTx, messages: readonly InboxMessage[]): Promise<number> {
  if (messages.length === 0) return 0;
  const rows = await db
    .insert(inboxMessages)
    .values(
      messages.map((m) => ({
        uid: m.uid,
        kind: m.kind,
        category: INBOX_CATEGORY_OF[m.kind],
        params: m.params,
        targetType: m.target?.type ?? null,
        targetKey: m.target?.key ?? null,
        dedupeKey: m.dedupeKey ?? null,
      })),
    )
    .onConflictDoNothing()
    .returning({ id: inboxMessages.id });
  return rows.length;
}

function toItem(r: InboxMessageRow): InboxItem {
  return {
    id: r.id,
    kind: r.kind,
    category: r.category,
    params: r.params,
    target_type: r.targetType,
    target_key: r.targetKey,
    created_at: r.createdat.toISOString(),
    read_at: r.readAt ? r.readAt.toISOString() : null,
  };
}

export async function listInbox(
  deps: Deps,
  actor: Actor,
  query: z.output<typeof inboxListQuery>,
): Promise<{ items: InboxItem[]; total: number }> {
  const uid = actingOnSelf(actor);
  const where = and(
    eq(inboxMessages.uid, uid),
    query.category ? eq(inboxMessages.category, query.category) : undefined,
    query.unread === 1 ? isNull(inboxMessages.readAt) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(inboxMessages)
      .where(where)
      .orderBy(desc(inboxMessages.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(inboxMessages).where(where),
  ]);
  return { items: rows.map(toItem), total: total?.n ?? 0 };
}

export async function unreadCounts(deps: Deps, actor: Actor): Promise<InboxUnread> {
  const uid = actingOnSelf(actor);
  const rows = await deps.db
    .select({ category: inboxMessages.category, n: count() })
    .from(inboxMessages)
    .where(and(eq(inboxMessages.uid, uid), isNull(inboxMessages.readAt)))
    .groupBy(inboxMessages.category);
  const out: InboxUnread = { total: 0, alert: 0, ota: 0, sim: 0 };
  for (const r of rows) {
    if (!(INBOX_CATEGORIES as readonly string[]).includes(r.category)) continue;
    out[r.category as InboxCategory] += r.n;
    out.total += r.n;
  }
  return out;
}

/** Marks one message read (idempotent); another user's message answers 10107 like a missing one. */
export async function readMessage(deps: Deps, actor: Actor, id: number): Promise<InboxItem> {
  const uid = actingOnSelf(actor);
  const mine = and(eq(inboxMessages.id, id), eq(inboxMessages.uid, uid));
  const [updated] = await deps.db
    .update(inboxMessages)
    .set({ readAt: deps.now() })
    .where(and(mine, isNull(inboxMessages.readAt)))
    .returning();
  if (updated) return toItem(updated);
  const [row] = await deps.db.select().from(inboxMessages).where(mine);
  if (!row) throw new AppError(10107);
  return toItem(row);
}

/** Marks the given messages of the caller read, or all of them (of one tab when `category` is set). */
export async function readMessages(deps: Deps, actor: Actor, body: InboxReadBody): Promise<number> {
  const uid = actingOnSelf(actor);
  const c: (SQL | undefined)[] = [eq(inboxMessages.uid, uid), isNull(inboxMessages.readAt)];
  if (body.ids) c.push(inArray(inboxMessages.id, body.ids));
  if (body.category) c.push(eq(inboxMessages.category, body.category));
  const done = await deps.db
    .update(inboxMessages)
    .set({ readAt: deps.now() })
    .where(and(...c))
    .returning({ id: inboxMessages.id });
  return done.length;
}
