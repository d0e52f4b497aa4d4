/**
 * The script editor: CodeMirror with JavaScript. Imported lazily (React.lazy, see lazy-code-editor.tsx) so only the
 * pages that show a script load it. `errorLine` marks a line (a test run's or a save's error).
 */
import { javascript } from '@codemirror/lang-javascript';
import CodeMirror, { Decoration, EditorView, type Extension } from '@uiw/react-codemirror';
import { useMemo } from 'react';
import { useSettings } from '../../../lib/settings';

export interface CodeEditorProps {
  value?: string;
  onChange?: (value: string) => void;
  errorLine?: number | null;
  readOnly?: boolean;
  height?: string;
}

const errorTheme = EditorView.baseTheme({
  '.cm-script-error-line': { backgroundColor: 'rgba(245, 63, 63, 0.18)' },
});

function errorLineExtension(line: number): Extension {
  return EditorView.decorations.compute(['doc'], (state) => {
    if (line < 1 || line > state.doc.lines) return Decoration.none;
    return Decoration.set([
      Decoration.line({ class: 'cm-script-error-line' }).range(state.doc.line(line).from),
    ]);
  });
}

export default function CodeEditor({
  value,
  onChange,
  errorLine,
  readOnly,
  height = '420px',
}: CodeEditorProps) {
  const { theme } = useSettings();
  const extensions = useMemo(
    () => [javascript(), errorTheme, ...(errorLine ? [errorLineExtension(errorLine)] : [])],
    [errorLine],
  );
  return (
    <div data-testid="script-editor" data-error-line={errorLine ?? ''}>
      <CodeMirror
        value={value ?? ''}
        height={height}
        theme={theme === 'dark' ? 'dark' : 'light'}
        extensions={extensions}
        editable={!readOnly}
        readOnly={readOnly}
        onChange={(v) => onChange?.(v)}
        basicSetup={{ foldGutter: false, highlightActiveLine: !readOnly }}
      />
    </div>
  );
}
