/** A CSS-only spinner: shown while the first chunk of a route loads, so it must not pull in Arco. */
export function FullPageLoading() {
  return (
    <div className="app-loading" role="status" aria-live="polite">
      <span className="app-loading-spinner" />
    </div>
  );
}
