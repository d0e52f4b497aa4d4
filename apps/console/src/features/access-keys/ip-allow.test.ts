import { describe, expect, it } from 'vitest';
import { badAllowEntries, isAllowEntry } from './ip-allow';

describe('allow-list entries', () => {
  it('takes IPv4 and IPv6 addresses and CIDR blocks', () => {
    for (const v of [
      '203.0.113.7',
      '10.0.0.0/8',
      '0.0.0.0/0',
      '::1',
      '2001:db8::/32',
      '::ffff:192.0.2.1',
      ' 1.2.3.4 ',
    ])
      expect(isAllowEntry(v), v).toBe(true);
  });

  it('refuses what is no address: bad octets, prefix too long, host names, empty', () => {
    for (const v of ['1.2.3.256', '10.0.0.0/33', '2001:db8::/129', 'example.com', '1.2.3', '', '1.2.3.4/'])
      expect(isAllowEntry(v), v).toBe(false);
  });

  it('lists the bad entries in order', () => {
    expect(badAllowEntries(['1.2.3.4', 'x', '::1', '999.1.1.1'])).toEqual(['x', '999.1.1.1']);
  });
});
