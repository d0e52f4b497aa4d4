/**
 * Stands in for `resize-observer-polyfill`, which Arco imports (vite.config.ts aliases it here): every browser the
 * build targets (ES2022) has ResizeObserver, so the 7.6 KB polyfill would only cost the sign-in page download time.
 */
export default globalThis.ResizeObserver;
