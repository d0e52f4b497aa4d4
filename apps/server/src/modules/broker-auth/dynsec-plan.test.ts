import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config';
import { fingerprint, MARK, plan, roleOf, wantedAcls } from './dynsec-sync';

const KEY = 'k'.repeat(40);
const device = { sn: 'SN-1', productKey: 'pk01', secret: 's3cret', disabled: false };
const mark = (secret = device.secret) => `${MARK} ${fingerprint(KEY, device.sn, secret)}`;
const client = (over: Record<string, unknown> = {}) => ({
  username: 'SN-1',
  clientid: 'SN-1',
  textdescription: mark(),
  disabled: false,
  roles: [{ rolename: roleOf('SN-1') }],
  ...over,
});

describe('dynamic security plan', () => {
  it('creates role and client for a new device, disabled at once when the device is', () => {
    const cmds = plan(KEY, 'SN-1', device, undefined, undefined);
    expect(cmds.map((c) => c.command)).toEqual(['createRole', 'createClient']);
    expect(cmds[1]).toMatchObject({ username: 'SN-1', clientid: 'SN-1', password: 's3cret' });
    expect(
      plan(KEY, 'SN-1', { ...device, disabled: true }, undefined, undefined).map((c) => c.command),
    ).toEqual(['createRole', 'createClient', 'disableClient']);
  });

  it('sends nothing when the broker already matches', () => {
    expect(plan(KEY, 'SN-1', device, client(), wantedAcls(device))).toEqual([]);
  });

  it('follows a rotated secret, a disabled flag and a lost role', () => {
    const rotated = plan(KEY, 'SN-1', { ...device, secret: 'new' }, client(), wantedAcls(device));
    expect(rotated.map((c) => c.command)).toEqual(['setClientPassword', 'modifyClient']);
    expect(rotated[0]).toMatchObject({ password: 'new' });
    expect(
      plan(KEY, 'SN-1', { ...device, disabled: true }, client(), wantedAcls(device)).map((c) => c.command),
    ).toEqual(['disableClient']);
    expect(
      plan(KEY, 'SN-1', device, client({ disabled: true, roles: [] }), undefined).map((c) => c.command),
    ).toEqual(['createRole', 'addClientRole', 'enableClient']);
  });

  it('deletes only what it made when the device is gone', () => {
    expect(plan(KEY, 'SN-1', undefined, client(), []).map((c) => c.command)).toEqual([
      'deleteClient',
      'deleteRole',
    ]);
    expect(plan(KEY, 'SN-1', undefined, client({ textdescription: '' }), undefined)).toEqual([]);
    // An operator's client named like a device is not taken over.
    expect(plan(KEY, 'SN-1', device, client({ textdescription: 'mine' }), undefined)).toEqual([]);
  });
});

describe('broker auth configuration', () => {
  it('reads the hook secret and dynsec settings, and needs MQTT_URL for MQTT_DYNSEC', () => {
    const c = loadConfig(
      {
        SECRET_KEY: KEY,
        MQTT_URL: 'mqtt://server:pw@127.0.0.1:1883',
        MQTT_DYNSEC: '1',
        MQTT_DYNSEC_USERNAME: 'admin',
        BROKER_HOOK_SECRET: 'h'.repeat(16),
      },
      { dataDir: '/nonexistent-cellhub' },
    );
    expect(c.brokerAuth).toEqual({
      hookSecret: 'h'.repeat(16),
      dynsec: { enabled: true, username: 'admin', password: undefined, reconcileMs: 3_600_000 },
    });
    expect(() =>
      loadConfig({ SECRET_KEY: KEY, MQTT_DYNSEC: '1' }, { dataDir: '/nonexistent-cellhub' }),
    ).toThrow(ConfigError);
    expect(() => loadConfig({ SECRET_KEY: KEY, BROKER_HOOK_SECRET: 'short' }, { dataDir: '/x' })).toThrow(
      /BROKER_HOOK_SECRET/,
    );
  });
});
