import { createHmac } from 'node:crypto';
import { asc, gt, inArray } from 'drizzle-orm';
import { deviceTopicGrants } from '../../gateway/topic-acl';
import type { Deps } from '../../lib/deps';
import { deviceSecretContext } from '../devices/devices.service';
import { devices } from '../devices/devices.table';
import type { DynsecClient, DynsecCommand, DynsecResponse } from './dynsec-client';

/**
 * Mosquitto dynamic security as a copy of the devices table (docs/external-brokers.md): each device is a client
 * (username = clientid = sn, password = its secret) with a role of its own granting its topics, disabled while the
 * device is. The copy is made to match the table, never edited by event contents: a job reads the rows of the serial
 * numbers it was given and fixes whatever differs, so a job run twice, late or out of order still leaves the
 * broker right, and the reconciliation pass repairs what a lost job (crash before queueing) left behind.
 *
 * Only clients Cellhub made are touched: they carry MARK in their text description (with a keyed fingerprint of
 * the secret, so a rotation is seen without reading passwords back). An operator's own accounts (the server's,
 * the admin) are left alone even when their name looks like a serial number.
 */
export const MARK = 'cellhub-device';
export const roleOf = (sn: string): string => `cellhub-device:${sn}`;

/** Commands per control message (Mosquitto answers one message with one response message). */
const CHUNK = 200;

export interface DeviceState {
  sn: string;
  productKey: string;
  secret: string;
  disabled: boolean;
}

interface ClientInfo {
  username: string;
  clientid?: string;
  textdescription?: string;
  disabled?: boolean;
  roles?: { rolename: string }[];
}

interface AclInfo {
  acltype: string;
  topic: string;
  allow: boolean;
}

const ours = (c: ClientInfo | undefined): boolean => (c?.textdescription ?? '').startsWith(MARK);

export function fingerprint(secretKey: string, sn: string, secret: string): string {
  return createHmac('sha256', secretKey).update(`dynsec:${sn}:${secret}`).digest('hex').slice(0, 32);
}

export function wantedAcls(d: Pick<DeviceState, 'sn' | 'productKey'>): AclInfo[] {
  const g = deviceTopicGrants(d);
  return [
    { acltype: 'publishClientSend', topic: g.publish, allow: true },
    { acltype: 'subscribePattern', topic: g.subscribe, allow: true },
  ];
}

const notFound = (r: DynsecResponse) => /not found/i.test(r.error ?? '');

/** What the broker must be told so that one device's client and role match its row (or its absence). */
export function plan(
  secretKey: string,
  sn: string,
  device: DeviceState | undefined,
  client: ClientInfo | undefined,
  roleAcls: AclInfo[] | undefined,
): DynsecCommand[] {
  const rolename = roleOf(sn);
  if (!device) {
    const out: DynsecCommand[] = [];
    if (client && ours(client)) out.push({ command: 'deleteClient', username: sn });
    if (roleAcls) out.push({ command: 'deleteRole', rolename });
    return out;
  }
  // Somebody else's account with this name: not ours to overwrite (logged by the caller).
  if (client && !ours(client)) return [];
  const out: DynsecCommand[] = [];
  const acls = wantedAcls(device);
  if (!roleAcls) {
    out.push({
      command: 'createRole',
      rolename,
      textname: `Cellhub device ${sn}`,
      acls: acls.map((a) => ({ ...a, priority: 0 })),
    });
  } else {
    const key = (a: AclInfo) => `${a.acltype} ${a.topic} ${a.allow}`;
    const have = new Set(roleAcls.map(key));
    const want = new Set(acls.map(key));
    for (const a of roleAcls)
      if (!want.has(key(a)))
        out.push({ command: 'removeRoleACL', rolename, acltype: a.acltype, topic: a.topic });
    for (const a of acls)
      if (!have.has(key(a))) out.push({ command: 'addRoleACL', rolename, ...a, priority: 0 });
  }
  const description = `${MARK} ${fingerprint(secretKey, sn, device.secret)}`;
  if (!client) {
    out.push({
      command: 'createClient',
      username: sn,
      password: device.secret,
      clientid: sn,
      textname: `Cellhub device ${sn}`,
      textdescription: description,
      roles: [{ rolename, priority: 0 }],
    });
    if (device.disabled) out.push({ command: 'disableClient', username: sn });
    return out;
  }
  if (client.textdescription !== description) {
    out.push({ command: 'setClientPassword', username: sn, password: device.secret });
    out.push({ command: 'modifyClient', username: sn, textdescription: description });
  }
  if (client.clientid !== sn) out.push({ command: 'setClientId', username: sn, clientid: sn });
  if (!(client.roles ?? []).some((r) => r.rolename === rolename))
    out.push({ command: 'addClientRole', username: sn, rolename, priority: 0 });
  if (Boolean(client.disabled) !== device.disabled)
    out.push({ command: device.disabled ? 'disableClient' : 'enableClient', username: sn });
  return out;
}

async function readDevices(deps: Deps, sns: readonly string[]): Promise<Map<string, DeviceState>> {
  const rows = sns.length
    ? await deps.db
        .select({
          sn: devices.sn,
          productKey: devices.productKey,
          secret: devices.secret,
          disabled: devices.disabled,
        })
        .from(devices)
        .where(inArray(devices.sn, [...sns]))
    : [];
  return new Map(
    rows.map((r) => [r.sn, { ...r, secret: deps.box.decrypt(r.secret, deviceSecretContext(r.sn)) }]),
  );
}

/** The broker's clients and roles of these serial numbers (undefined: none). */
async function readBroker(
  dynsec: DynsecClient,
  sns: readonly string[],
): Promise<{ clients: Map<string, ClientInfo>; roles: Map<string, AclInfo[]> }> {
  const commands = sns.flatMap((sn) => [
    { command: 'getClient', username: sn },
    { command: 'getRole', rolename: roleOf(sn) },
  ]);
  const responses = await dynsec.check(commands, notFound);
  const clients = new Map<string, ClientInfo>();
  const roles = new Map<string, AclInfo[]>();
  sns.forEach((sn, i) => {
    const c = responses[2 * i]!;
    const r = responses[2 * i + 1]!;
    const client = c.error ? undefined : (c.data?.client as ClientInfo | undefined);
    const role = r.error ? undefined : (r.data?.role as { acls?: AclInfo[] } | undefined);
    if (client) clients.set(sn, client);
    if (role) roles.set(sn, role.acls ?? []);
  });
  return { clients, roles };
}

/**
 * Makes the broker's clients of these serial numbers match the devices table. Returns the number of commands
 * sent besides the reads. Throws when the broker refuses one (the job retries; commands are idempotent).
 */
export async function syncDevices(deps: Deps, dynsec: DynsecClient, sns: readonly string[]): Promise<number> {
  let sent = 0;
  const unique = [...new Set(sns)];
  for (let i = 0; i < unique.length; i += CHUNK / 2) {
    const part = unique.slice(i, i + CHUNK / 2);
    const [rows, broker] = await Promise.all([readDevices(deps, part), readBroker(dynsec, part)]);
    const commands: DynsecCommand[] = [];
    for (const sn of part) {
      const client = broker.clients.get(sn);
      const device = rows.get(sn);
      if (device && client && !ours(client)) {
        deps.log.warn({ sn }, 'dynamic security: a client of this name exists and was not made by Cellhub');
      }
      commands.push(...plan(deps.config.secretKey, sn, device, client, broker.roles.get(sn)));
    }
    for (let j = 0; j < commands.length; j += CHUNK) {
      // A delete racing another instance's delete finds nothing: that is the state wanted.
      await dynsec.check(commands.slice(j, j + CHUNK), (r) => r.command.startsWith('delete') && notFound(r));
    }
    sent += commands.length;
  }
  return sent;
}

/**
 * The full pass: every device, and every client Cellhub made whose device is gone. `keepAlive` is called between
 * chunks (a job extends its lease) and stops the pass when it answers false.
 */
export async function reconcileAll(
  deps: Deps,
  dynsec: DynsecClient,
  keepAlive: () => Promise<boolean> = async () => true,
): Promise<{ devices: number; removed: number; sent: number }> {
  const [listed] = await dynsec.check([{ command: 'listClients', verbose: true, count: -1, offset: 0 }]);
  const brokerSns = new Set(
    ((listed!.data?.clients as ClientInfo[] | undefined) ?? []).filter(ours).map((c) => c.username),
  );
  let sent = 0;
  let count = 0;
  let after = 0;
  for (;;) {
    const page = await deps.db
      .select({ id: devices.id, sn: devices.sn })
      .from(devices)
      .where(gt(devices.id, after))
      .orderBy(asc(devices.id))
      .limit(2000);
    if (page.length === 0) break;
    after = page[page.length - 1]!.id;
    count += page.length;
    for (const p of page) brokerSns.delete(p.sn);
    sent += await syncDevices(
      deps,
      dynsec,
      page.map((p) => p.sn),
    );
    if (!(await keepAlive())) return { devices: count, removed: 0, sent };
  }
  // Left: clients of ours without a device row (deleted while no job ran). syncDevices re-reads the table first.
  const gone = [...brokerSns];
  sent += await syncDevices(deps, dynsec, gone);
  return { devices: count, removed: gone.length, sent };
}
