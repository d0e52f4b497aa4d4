import { and, asc, count, desc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import {
  checkCommandDefinition,
  type CommandGroupDetail,
  type CommandGroupItem,
  type CommandGroupListQuery,
  type CommandProblem,
  type commandGroupBody,
  type commandGroupUpdateBody,
  type DeviceCommandGroup,
  type GroupCommandItem,
  type groupCommandBody,
  type groupCommandSendBody,
  renderCommand,
} from '@cellhub/contract/command-groups';
import type { CommandItem } from '@cellhub/contract/devices';
import type { z } from 'zod';
import { AppError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { sendCommand } from '../commands/commands.service';
import { accessibleDevice } from '../devices/device-access';
import { panelEnabled } from '../product-features/product-features.service';
import { products } from '../products/products.table';
import {
  type CommandGroupRow,
  commandGroups,
  type GroupCommandRow,
  groupCommands,
} from './command-groups.table';

/**
 * Command groups: admins define them per product; whoever may control a device lists its product's groups and sends
 * their commands, rendered from the template and the parameter values by the contract's functions, through the
 * device command path (modules/commands) with the command marked as coming from here.
 */

interface ProductName {
  productKey: string;
  name: string;
}

function toGroupItem(row: CommandGroupRow, product: ProductName, commands: number): CommandGroupItem {
  return {
    id: row.id,
    product_key: product.productKey,
    product_name: product.name,
    name: row.name,
    description: row.description,
    command_count: commands,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

function toCommandItem(row: GroupCommandRow): GroupCommandItem {
  return {
    id: row.id,
    group_id: row.groupId,
    name: row.name,
    type: row.type,
    data: row.data,
    params: row.params,
    reply_pattern: row.replyPattern,
    timeout_s: row.timeoutS,
    description: row.description,
    createdat: row.createdat.toISOString(),
    updatedat: row.updatedat.toISOString(),
  };
}

/** The seed's code of the first problem, with every problem in `details` (field and reason). */
function refuse(problems: CommandProblem[]): never {
  const first = problems[0];
  throw new AppError(
    first?.code ?? 70003,
    400,
    undefined,
    problems.map((p) => ({ field: p.field, message: p.reason })),
  );
}

async function productByKey(deps: Deps, productKey: string) {
  const [row] = await deps.db
    .select({ id: products.id, productKey: products.productKey, name: products.name })
    .from(products)
    .where(eq(products.productKey, productKey));
  if (!row)
    throw new AppError(10107, 400, 'No product with this product_key', [
      { field: 'product_key', message: 'not found' },
    ]);
  return row;
}

/** The group with its product's key and name; 10107 when there is none. */
async function groupById(deps: Deps, id: number) {
  const [row] = await deps.db
    .select({ group: commandGroups, productKey: products.productKey, name: products.name })
    .from(commandGroups)
    .innerJoin(products, eq(products.id, commandGroups.productId))
    .where(eq(commandGroups.id, id));
  if (!row) throw new AppError(10107);
  return { group: row.group, product: { productKey: row.productKey, name: row.name } };
}

async function commandCounts(deps: Deps, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await deps.db
    .select({ id: groupCommands.groupId, n: count() })
    .from(groupCommands)
    .where(inArray(groupCommands.groupId, ids))
    .groupBy(groupCommands.groupId);
  return new Map(rows.map((r) => [r.id, r.n]));
}

export async function listCommandGroups(
  deps: Deps,
  actor: Actor,
  query: CommandGroupListQuery,
): Promise<{ items: CommandGroupItem[]; total: number }> {
  requireAdmin(actor);
  const filters: (SQL | undefined)[] = [];
  if (query.product_key) filters.push(eq(products.productKey, query.product_key));
  if (query.keyword) filters.push(ilike(commandGroups.name, likeKeyword(query.keyword)));
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({ group: commandGroups, productKey: products.productKey, name: products.name })
      .from(commandGroups)
      .innerJoin(products, eq(products.id, commandGroups.productId))
      .where(where)
      .orderBy(desc(commandGroups.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db
      .select({ n: count() })
      .from(commandGroups)
      .innerJoin(products, eq(products.id, commandGroups.productId))
      .where(where),
  ]);
  const counts = await commandCounts(
    deps,
    rows.map((r) => r.group.id),
  );
  return {
    items: rows.map((r) => toGroupItem(r.group, r, counts.get(r.group.id) ?? 0)),
    total: total?.n ?? 0,
  };
}

async function commandsOf(deps: Deps, groupIds: number[]): Promise<GroupCommandRow[]> {
  if (groupIds.length === 0) return [];
  return deps.db
    .select()
    .from(groupCommands)
    .where(inArray(groupCommands.groupId, groupIds))
    .orderBy(asc(groupCommands.id));
}

export async function getCommandGroup(deps: Deps, actor: Actor, id: number): Promise<CommandGroupDetail> {
  requireAdmin(actor);
  const { group, product } = await groupById(deps, id);
  const commands = await commandsOf(deps, [id]);
  return { ...toGroupItem(group, product, commands.length), commands: commands.map(toCommandItem) };
}

export async function createCommandGroup(
  deps: Deps,
  actor: Actor,
  body: z.output<typeof commandGroupBody>,
): Promise<CommandGroupItem> {
  requireAdmin(actor);
  const product = await productByKey(deps, body.product_key);
  const row = await deps.db.transaction(async (tx) => {
    const [made] = await tx
      .insert(commandGroups)
      .values({ productId: product.id, name: body.name, description: body.description })
      .returning();
    if (!made) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'command_group_create',
      target: `command-group:${made.id}`,
      ip: actor.ip,
      detail: { name: made.name, product_key: product.productKey },
    });
    return made;
  });
  return toGroupItem(row, product, 0);
}

export async function updateCommandGroup(
  deps: Deps,
  actor: Actor,
  id: number,
  body: z.output<typeof commandGroupUpdateBody>,
): Promise<CommandGroupItem> {
  requireAdmin(actor);
  const { product } = await groupById(deps, id);
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(commandGroups)
      .set({
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        updatedat: deps.now(),
      })
      .where(eq(commandGroups.id, id))
      .returning();
    if (!updated) throw new AppError(10107);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'command_group_update',
      target: `command-group:${id}`,
      ip: actor.ip,
      detail: { name: updated.name },
    });
    return updated;
  });
  return toGroupItem(row, product, (await commandCounts(deps, [id])).get(id) ?? 0);
}

/** Deletes the group and its commands; commands already sent stay in each device's history with their names. */
export async function deleteCommandGroup(deps: Deps, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await groupById(deps, id);
  await deps.db.transaction(async (tx) => {
    await tx.delete(commandGroups).where(eq(commandGroups.id, id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'command_group_delete',
      target: `command-group:${id}`,
      ip: actor.ip,
    });
  });
}

function checkDefinition(body: z.output<typeof groupCommandBody>): string {
  const problems = checkCommandDefinition(body);
  if (problems.length > 0) refuse(problems);
  return body.data as string;
}

async function commandOfGroup(deps: Deps, groupId: number, cmdId: number): Promise<GroupCommandRow> {
  const [row] = await deps.db
    .select()
    .from(groupCommands)
    .where(and(eq(groupCommands.id, cmdId), eq(groupCommands.groupId, groupId)));
  if (!row) throw new AppError(10107);
  return row;
}

export async function getGroupCommand(
  deps: Deps,
  actor: Actor,
  groupId: number,
  cmdId: number,
): Promise<GroupCommandItem> {
  requireAdmin(actor);
  return toCommandItem(await commandOfGroup(deps, groupId, cmdId));
}

export async function createGroupCommand(
  deps: Deps,
  actor: Actor,
  groupId: number,
  body: z.output<typeof groupCommandBody>,
): Promise<GroupCommandItem> {
  requireAdmin(actor);
  await groupById(deps, groupId);
  const data = checkDefinition(body);
  const row = await deps.db.transaction(async (tx) => {
    const [made] = await tx
      .insert(groupCommands)
      .values({
        groupId,
        name: body.name,
        type: body.type,
        data,
        params: body.params,
        replyPattern: body.reply_pattern,
        timeoutS: body.timeout_s,
        description: body.description,
      })
      .returning();
    if (!made) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'group_command_create',
      target: `command-group:${groupId}`,
      ip: actor.ip,
      detail: { id: made.id, name: made.name },
    });
    return made;
  });
  return toCommandItem(row);
}

/** Replaces the definition (the edit page sends all of it); history keeps what was sent before. */
export async function updateGroupCommand(
  deps: Deps,
  actor: Actor,
  groupId: number,
  cmdId: number,
  body: z.output<typeof groupCommandBody>,
): Promise<GroupCommandItem> {
  requireAdmin(actor);
  await commandOfGroup(deps, groupId, cmdId);
  const data = checkDefinition(body);
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(groupCommands)
      .set({
        name: body.name,
        type: body.type,
        data,
        params: body.params,
        replyPattern: body.reply_pattern,
        timeoutS: body.timeout_s,
        description: body.description,
        updatedat: deps.now(),
      })
      .where(eq(groupCommands.id, cmdId))
      .returning();
    if (!updated) throw new AppError(10107);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'group_command_update',
      target: `command-group:${groupId}`,
      ip: actor.ip,
      detail: { id: cmdId, name: updated.name },
    });
    return updated;
  });
  return toCommandItem(row);
}

export async function deleteGroupCommand(
  deps: Deps,
  actor: Actor,
  groupId: number,
  cmdId: number,
): Promise<void> {
  requireAdmin(actor);
  await commandOfGroup(deps, groupId, cmdId);
  await deps.db.transaction(async (tx) => {
    await tx.delete(groupCommands).where(eq(groupCommands.id, cmdId));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'group_command_delete',
      target: `command-group:${groupId}`,
      ip: actor.ip,
      detail: { id: cmdId },
    });
  });
}

// --- on a device --------------------------------------------------------------------------------------------------

/**
 * The product's command groups, for whoever may control the device (10117 unseen, 10108 view only). None when the
 * product's features leave the command groups panel out (modules/product-features `panelEnabled`).
 */
export async function deviceCommandGroups(
  deps: Deps,
  actor: Actor,
  sn: string,
): Promise<DeviceCommandGroup[]> {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  const [product] = await deps.db
    .select({ id: products.id })
    .from(products)
    .where(eq(products.productKey, device.productKey));
  if (!product || !(await panelEnabled(deps.db, product.id, 'command_groups'))) return [];
  const groups = await deps.db
    .select({ group: commandGroups })
    .from(commandGroups)
    .innerJoin(products, eq(products.id, commandGroups.productId))
    .where(eq(products.productKey, device.productKey))
    .orderBy(asc(commandGroups.id));
  const commands = await commandsOf(
    deps,
    groups.map((g) => g.group.id),
  );
  return groups.map(({ group }) => ({
    id: group.id,
    name: group.name,
    description: group.description,
    commands: commands.filter((c) => c.groupId === group.id).map(toCommandItem),
  }));
}

/**
 * Renders the predefined command with the values (each checked against its definition: 90000 missing, 90001 blank,
 * 70003 invalid, `details` naming `params.<name>`) and sends it through the device command path, marked with the
 * group and command names and replied within the command's timeout. The command must belong to a group of the
 * device's product (10107 otherwise, as if it did not exist).
 */
export async function sendGroupCommand(
  deps: Deps,
  actor: Actor,
  sn: string,
  cmdId: number,
  body: z.output<typeof groupCommandSendBody>,
): Promise<CommandItem> {
  const device = await accessibleDevice(deps.db, actor, sn, 'control');
  const [row] = await deps.db
    .select({ command: groupCommands, group: commandGroups.name, productId: products.id })
    .from(groupCommands)
    .innerJoin(commandGroups, eq(commandGroups.id, groupCommands.groupId))
    .innerJoin(products, eq(products.id, commandGroups.productId))
    .where(and(eq(groupCommands.id, cmdId), eq(products.productKey, device.productKey)));
  // A product whose features leave the panel out offers no predefined commands: as if there were none.
  if (!row || !(await panelEnabled(deps.db, row.productId, 'command_groups'))) throw new AppError(10107);
  const cmd = row.command;
  const { data, problems } = renderCommand(cmd, body.params);
  if (problems.length > 0) refuse(problems);
  return sendCommand(
    deps,
    actor,
    sn,
    {
      type: cmd.type,
      data,
      offline: body.offline,
      ...(body.ttl_seconds !== undefined ? { ttl_seconds: body.ttl_seconds } : {}),
    },
    {
      ref: { group_id: cmd.groupId, command_id: cmd.id, group: row.group, name: cmd.name },
      timeoutMs: cmd.timeoutS * 1000,
    },
  );
}
