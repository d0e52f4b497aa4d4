import { and, asc, count, desc, eq, ilike, or } from 'drizzle-orm';
import {
  checkCommandValue,
  type UserCommandItem,
  type UserCommandListQuery,
  type UserCommandResult,
  type UserCommandRun,
  type UserCommandRunSummary,
  type userCommandBody,
  type userCommandUpdateBody,
} from '@cellhub/contract/user-commands';
import type { CommandType } from '@cellhub/contract/protocol';
import type { z } from 'zod';
import { AppError } from '../../lib/app-error';
import { countPerId, likeKeyword, ownedPage } from '../../lib/paging';
import { findVisibleOwned, ownerOfNew } from '../../lib/authz';
import { writeAudit } from '../audit/audit.service';
import type { Actor, Deps } from '../../lib/deps';
import { deviceCommands } from '../commands/commands.table';
import { sendCommand } from '../commands/commands.service';
import {
  userCommandResults,
  userCommandRuns,
  type UserCommandRow,
  userCommands,
} from './user-commands.table';

/** Sends of one run go out this many at a time: fast for a few hundred devices, gentle on the pool. */
const SEND_CONCURRENCY = 8;

function toItem(row: UserCommandRow, runs: number): UserCommandItem {
  return {
    id: row.id,
    uid: row.uid,
    name: row.name,
    type: row.type,
    data: row.data,
    description: row.description,
    runs,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

/** Seed codes: 90000 nothing entered, 90001 blanks only, 70003 bad hex; `details` names the field. */
function checkData(type: CommandType, data: string | undefined): string {
  const problem = checkCommandValue(type, data);
  if (problem) throw new AppError(problem.code, 400, undefined, [{ field: 'data', message: problem.reason }]);
  return data as string;
}

/** The command if the actor may use it; otherwise 10107, exactly as if it did not exist. */
async function visibleCommand(deps: Deps, actor: Actor, id: number): Promise<UserCommandRow> {
  return findVisibleOwned(deps.db, actor, userCommands, id, 10107);
}

const runCounts = (deps: Deps, ids: number[]) => countPerId(deps, userCommandRuns.userCommandId, ids);

export async function listUserCommands(
  deps: Deps,
  actor: Actor,
  query: UserCommandListQuery,
): Promise<{ items: UserCommandItem[]; total: number }> {
  const like = query.keyword ? likeKeyword(query.keyword) : undefined;
  const filter = like ? or(ilike(userCommands.name, like), ilike(userCommands.data, like)) : undefined;
  const { rows, total } = await ownedPage(deps, userCommands, actor, query, filter);
  const runs = await runCounts(
    deps,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toItem(r, runs.get(r.id) ?? 0)), total };
}

export async function getUserCommand(deps: Deps, actor: Actor, id: number): Promise<UserCommandItem> {
  const row = await visibleCommand(deps, actor, id);
  return toItem(row, (await runCounts(deps, [id])).get(id) ?? 0);
}

export async function createUserCommand(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof userCommandBody>,
): Promise<UserCommandItem> {
  const data = checkData(body.type, body.data);
  const row = await deps.db.transaction(async (tx) => {
    const [made] = await tx
      .insert(userCommands)
      .values({
        uid: ownerOfNew(actor),
        name: body.name,
        type: body.type,
        data,
        description: body.description,
      })
      .returning();
    if (!made) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'user_command_create',
      target: `user-command:${made.id}`,
      ip: actor.ip,
      detail: { name: made.name },
    });
    return made;
  });
  return toItem(row, 0);
}

export async function updateUserCommand(
  deps: Deps,
  actor: Actor,
  id: number,
  body: z.output<typeof userCommandUpdateBody>,
): Promise<UserCommandItem> {
  const current = await visibleCommand(deps, actor, id);
  const type = body.type ?? current.type;
  // A type change re-checks the stored data too: a string command turned hex must hold hex.
  const data =
    body.data !== undefined || body.type !== undefined
      ? checkData(type, body.data ?? current.data)
      : current.data;
  const row = await deps.db.transaction(async (tx) => {
    const [changed] = await tx
      .update(userCommands)
      .set({
        name: body.name ?? current.name,
        type,
        data,
        description: body.description ?? current.description,
      })
      .where(eq(userCommands.id, id))
      .returning();
    if (!changed) throw new AppError(10110);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'user_command_update',
      target: `user-command:${id}`,
      ip: actor.ip,
      detail: { name: changed.name },
    });
    return changed;
  });
  return toItem(row, (await runCounts(deps, [id])).get(id) ?? 0);
}

export async function deleteUserCommand(deps: Deps, actor: Actor, id: number): Promise<void> {
  await visibleCommand(deps, actor, id);
  await deps.db.transaction(async (tx) => {
    await tx.delete(userCommands).where(eq(userCommands.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'user_command_delete',
      target: `user-command:${id}`,
      ip: actor.ip,
    });
  });
}

type SendOutcome = {
  sn: string;
  commandId: string | null;
  status: 'sent' | 'offline' | 'failed' | 'not_found';
  code: number | null;
};

/** Runs `fn` over `items` with at most `limit` in flight, keeping the order of the answers. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Sends the saved command to each device through the device commands service (which checks ownership, records the
 * command, writes the device log and audit row, and publishes device.command events), and records the run.
 * A device that is not the caller's is reported `not_found` (10117) like one that does not exist.
 */
export async function sendUserCommand(
  deps: Deps,
  actor: Actor,
  id: number,
  sns: string[],
): Promise<UserCommandRun> {
  const cmd = await visibleCommand(deps, actor, id);
  const [run] = await deps.db
    .insert(userCommandRuns)
    .values({ userCommandId: cmd.id, uid: actor.uid, type: cmd.type, data: cmd.data, total: sns.length })
    .returning();
  if (!run) throw new AppError(10109);
  const outcomes = await mapLimited(sns, SEND_CONCURRENCY, async (sn): Promise<SendOutcome> => {
    try {
      const sent = await sendCommand(deps, actor, sn, { type: cmd.type, data: cmd.data });
      return { sn, commandId: sent.id, status: 'sent', code: 0 };
    } catch (err) {
      if (err instanceof AppError && err.code === 20401)
        return { sn, commandId: null, status: 'offline', code: 20401 };
      if (err instanceof AppError && err.code === 10117)
        return { sn, commandId: null, status: 'not_found', code: 10117 };
      deps.log.warn({ err, sn }, 'user command send failed');
      return { sn, commandId: null, status: 'failed', code: err instanceof AppError ? err.code : 10101 };
    }
  });
  await deps.db.insert(userCommandResults).values(
    outcomes.map((o, position) => ({
      runId: run.id,
      position,
      sn: o.sn,
      commandId: o.commandId,
      status: o.status,
      code: o.code,
    })),
  );
  return { ...toSummary(run), results: await runResults(deps, run.id) };
}

function toSummary(run: typeof userCommandRuns.$inferSelect): UserCommandRunSummary {
  return {
    id: run.id,
    user_command_id: run.userCommandId,
    type: run.type,
    data: run.data,
    total: run.total,
    createdat: run.createdat.toISOString(),
  };
}

async function runResults(deps: Deps, runId: number): Promise<UserCommandResult[]> {
  const rows = await deps.db
    .select({ r: userCommandResults, c: deviceCommands })
    .from(userCommandResults)
    .leftJoin(deviceCommands, eq(deviceCommands.id, userCommandResults.commandId))
    .where(eq(userCommandResults.runId, runId))
    .orderBy(asc(userCommandResults.position));
  return rows.map(({ r, c }) => {
    // The device command row carries what happened after sending: replied, timeout or failed.
    const status = r.status === 'sent' && c ? c.status : r.status;
    return {
      sn: r.sn,
      command_id: r.commandId,
      status,
      // Once the device command has ended, its code (the device's on a reply; none for a timeout, an expiry or a
      // cancel), not the 0 that said "sent".
      code: c && c.status !== 'sent' && c.status !== 'pending' ? c.code : r.code,
      reply: c?.reply ?? null,
      repliedat: c?.repliedat ? c.repliedat.toISOString() : null,
      latency_ms: c?.repliedat ? c.repliedat.getTime() - c.sentat.getTime() : null,
    };
  });
}

export async function listRuns(
  deps: Deps,
  actor: Actor,
  id: number,
  page: { current: number; per_page: number },
): Promise<{ items: UserCommandRunSummary[]; total: number }> {
  await visibleCommand(deps, actor, id);
  const where = eq(userCommandRuns.userCommandId, id);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(userCommandRuns)
      .where(where)
      .orderBy(desc(userCommandRuns.id))
      .limit(page.per_page)
      .offset((page.current - 1) * page.per_page),
    deps.db.select({ n: count() }).from(userCommandRuns).where(where),
  ]);
  return { items: rows.map(toSummary), total: total?.n ?? 0 };
}

export async function getRun(deps: Deps, actor: Actor, id: number, runId: number): Promise<UserCommandRun> {
  await visibleCommand(deps, actor, id);
  const [run] = await deps.db
    .select()
    .from(userCommandRuns)
    .where(and(eq(userCommandRuns.id, runId), eq(userCommandRuns.userCommandId, id)));
  if (!run) throw new AppError(10107);
  return { ...toSummary(run), results: await runResults(deps, run.id) };
}
