import type * as PGliteModule from '@electric-sql/pglite';
import type * as AedesModule from 'aedes';
import type * as MqttModule from 'mqtt';
import { vi } from 'vitest';

// A test listed as pure that opens a database or a broker fails at once, instead of quietly slowing the fast loop
// (or passing there only because a database happens to be at hand).
function refuse(what: string): never {
  throw new Error(
    `${what} in a pure test: remove this file from apps/server/vitest.pure.ts (it needs the integration project)`,
  );
}

vi.mock('@electric-sql/pglite', async (importOriginal) => {
  const real = await importOriginal<typeof PGliteModule>();
  class PGlite {
    constructor() {
      refuse('PGlite');
    }
    static create(): never {
      return refuse('PGlite');
    }
  }
  return { ...real, PGlite };
});

vi.mock('pg', async (importOriginal) => {
  const real = await importOriginal<{ default: Record<string, unknown> }>();
  class Pool {
    constructor() {
      refuse('A PostgreSQL pool');
    }
  }
  class Client {
    constructor() {
      refuse('A PostgreSQL client');
    }
  }
  return { ...real, Pool, Client, default: { ...real.default, Pool, Client } };
});

vi.mock('aedes', async (importOriginal) => {
  const real = await importOriginal<typeof AedesModule>();
  class Aedes {
    constructor() {
      refuse('An Aedes broker');
    }
    static createBroker(): never {
      return refuse('An Aedes broker');
    }
  }
  return { ...real, Aedes, default: Aedes, createBroker: () => refuse('An Aedes broker') };
});

vi.mock('mqtt', async (importOriginal) => {
  const real = await importOriginal<typeof MqttModule>();
  const connect = () => refuse('An MQTT connection');
  return {
    ...real,
    connect,
    connectAsync: connect,
    default: { ...real.default, connect, connectAsync: connect },
  };
});
