import { Spin } from '@arco-design/web-react';
import { lazy, Suspense } from 'react';
import type { CodeEditorProps } from './code-editor';

const CodeEditor = lazy(() => import('./code-editor'));

/** The CodeMirror editor, fetched when first shown: CodeMirror is in no other page's bundle. */
export function LazyCodeEditor(props: CodeEditorProps & { loading: string }) {
  const { loading, ...rest } = props;
  return (
    <Suspense
      fallback={
        <div style={{ height: rest.height ?? '420px', display: 'grid', placeItems: 'center' }}>
          <Spin tip={loading} />
        </div>
      }
    >
      <CodeEditor {...rest} />
    </Suspense>
  );
}
