import { randomInt, timingSafeEqual } from 'node:crypto';
import { and, count, desc, eq, gt, ilike, inArray, isNull, or, sql } from 'drizzle-orm';
import {
  ALERT_CODE_TTL_S,
  type AlertCodeSent,
  type AlertContactItem,
  type alertContactListQuery,
  type AlertContactParsed,
  type AlertVerifyChannel,
} from '@cellhub/contract/alerts';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError, formError } from '../../lib/app-error';
import type { Actor, Deps } from '../../lib/deps';
import { likeKeyword, ownedPage } from '../../lib/paging';
import { findVisibleOwned, ownerOfNew } from '../../lib/authz';
import { normalizePhone } from '../../lib/phone';
import { writeAudit } from '../audit/audit.service';
import { sendNow } from '../notify/notify.service';
import { consume, type Limit } from '../rate-limit/rate-limit.service';
import {
  alertConfigContacts,
  alertContactCodes,
  alertContacts,
  type AlertContactRow,
  alertTriggerContacts,
} from './alerts.table';

const CODE_TTL_MS = ALERT_CODE_TTL_S * 1000;
const MAX_ATTEMPTS = 5;

/** Codes per contact and channel: 1 a minute, 10 a day; per address 10 a day (one phone behind many contacts). */
const CODE_LIMITS = (
  contactId: number,
  channel: AlertVerifyChannel,
  target: string,
  uid: number,
): Limit[] => [
  { key: `alert-code:m:${contactId}:${channel}`, max: 1, windowSeconds: 60 },
  { key: `alert-code:d:${contactId}:${channel}`, max: 10, windowSeconds: 86_400 },
  { key: `alert-code:t:${channel}:${target.toLowerCase()}`, max: 10, windowSeconds: 86_400 },
  { key: `alert-code:u:${uid}`, max: 60, windowSeconds: 3600 },
];

function toItem(c: AlertContactRow, usedBy: number): AlertContactItem {
  return {
    id: c.id,
    uid: c.uid,
    name: c.name,
    phone: c.phone,
    email: c.email,
    phone_verified: c.phoneVerified,
    email_verified: c.emailVerified,
    remark: c.remark,
    used_by: usedBy,
    createdat: c.createdat.toISOString(),
    updatedat: c.updatedat.toISOString(),
  };
}

/** Triggers plus configurations sending to each contact. */
async function usage(db: DbOrTx, ids: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (ids.length === 0) return out;
  const [t, c] = await Promise.all([
    db
      .select({ id: alertTriggerContacts.contactId, n: count() })
      .from(alertTriggerContacts)
      .where(inArray(alertTriggerContacts.contactId, ids))
      .groupBy(alertTriggerContacts.contactId),
    db
      .select({ id: alertConfigContacts.contactId, n: count() })
      .from(alertConfigContacts)
      .where(inArray(alertConfigContacts.contactId, ids))
      .groupBy(alertConfigContacts.contactId),
  ]);
  for (const r of [...t, ...c]) out.set(r.id, (out.get(r.id) ?? 0) + r.n);
  return out;
}

/** The contact if the actor may see it (owner or admin), else 10107 as if it did not exist. */
export async function visibleContact(deps: Deps, actor: Actor, id: number): Promise<AlertContactRow> {
  return findVisibleOwned(deps.db, actor, alertContacts, id, 10107);
}

/**
 * Checks that every id is a contact of `uid` (a trigger's or configuration's owner: admins too attach only the
 * owner's contacts). 10107 names the others in `details` without telling whether they exist.
 */
export async function assertOwnContacts(db: DbOrTx, uid: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await db
    .select({ id: alertContacts.id })
    .from(alertContacts)
    .where(and(inArray(alertContacts.id, ids), eq(alertContacts.uid, uid)));
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new AppError(10107, 400, 'Contact does not exist', [
      { field: 'contact_ids', message: `not found: ${missing.join(',')}` },
    ]);
  }
}

export async function contactRefs(db: DbOrTx, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: alertContacts.id, name: alertContacts.name })
    .from(alertContacts)
    .where(inArray(alertContacts.id, ids));
  return new Map(rows.map((r) => [r.id, r.name]));
}

export async function listContacts(
  deps: Deps,
  actor: Actor,
  query: z.infer<typeof alertContactListQuery>,
): Promise<{ items: AlertContactItem[]; total: number }> {
  const filter = query.keyword
    ? or(
        ilike(alertContacts.name, likeKeyword(query.keyword)),
        ilike(alertContacts.phone, likeKeyword(query.keyword)),
        ilike(alertContacts.email, likeKeyword(query.keyword)),
      )
    : undefined;
  const { rows, total } = await ownedPage(deps, alertContacts, actor, query, filter);
  const used = await usage(
    deps.db,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toItem(r, used.get(r.id) ?? 0)), total };
}

export async function getContact(deps: Deps, actor: Actor, id: number): Promise<AlertContactItem> {
  const row = await visibleContact(deps, actor, id);
  const used = await usage(deps.db, [row.id]);
  return toItem(row, used.get(row.id) ?? 0);
}

const normalized = (input: AlertContactParsed) => ({
  name: input.name,
  phone: input.phone ? normalizePhone(input.phone) : '',
  email: input.email.toLowerCase(),
  remark: input.remark,
});

export async function createContact(
  deps: Deps,
  actor: Actor,
  input: AlertContactParsed,
): Promise<AlertContactItem> {
  const values = normalized(input);
  const row = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(alertContacts)
      .values({ ...values, uid: ownerOfNew(actor) })
      .returning();
    if (!created) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_contact_create',
      target: `alert_contact:${created.id}`,
      ip: actor.ip,
      detail: { name: values.name },
    });
    return created;
  });
  return toItem(row, 0);
}

/** A changed phone or email loses its verification: codes went to the old address. */
export async function updateContact(
  deps: Deps,
  actor: Actor,
  id: number,
  input: AlertContactParsed,
): Promise<AlertContactItem> {
  const contact = await visibleContact(deps, actor, id);
  const values = normalized(input);
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(alertContacts)
      .set({
        ...values,
        phoneVerified: values.phone === contact.phone ? contact.phoneVerified : false,
        emailVerified: values.email === contact.email ? contact.emailVerified : false,
      })
      .where(eq(alertContacts.id, contact.id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_contact_update',
      target: `alert_contact:${contact.id}`,
      ip: actor.ip,
      detail: {
        phone_changed: values.phone !== contact.phone,
        email_changed: values.email !== contact.email,
      },
    });
    return updated ?? contact;
  });
  return getContact(deps, actor, row.id);
}

/** Removes the contact from every trigger and configuration (the links cascade); past deliveries stay. */
export async function deleteContact(deps: Deps, actor: Actor, id: number): Promise<void> {
  const contact = await visibleContact(deps, actor, id);
  await deps.db.transaction(async (tx) => {
    await tx.delete(alertContacts).where(eq(alertContacts.id, contact.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_contact_delete',
      target: `alert_contact:${contact.id}`,
      ip: actor.ip,
      detail: { name: contact.name },
    });
  });
}

const targetOf = (c: AlertContactRow, channel: AlertVerifyChannel) => (channel === 'sms' ? c.phone : c.email);
const codeHash = (
  deps: Deps,
  c: AlertContactRow,
  channel: AlertVerifyChannel,
  target: string,
  code: string,
) => deps.box.hmac(`alert-contact:${c.id}:${channel}:${target}:${code}`);

/**
 * Sends a 6-digit code to the contact's phone or email at once (sendNow), after the rate limits. The code is stored
 * only as a keyed hash bound to the address; the delivery row is recorded without it (notify redacts codes).
 */
export async function sendContactCode(
  deps: Deps,
  actor: Actor,
  id: number,
  channel: AlertVerifyChannel,
): Promise<AlertCodeSent> {
  const contact = await visibleContact(deps, actor, id);
  const target = targetOf(contact, channel);
  if (!target) throw formError(channel === 'sms' ? 'phone' : 'email', 'empty');
  const now = deps.now();
  await consume(deps.db, CODE_LIMITS(contact.id, channel, target, actor.uid), now);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const [row] = await deps.db
    .insert(alertContactCodes)
    .values({
      contactId: contact.id,
      channel,
      target,
      codeHash: codeHash(deps, contact, channel, target, code),
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    })
    .returning({ id: alertContactCodes.id });
  const minutes = String(ALERT_CODE_TTL_S / 60);
  await sendNow(deps, {
    idempotencyKey: `alert-contact-code:${row!.id}`,
    channel,
    to: target,
    template: 'verify_code',
    subject: `Cellhub verification code ${code}`,
    body:
      `Your Cellhub verification code for alert contact "${contact.name}" is ${code}. ` +
      `It expires in ${minutes} minutes. 您的 Cellhub 告警联系人验证码为 ${code}，${minutes} 分钟内有效。`,
    params: { code },
    userId: contact.uid,
    contactId: contact.id,
  });
  return { code: channel === 'sms' ? 20115 : 20116, channel, to: target, expires_in: ALERT_CODE_TTL_S };
}

/**
 * Checks the code against the newest live one sent to the contact's current address on that channel; a wrong guess
 * counts at once (5 allowed). Empty: 20119 phone / 20118 email; wrong, used, expired: 20121 / 20120.
 */
export async function verifyContactCode(
  deps: Deps,
  actor: Actor,
  id: number,
  channel: AlertVerifyChannel,
  code: string,
): Promise<AlertContactItem> {
  const empty = channel === 'sms' ? 20119 : 20118;
  const wrong = channel === 'sms' ? 20121 : 20120;
  const given = code.trim();
  if (!given) throw new AppError(empty);
  const contact = await visibleContact(deps, actor, id);
  const target = targetOf(contact, channel);
  if (!target) throw formError(channel === 'sms' ? 'phone' : 'email', 'empty');
  const now = deps.now();
  const [row] = await deps.db
    .select()
    .from(alertContactCodes)
    .where(
      and(
        eq(alertContactCodes.contactId, contact.id),
        eq(alertContactCodes.channel, channel),
        eq(alertContactCodes.target, target),
        isNull(alertContactCodes.consumedAt),
        gt(alertContactCodes.expiresAt, now),
      ),
    )
    .orderBy(desc(alertContactCodes.id))
    .limit(1);
  if (!row || row.attempts >= MAX_ATTEMPTS) throw new AppError(wrong);
  const expected = Buffer.from(row.codeHash, 'hex');
  const actual = Buffer.from(codeHash(deps, contact, channel, target, given), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    await deps.db
      .update(alertContactCodes)
      .set({ attempts: sql`${alertContactCodes.attempts} + 1` })
      .where(eq(alertContactCodes.id, row.id));
    throw new AppError(wrong);
  }
  await deps.db.transaction(async (tx) => {
    const used = await tx
      .update(alertContactCodes)
      .set({ consumedAt: now })
      .where(and(eq(alertContactCodes.id, row.id), isNull(alertContactCodes.consumedAt)))
      .returning({ id: alertContactCodes.id });
    if (used.length === 0) throw new AppError(wrong);
    // Only if the address is still the one the code went to (an edit may have raced the check).
    await tx
      .update(alertContacts)
      .set(channel === 'sms' ? { phoneVerified: true } : { emailVerified: true })
      .where(
        and(
          eq(alertContacts.id, contact.id),
          channel === 'sms' ? eq(alertContacts.phone, target) : eq(alertContacts.email, target),
        ),
      );
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'alert_contact_verify',
      target: `alert_contact:${contact.id}`,
      ip: actor.ip,
      detail: { channel },
    });
  });
  return getContact(deps, actor, contact.id);
}
