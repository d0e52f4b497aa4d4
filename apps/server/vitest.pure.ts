/**
 * Server tests that open neither a database nor a broker (`npm run test:fast` runs them; `npm test` runs them once,
 * not again on PostgreSQL). Paths are relative to apps/server.
 *
 * The list cannot silently miss a test: src/pure-tests.test.ts fails when a test file outside it reaches neither the
 * test app, a database nor a broker, and the `server-pure` project's setup (vitest.pure-guard.ts) makes every test
 * listed here fail the moment it opens one.
 */
export const pureTests = [
  'src/config.test.ts',
  'src/pure-tests.test.ts',
  'src/gateway/device-auth.test.ts',
  'src/gateway/message-id.test.ts',
  'src/gateway/topic-acl.test.ts',
  'src/modules/broker-auth/dynsec-plan.test.ts',
  'src/gateway/mqtt5/connect-check.test.ts',
  'src/gateway/mqtt5/packet-scanner.test.ts',
  'src/gateway/mqtt5/translate.test.ts',
  'src/jobs/batch-queue.test.ts',
  'src/jobs/periodic.test.ts',
  'src/jobs/worker-adopt.test.ts',
  'src/import-cycles.test.ts',
  'src/lib/authz.test.ts',
  'src/modules/access-keys/open-routes.test.ts',
  'src/lib/crypto.test.ts',
  'src/lib/outbound.test.ts',
  'src/lib/phone.test.ts',
  'src/modules/alerts/alert-conditions.test.ts',
  'src/plugins/compression.test.ts',
  'src/modules/auth/session-cache.test.ts',
  'src/modules/notify/email.adapter.test.ts',
  'src/modules/notify/http.test.ts',
  'src/modules/notify/sms-signatures.test.ts',
  'src/modules/ota/ota-transitions.test.ts',
  'src/modules/scripts/sandbox.test.ts',
  'src/modules/platforms/platform-signatures.test.ts',
  'src/modules/sim/providers/one-nce.adapter.test.ts',
  'src/modules/sim/providers/onelink.adapter.test.ts',
  'src/modules/sim/providers/registry.test.ts',
  'src/modules/telemetry/property-parse.test.ts',
  'src/modules/telemetry/raw-writer.test.ts',
  'src/realtime/event-bus.test.ts',
];

/**
 * The integration tests that run on PGlite too when PostgreSQL is there (CI runs every integration test on
 * PostgreSQL): the engine-facing parts, where the embedded database's single connection, its LISTEN/NOTIFY and its
 * timing differ from PostgreSQL's.
 */
export const pgliteInCi = [
  'src/app.test.ts',
  'src/db/**/*.test.ts',
  'src/jobs/**/*.test.ts',
  'src/realtime/**/*.test.ts',
  'src/gateway/**/*.test.ts',
  'src/plugins/**/*.test.ts',
  'src/modules/telemetry/**/*.test.ts',
  'src/modules/forwarding/**/*.test.ts',
  'src/modules/ota/**/*.test.ts',
  'src/modules/users/**/*.test.ts',
];
