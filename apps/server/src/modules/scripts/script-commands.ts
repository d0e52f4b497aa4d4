import { AppError } from '../../lib/app-error';
import { ScriptError } from './sandbox';
import type { ScriptRunner } from './script-runner';

/**
 * The command side of scripts: a command `{id, type, data}` for a device whose product's enabled script defines
 * `encode` becomes the bytes `encode` returns (sent on down/raw by the gateway). Null: no such script, the command
 * goes out as P/down/cmd JSON. A failing script refuses the command with its code (82001-82003) and line.
 */
export async function encodeCommand(
  runner: ScriptRunner,
  productKey: string,
  sn: string,
  payload: unknown,
): Promise<Buffer | null> {
  const p = (payload ?? {}) as { id?: unknown; type?: unknown; data?: unknown };
  const command = { id: String(p.id ?? ''), type: String(p.type ?? ''), data: String(p.data ?? '') };
  try {
    return await runner.encode(productKey, sn, command);
  } catch (err) {
    if (!(err instanceof ScriptError)) throw err;
    const where = err.line !== null ? `line ${err.line}: ` : '';
    throw new AppError(err.code, 400, undefined, [{ field: 'script', message: `${where}${err.message}` }]);
  }
}
