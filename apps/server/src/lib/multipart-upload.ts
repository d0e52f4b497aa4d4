/**
 * One streamed multipart upload: text fields first, then one `file` part, handed to a service as a stream. Shared by
 * the firmware and application version uploads. The route's plugin registers @fastify/multipart with a file limit of
 * one byte over its maximum, so the store sees the excess and answers 50001.
 */
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { BAD_TEXT_MESSAGE, isBadText } from '@cellhub/contract/text';
import { AppError, formError } from './app-error';

/** Multipart text fields as strings (the first value of each; files are not fields). */
export function fieldValues(file: MultipartFile): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, part] of Object.entries(file.fields)) {
    const first = Array.isArray(part) ? part[0] : part;
    if (first && first.type === 'field') out[name] = String(first.value);
  }
  return out;
}

/** The zod failure of the upload fields, in the 10113 shape the error handler gives schema failures. */
export function fieldsError(error: z.ZodError): AppError {
  return new AppError(
    10113,
    400,
    undefined,
    error.issues.map((i) => ({ field: i.path.join('.') || 'body', message: i.message })),
  );
}

export interface UploadedFile {
  stream: Readable;
  filename: string;
  /** The content type the client named for the part (not trusted: the bytes are checked). */
  mimetype: string;
}

/**
 * Reads the request's fields with `fields` and calls `handle` with them and the file stream. Refusals before any
 * byte is stored: 415 / 50002 for a body that is not multipart, 413 / `tooLarge()` for a Content-Length far over
 * `maxBytes`, 10113 for a missing file, a file name with NUL or invalid fields. Whatever happens, the file part
 * is read to its end so the client receives the answer.
 */
export async function receiveUpload<S extends z.ZodType, T>(
  req: FastifyRequest,
  options: { maxBytes: number; tooLarge: () => AppError; fields: S },
  handle: (fields: z.output<S>, file: UploadedFile) => Promise<T>,
): Promise<T> {
  if (!req.isMultipart()) throw new AppError(50002, 415, 'Send the file as multipart/form-data');
  // A body far over the limit is refused before reading it (the fields take a few KB at most).
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length > options.maxBytes + 1024 * 1024) throw options.tooLarge();
  let file: MultipartFile | undefined;
  try {
    file = await req.file();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 413) throw options.tooLarge();
    throw err;
  }
  if (!file) throw new AppError(10113, 400, undefined, [{ field: 'file', message: 'required' }]);
  try {
    // Multipart fields never reach the JSON guard (input-guard.ts); the text fields are the contract's text().
    if (isBadText(file.filename)) throw formError('file', BAD_TEXT_MESSAGE);
    const parsed = options.fields.safeParse(fieldValues(file));
    if (!parsed.success) throw fieldsError(parsed.error);
    return await handle(parsed.data as z.output<S>, {
      stream: file.file,
      filename: file.filename,
      mimetype: file.mimetype,
    });
  } finally {
    // A refusal before the file was read: read it to the end anyway, so the client gets the answer.
    if (!file.file.readableEnded && !file.file.destroyed) {
      file.file.resume();
      await finished(file.file).catch(() => undefined);
    }
  }
}
