// Child process of bench/modbus.mjs (run with tsx: it imports devsim's TypeScript): a devsim fleet of DTUs in
// transparent mode, each with one Modbus slave (address 1) holding `--registers` holding registers that drift.
// Prints "ready" once every device tried to connect, then a JSON line with the fleet's counters on "count" (IPC).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Fleet } from '../../apps/devsim/src/fleet.ts';
import { ModbusBus } from '../../apps/devsim/src/modbus.ts';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    url: { type: 'string' },
    registers: { type: 'string', default: '20' },
  },
});
const identities = JSON.parse(readFileSync(values.file, 'utf8'));
const registers = Number(values.registers);
const slave = () => ({
  address: 1,
  holdingRegisters: Object.fromEntries(Array.from({ length: registers }, (_, i) => [i, 100 + i])),
  drift: Array.from({ length: registers }, (_, i) => ({
    type: 'holding',
    address: i,
    format: 'uint16',
    min: 100,
    max: 900,
    periodMs: 30_000 + i * 1000,
  })),
});
const buses = [];
const fleet = new Fleet(identities, {
  url: values.url,
  keepalive: 300,
  rate: 0,
  connectRate: 0,
  flapRatio: 0,
  offlineEvery: 60,
  offlineFor: 20,
  badRatio: 0,
  infoEvery: 0,
  properties: [],
  bufferOffline: 0,
  modbus: () => {
    const bus = new ModbusBus([slave()]);
    buses.push(bus);
    return bus;
  },
});
await fleet.start();
process.send({ ready: true, connected: fleet.connectedCount() });
process.on('message', async (msg) => {
  if (msg === 'count') process.send({ connected: fleet.connectedCount(), stats: fleet.stats });
  if (msg === 'stop') {
    await fleet.stop();
    process.exit(0);
  }
});
