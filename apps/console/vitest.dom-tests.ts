/**
 * The console's `.test.ts` files that need a DOM (storage, WebSocket, XMLHttpRequest, CSS variables, hooks):
 * they run in jsdom with the `.test.tsx` files. Every other `.test.ts` runs in plain node (vitest.node.config.ts),
 * where a test that does touch the DOM fails loudly ("window is not defined") instead of being skipped.
 */
export const domUnitTests = [
  'src/app/theme-color.test.ts',
  'src/lib/realtime.test.ts',
  'src/lib/realtime-ota.test.ts',
  'src/lib/request.test.ts',
  'src/lib/request-upload.test.ts',
  'src/lib/settings.test.ts',
  'src/lib/use-countdown.test.ts',
];
