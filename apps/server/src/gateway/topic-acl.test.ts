import { describe, expect, it } from 'vitest';
import { deviceTopicGrants, mayPublish, maySubscribe } from './topic-acl';

const d = { productKey: 'pk01', sn: 'SN-1' };

describe('device topic ACL', () => {
  it('lets a device publish to its own up topics only', () => {
    expect(mayPublish(d, 'dev/pk01/SN-1/up/property')?.kind).toBe('property');
    expect(mayPublish(d, 'dev/pk01/SN-1/up/anything')?.kind).toBe('anything');
    for (const t of [
      'dev/pk01/SN-1/down/cmd',
      'dev/pk01/SN-2/up/property',
      'dev/pk02/SN-1/up/property',
      'dev/pk01/SN-1/up/property/extra',
      'dev/pk01/SN-1/up/',
      'other/topic',
    ])
      expect(mayPublish(d, t)).toBeUndefined();
  });

  it('lets a device subscribe to its own down topics only', () => {
    for (const f of ['dev/pk01/SN-1/down/#', 'dev/pk01/SN-1/down/+', 'dev/pk01/SN-1/down/cmd'])
      expect(maySubscribe(d, f)).toBe(true);
    for (const f of [
      'dev/pk01/SN-1/up/#',
      'dev/pk01/SN-2/down/#',
      'dev/pk01/SN-1/down/cmd/#',
      'dev/pk01/SN-1/#',
      '#',
      '$share/g/dev/pk01/SN-1/down/#',
    ])
      expect(maySubscribe(d, f)).toBe(false);
  });

  it('gives brokers the same rules as topic patterns', () => {
    expect(deviceTopicGrants(d)).toEqual({
      publish: 'dev/pk01/SN-1/up/+',
      subscribe: 'dev/pk01/SN-1/down/#',
    });
  });
});
