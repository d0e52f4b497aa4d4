// Modbus RTU foundation shared by the server (platform polling), devsim (simulated slaves) and the console
// (data templates, test read). Pure TypeScript on Uint8Array. Reference: docs/modbus.md.
export * from './modbus/index';
