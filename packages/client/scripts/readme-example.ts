// The README's example, kept here so `npm run typecheck` proves it still fits the generated types (not run).
import { CellhubError, createClient } from '../src/index';

export async function example(): Promise<void> {
  const cellhub = createClient({
    baseUrl: 'https://cellhub.example.com', // the server's origin; paths start with /api
    accessKey: process.env.CELLHUB_ACCESS_KEY!, // AK...
    secret: process.env.CELLHUB_SECRET!,
  });

  // devices:read
  const { data: devices, total } = await cellhub.listDevices({ online: '1', per_page: 50 });
  console.log(
    `${total} online`,
    devices.map((d) => d.sn),
  );

  const { data: properties } = await cellhub.getDeviceProperties('SN0001'); // latest value of each property
  for (const p of properties) console.log(p.key, p.value, p.ts);
  const { data: history } = await cellhub.getDeviceProperties('SN0001', { key: 'temp' }); // one property's history
  console.log(history.length);

  // devices:control
  try {
    const command = await cellhub.sendCommand('SN0001', { type: 'string', data: 'reboot' });
    console.log(command.id, command.status); // 'sent'; the reply shows in listCommands once the device answers
    const { data: commands } = await cellhub.listCommands('SN0001');
    console.log(commands.find((c) => c.id === command.id)?.reply);
  } catch (err) {
    if (err instanceof CellhubError && err.code === 10227) console.error('this key lacks devices:control');
    else throw err;
  }

  // Any other open-API route, typed from the generated document.
  const { data: device } = await cellhub.request('get', '/api/devices/{sn}', {
    params: { path: { sn: 'SN0001' } },
  });
  const tasks = await cellhub.request('get', '/api/ota/tasks', { params: { query: { per_page: 10 } } }); // scope ota
  console.log(device.online, tasks.total);
}
