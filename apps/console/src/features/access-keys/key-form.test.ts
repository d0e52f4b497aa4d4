import { accessKeyCreateBody, accessKeyUpdateBody } from '@cellhub/contract/access-keys';
import { describe, expect, it } from 'vitest';
import { emptyKeyForm, fromPickerTime, keyBody, keyFormOf, toPickerTime } from './key-form';

describe('key form', () => {
  it('sends "never" as null and a picked local time as ISO UTC the contract takes', () => {
    const never = keyBody({ ...emptyKeyForm(), name: '  sync  ' });
    expect(never).toEqual({ name: 'sync', scopes: ['devices:read'], ip_allow: [], expires_at: null });
    expect(accessKeyCreateBody.safeParse(never).success).toBe(true);

    const until = keyBody({
      ...emptyKeyForm(),
      name: 'sync',
      expiry: 'until',
      expires_at: '2030-01-02 03:04',
      ip_allow: [' 10.0.0.0/8 ', '10.0.0.0/8', '', '::1'],
    });
    expect(until.ip_allow).toEqual(['10.0.0.0/8', '::1']);
    expect(new Date(until.expires_at!).getTime()).toBe(new Date(2030, 0, 2, 3, 4).getTime());
    expect(accessKeyCreateBody.safeParse(until).success).toBe(true);
  });

  it('round-trips a key through the form, enabled included for the update', () => {
    const iso = new Date(2031, 5, 7, 8, 9).toISOString();
    const values = keyFormOf({
      access_key: 'AKAAAAAAAAAAAAAAAAAAAA',
      name: 'n',
      scopes: ['ota', 'sim'],
      ip_allow: ['1.2.3.4'],
      expires_at: iso,
      enabled: false,
      verified: true,
      last_used_at: null,
      last_used_ip: null,
      created_at: iso,
      updated_at: iso,
      owner: null,
    });
    expect(values.expiry).toBe('until');
    expect(toPickerTime(iso)).toBe('2031-06-07 08:09');
    const body = keyBody(values);
    expect(body).toMatchObject({ scopes: ['ota', 'sim'], enabled: false, expires_at: iso });
    expect(accessKeyUpdateBody.safeParse(body).success).toBe(true);
  });

  it('reads no time from an empty or broken picker value', () => {
    expect(fromPickerTime(undefined)).toBeUndefined();
    expect(fromPickerTime('not a date')).toBeUndefined();
  });
});
