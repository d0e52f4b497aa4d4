/**
 * Test apps reach the fakes a test file started (operator APIs, SMS and WeChat endpoints, a firmware file server)
 * through OUTBOUND_ALLOW, as an on-premise install reaches its own hosts: each fake adds its exact 127.0.0.1:port
 * when it starts, and `buildTestApp` uses this list unless a test passes its own. Nothing else on 127.0.0.1 is
 * allowed, so a test can prove a listener it did not register is never reached. One list per test file (vitest
 * loads modules afresh for each file).
 */
export const testOutboundAllow: string[] = [];

/** Allows the origin of `url` (host:port) to every test app of this file. */
export function allowTestTarget(url: string): void {
  const { host } = new URL(url);
  if (!testOutboundAllow.includes(host)) testOutboundAllow.push(host);
}
