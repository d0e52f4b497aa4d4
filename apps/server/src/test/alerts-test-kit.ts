/**
 * Helpers for the alerts tests: devices as the gateway sees them, property reports and presence changes through the
 * gateway (the same path MQTT messages take, alert hook included), contacts verified through the API with the codes
 * the SMS log provider writes, and the delivery rows alerts queue. Tests only.
 */
import { readFileSync } from 'node:fs';
import { asc, eq, like } from 'drizzle-orm';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { PropertyValue } from '@cellhub/contract/protocol';
import { createDevices } from './gateway-test-kit';
import { allowTestTarget } from './outbound';
import type { TestApp } from './app';
import type { DeviceRef } from '../modules/devices/device-ref';
import { devices } from '../modules/devices/devices.table';
import { notifyDeliveries } from '../modules/notify/notify.service';

export const data = <T = Record<string, unknown>>(res: {
  statusCode: number;
  body: string;
  json(): unknown;
}): T => {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return (res.json() as { data: T }).data;
};

/** Devices of a new product with a `temp` number property; answers them as the gateway knows them. */
export async function alertDevices(t: TestApp, token: string, sns: string[]): Promise<DeviceRef[]> {
  await createDevices(t, token, sns, {
    name: 'Alert DTU',
    properties: [
      { key: 'temp', name: '温度', name_us: 'Temperature', unit: '°C' },
      { key: 'door', name: 'Door', datatype: 'bool' },
      { key: 'mode', name: 'Mode', datatype: 'string' },
    ],
  });
  return Promise.all(sns.map((sn) => deviceRef(t, sn)));
}

export async function deviceRef(t: TestApp, sn: string): Promise<DeviceRef> {
  const [d] = await t.app.deps.db.select().from(devices).where(eq(devices.sn, sn));
  if (!d) throw new Error(`no device ${sn}`);
  return { id: d.id, sn: d.sn, productKey: d.productKey, uid: d.uid };
}

/** One property message through the gateway, then waits for the evaluator to judge it. */
export async function report(
  t: TestApp,
  device: DeviceRef,
  params: Record<string, PropertyValue>,
): Promise<void> {
  await t.app.gateway.uplink(device, 'property', Buffer.from(JSON.stringify({ params })));
  await t.app.alerts.idle();
}

export async function goOnline(t: TestApp, device: DeviceRef): Promise<void> {
  await t.app.gateway.connected(device, { ip: '127.0.0.1', protocol: 'mqtt/4' });
  await t.app.alerts.idle();
}

export async function goOffline(t: TestApp, device: DeviceRef): Promise<void> {
  await t.app.gateway.disconnected(device, 'test');
  await t.app.alerts.idle();
}

/** The last code the SMS log provider wrote for a phone (SMS_CODE_LOG_FILE). */
export function lastLoggedCode(file: string, phone: string): string | undefined {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith(`${phone} `))
    .at(-1)
    ?.split(' ')[1];
}

/** A contact with a phone verified through the API (code from the log provider's file). */
export async function verifiedPhoneContact(
  t: TestApp,
  token: string,
  codeLog: string,
  phone: string,
  name = `contact ${phone}`,
): Promise<{ id: number; phone: string }> {
  const c = data<{ id: number }>(
    await t.inject({ method: 'POST', url: '/api/alert/contacts', token, payload: { name, phone } }),
  );
  data(
    await t.inject({
      method: 'POST',
      url: `/api/alert/contacts/${c.id}/code`,
      token,
      payload: { channel: 'sms' },
    }),
  );
  const code = lastLoggedCode(codeLog, phone);
  if (!code) throw new Error(`no code logged for ${phone}`);
  const v = data<{ phone_verified: boolean }>(
    await t.inject({
      method: 'POST',
      url: `/api/alert/contacts/${c.id}/verify`,
      token,
      payload: { channel: 'sms', code },
    }),
  );
  if (!v.phone_verified) throw new Error('phone not verified');
  return { id: c.id, phone };
}

export async function createTrigger(
  t: TestApp,
  token: string,
  body: Record<string, unknown>,
): Promise<{ id: number }> {
  return data<{ id: number }>(
    await t.inject({ method: 'POST', url: '/api/alert/triggers', token, payload: body }),
  );
}

export interface HistoryRow {
  id: number;
  status: 'active' | 'recovered';
  raised_value: PropertyValue | null;
  recovered_value: PropertyValue | null;
  raised_at: string;
  recovered_at: string | null;
  push_count: number;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  trigger_id: number | null;
  sn: string;
}

/** A trigger's alerts, oldest first. */
export async function historyOf(t: TestApp, token: string, triggerId: number): Promise<HistoryRow[]> {
  const rows = data<HistoryRow[]>(
    await t.inject({
      method: 'GET',
      url: '/api/alert/history',
      token,
      query: { trigger_id: String(triggerId), per_page: '100' },
    }),
  );
  return rows.reverse();
}

/** Delivery rows an alert queued, by idempotency key. */
export async function deliveriesOf(t: TestApp, historyId: number) {
  return t.app.deps.db
    .select()
    .from(notifyDeliveries)
    .where(like(notifyDeliveries.idempotencyKey, `alert:${historyId}:%`))
    .orderBy(asc(notifyDeliveries.id));
}

export interface ReceivedMail {
  to: string[];
  mail: ParsedMail;
}

/** A real SMTP server on 127.0.0.1 (port 0) that accepts any sender and keeps what it receives. */
export async function startMailbox(): Promise<{
  port: number;
  received: ReceivedMail[];
  waitFor(n: number, ms?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'any' });
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), mail });
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  // Reached through OUTBOUND_ALLOW like every fake: the SMTP host is fenced (lib/outbound.ts connectOutbound).
  allowTestTarget(`smtp://127.0.0.1:${port}`);
  return {
    port,
    received,
    async waitFor(n, ms = 10_000) {
      const end = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > end) throw new Error(`expected ${n} mails, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
