import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppOptions } from './app';
import { ConfigError } from './config';
import { StartupError } from './plugins/broker';

/** Builds the app and listens on HOST:PORT; SIGINT/SIGTERM close it cleanly (HTTP, broker, database). */
export async function startServer(options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = await buildApp(options);
  const { port, host } = app.deps.config;
  try {
    await app.listen({ port, host });
  } catch (err) {
    await app.close().catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new StartupError(
        `PORT ${port} is already in use: stop the program using it or set PORT to another port.`,
      );
    }
    throw err;
  }
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return app;
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  startServer().catch((err: unknown) => {
    // Operator mistakes get one clear line, not a stack trace.
    if (err instanceof StartupError || err instanceof ConfigError) console.error(`cellhub: ${err.message}`);
    else console.error(err);
    process.exit(1);
  });
}
