/** Renders the page of a route name, loading its chunk on first use; the progress bar runs meanwhile. */
import { lazy, Suspense, useEffect, type ComponentType, type LazyExoticComponent } from 'react';
import { doneProgress, startProgress } from '../lib/progress';
import { pageLoader } from './pages';

const cache = new Map<string, LazyExoticComponent<ComponentType>>();

function lazyPage(name: string): LazyExoticComponent<ComponentType> {
  let page = cache.get(name);
  if (!page) {
    page = lazy(pageLoader(name));
    cache.set(name, page);
  }
  return page;
}

/** Suspense fallback: mounted exactly while a chunk downloads. */
export function ChunkProgress() {
  useEffect(() => {
    startProgress();
    return doneProgress;
  }, []);
  return null;
}

export function LazyPage({ name }: { name: string }) {
  const Page = lazyPage(name);
  return (
    <Suspense fallback={<ChunkProgress />}>
      <Page />
    </Suspense>
  );
}
