import { Message } from '@arco-design/web-react';
import { ApiError } from '../../lib/request';

interface FieldErrorTarget<K extends string> {
  setFields(fields: Partial<Record<K, { error: { message: string } }>>): void;
}

/**
 * Puts a refused save's message under the field it is about (by error code), or in a toast when it is about no
 * field. A 403 is left alone: the request layer is already sending the user to sign in.
 */
export function showApiError<K extends string>(
  form: FieldErrorTarget<K>,
  e: unknown,
  fieldByCode: Partial<Record<number, K>>,
): void {
  if (!(e instanceof ApiError)) return;
  const field = fieldByCode[e.code];
  if (field)
    form.setFields({ [field]: { error: { message: e.message } } } as Partial<
      Record<K, { error: { message: string } }>
    >);
  else if (e.httpStatus !== 403) Message.error(e.message);
}
