import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualDevice } from './device';
import { gatewayHandlers, newGatewayStats, SubDeviceReporter, subDeviceSns } from './gateway';
import { startTestBroker, waitFor, type TestBroker } from './test-broker';

const identity = { sn: 'GW0001', product_key: 'pk_gw', secret: 's'.repeat(32) };
let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.close();
});

describe('gateway mode', () => {
  it('names the sub-devices after their gateway', () => {
    expect(subDeviceSns('GW1', 3)).toEqual(['GW1-S01', 'GW1-S02', 'GW1-S03']);
    expect(subDeviceSns('GW1', 120)[119]).toBe('GW1-S120');
  });

  it('announces and reports its sub-devices, and answers their commands, config and raw bytes', async () => {
    const stats = newGatewayStats();
    const gw = new VirtualDevice(identity, {
      url: broker.url,
      configGet: false,
      handlers: gatewayHandlers(stats),
    });
    await gw.connect();
    const reporter = new SubDeviceReporter(
      () => [gw],
      (g) => subDeviceSns(g.identity.sn, 2),
      { rate: 1 },
      stats,
    );
    reporter.tick(1_767_225_600_000);
    const status = await waitFor(() => {
      const b = broker.bodies('/up/sub_status', 'GW0001');
      return b.length === 2 ? b : undefined;
    });
    expect(status).toEqual([
      { sub: 'GW0001-S01', online: 1 },
      { sub: 'GW0001-S02', online: 1 },
    ]);
    const props = await waitFor(() => {
      const b = broker.bodies('/up/sub_property', 'GW0001') as { sub: string; ts: number; params: object }[];
      return b.length === 2 ? b : undefined;
    });
    expect(props.map((p) => p.sub)).toEqual(['GW0001-S01', 'GW0001-S02']);
    expect(props[0]).toMatchObject({ ts: 1_767_225_600_000, params: expect.objectContaining({}) });
    expect(Object.keys(props[0]!.params)).toEqual(['temperature', 'humidity']);
    // Not due again within the second, and no second announcement while connected.
    reporter.tick(1_767_225_600_500);
    expect(broker.bodies('/up/sub_status', 'GW0001')).toHaveLength(2);

    const down = `dev/${identity.product_key}/${identity.sn}/down/`;
    await broker.downlink(`${down}sub_cmd`, { sub: 'GW0001-S02', id: 'c1', type: 'hex', data: '0103' });
    await broker.downlink(`${down}sub_cmd`, { sub: 'GW0001-S02', id: 'c2', type: 'hex', data: 'xyz' });
    await broker.downlink(`${down}sub_config`, { sub: 'GW0001-S01', version: 3, config: { a: 1 } });
    await broker.downlink(`${down}sub_raw`, { sub: 'GW0001-S01', data: 'a1b2' });
    await waitFor(() => broker.bodies('/up/sub_cmd_reply', 'GW0001').length === 2 || undefined);
    expect(broker.bodies('/up/sub_cmd_reply', 'GW0001')).toEqual([
      { sub: 'GW0001-S02', id: 'c1', code: 0, data: '0103' },
      { sub: 'GW0001-S02', id: 'c2', code: 70003 },
    ]);
    await waitFor(() => broker.bodies('/up/sub_raw', 'GW0001').length === 1 || undefined);
    await waitFor(() => broker.bodies('/up/sub_config', 'GW0001').length === 1 || undefined);
    expect(broker.bodies('/up/sub_config', 'GW0001')).toEqual([
      { sub: 'GW0001-S01', version: 3, config: { a: 1 } },
    ]);
    expect(broker.bodies('/up/sub_raw', 'GW0001')).toEqual([{ sub: 'GW0001-S01', data: 'a1b2' }]);
    expect(stats).toMatchObject({ commands: 2, configs: 1, raw: 1, reports: 2 });
    reporter.stop();
    await gw.close();
  });
});
