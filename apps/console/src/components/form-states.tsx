import { Spin } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { ApiError } from '../lib/request';
import { ResultPage } from './result-page/result-page';

/**
 * What an edit page shows before its form: a spinner while the record loads, or the shared result page ("not
 * found", "not allowed" or "could not load", from `error`) with a way back. Answers null when the form can show
 * (creating, or the record is here).
 */
export function editPageState({
  editing,
  loading,
  failed,
  error,
  notFound,
  back,
}: {
  editing: boolean;
  loading: boolean;
  failed: boolean;
  /** The failed load; without it a failure reads as "not found". */
  error?: unknown;
  notFound: ReactNode;
  back: { to: string; label: ReactNode };
}): ReactNode {
  if (!editing) return null;
  if (failed)
    return (
      <ResultPage
        error={error}
        problem={error === undefined ? 'notFound' : undefined}
        notFoundTitle={notFound}
        back={back.to}
        backLabel={back.label}
      />
    );
  if (loading) return <Spin style={{ display: 'block', margin: 48 }} />;
  return null;
}

/**
 * Puts the server's field-level refusals (10113 with `details: [{ field, message }]`) under their fields. `field`
 * maps a body field to the form's (price_fen -> price), `message` rewrites a text. Answers whether it did.
 */
export function showFieldErrors(
  form: { setFields: (fields: Record<string, { error: { message: string } }>) => void },
  e: unknown,
  map: { field?: (name: string) => string; message?: (text: string) => string } = {},
): boolean {
  if (!(e instanceof ApiError) || e.code !== 10113 || !Array.isArray(e.details)) return false;
  const details = (e.details as { field?: unknown; message?: unknown }[]).filter(
    (d): d is { field: string; message?: unknown } => typeof d.field === 'string',
  );
  if (details.length === 0) return false;
  for (const d of details) {
    const text = typeof d.message === 'string' ? d.message : e.message;
    form.setFields({
      [map.field?.(d.field) ?? d.field]: { error: { message: map.message?.(text) ?? text } },
    });
  }
  return true;
}
