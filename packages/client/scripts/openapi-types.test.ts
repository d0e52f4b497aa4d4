import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  GENERATED_FILE,
  generateTypes,
  type OpenApiDocument,
  openRoutesOnly,
  SCOPE_EXTENSION,
} from './openapi-types';

describe('src/openapi.d.ts', () => {
  it('is what `npm run generate -w packages/client` writes from the server as it is now', async () => {
    const fresh = await generateTypes();
    // On a difference: run the generator and commit the file with the server change that caused it.
    expect(
      readFileSync(GENERATED_FILE, 'utf8'),
      'packages/client/src/openapi.d.ts is stale: run `npm run generate -w packages/client` and commit it',
    ).toBe(fresh);
    // Building the server and bundling its document takes 15 s alone, more beside other test files.
  }, 180_000);
});

describe('openRoutesOnly', () => {
  const op = (scope?: string) => ({ responses: {}, ...(scope ? { [SCOPE_EXTENSION]: scope } : {}) });

  it('keeps the operations marked with a scope and drops paths left empty', () => {
    const doc: OpenApiDocument = {
      openapi: '3.0.3',
      paths: {
        '/api/devices': { get: op('devices:read'), post: op('devices:write') },
        '/api/devices/{sn}/commands': { get: op('devices:read'), post: op('devices:control') },
        '/api/users': { get: op() },
        '/api/access-keys': { get: op(), post: op() },
        '/api/devices/{sn}': {
          get: op('devices:read'),
          delete: op(),
          parameters: [{ name: 'sn', in: 'path' }],
        },
      },
    };
    const open = openRoutesOnly(doc);
    expect(Object.keys(open.paths)).toEqual([
      '/api/devices',
      '/api/devices/{sn}/commands',
      '/api/devices/{sn}',
    ]);
    expect(Object.keys(open.paths['/api/devices/{sn}']!)).toEqual(['get', 'parameters']);
    expect(open.paths['/api/devices']).toEqual(doc.paths['/api/devices']);
  });

  it('refuses a document with no open operation', () => {
    expect(() => openRoutesOnly({ openapi: '3.0.3', paths: { '/api/users': { get: op() } } })).toThrow(
      SCOPE_EXTENSION,
    );
  });
});
