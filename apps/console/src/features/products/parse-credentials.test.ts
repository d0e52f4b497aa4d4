import { describe, expect, it } from 'vitest';
import { parseCredentialLines } from './parse-credentials';

describe('parseCredentialLines', () => {
  it('reads sn, optional device name and secret; skips blank lines', () => {
    expect(parseCredentialLines('SN-1,dtu-one,abc==\n\nSN-2,,p,w,d\r\n')).toEqual({
      items: [
        { sn: 'SN-1', device_name: 'dtu-one', device_secret: 'abc==' },
        { sn: 'SN-2', device_secret: 'p,w,d' },
      ],
    });
  });

  it('names the first line that is not in that form', () => {
    expect(parseCredentialLines('SN-1,a,b\nSN-2 secret').badLine).toBe(2);
    expect(parseCredentialLines('SN-1,name,').badLine).toBe(1);
  });
});
