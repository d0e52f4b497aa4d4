/**
 * One streamed multipart upload: text fields first, then one `file` part, handed to a service as a stream. Shared by
 * the firmware and application version uploads. The route's plugin registers @fastify/multipart with a file limit of
 * one byte over its maximum, so the store sees the excess and answers 50001.
 */
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Multipart, MultipartFile } from '@fastify/multipart';
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

/** A second file part where the route takes one (busboy's `files` limit ends the form there). */
const oneFileOnly = () =>
  new AppError(10113, 400, undefined, [{ field: 'file', message: 'one file per upload' }]);

/**
 * The request's first file part (fields before it are on `file.fields`), and `rest`, to call once the file was read:
 * it reads the form to its end and refuses what @fastify/multipart leaves to the caller: a second file (its `files`
 * limit only stops the parser; `req.file()` never sees the error), a field cut at the `fieldSize` limit (busboy
 * truncates it silently). Other limits (parts, fields) keep their 413.
 */
async function firstFile(
  req: FastifyRequest,
  tooLarge: () => AppError,
): Promise<{ file: MultipartFile | undefined; rest: () => Promise<void> }> {
  const parts = req.parts()[Symbol.asyncIterator]();
  const next = async (): Promise<Multipart | undefined> => {
    try {
      const n = await parts.next();
      return n.done ? undefined : n.value;
    } catch (err) {
      if ((err as { code?: string }).code === 'FST_FILES_LIMIT') throw oneFileOnly();
      if ((err as { statusCode?: number }).statusCode === 413) throw tooLarge();
      throw err;
    }
  };
  const checkField = (part: Multipart) => {
    if (part.type === 'field' && (part.valueTruncated || part.fieldnameTruncated)) throw tooLarge();
  };
  let part: Multipart | undefined;
  while ((part = await next())) {
    if (part.type === 'file') break;
    checkField(part);
  }
  return {
    file: part?.type === 'file' ? part : undefined,
    async rest() {
      let more: Multipart | undefined;
      while ((more = await next())) {
        if (more.type === 'file') {
          more.file.resume();
          throw oneFileOnly();
        }
        checkField(more);
      }
    },
  };
}

/**
 * One multipart file read whole into memory (small imports: tables, sheets): 415 / 50002 for a body that is not
 * multipart, `tooLarge()` for a Content-Length far over `maxBytes` or a file over the parser's limit, 10113 for no
 * file, a second file or a file name with NUL, `tooLarge()` for a field over its size limit.
 */
export async function receiveFileBuffer(
  req: FastifyRequest,
  options: { maxBytes: number; tooLarge: () => AppError },
): Promise<{ filename: string; buffer: Buffer }> {
  if (!req.isMultipart()) throw new AppError(50002, 415, 'Send the file as multipart/form-data');
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length > options.maxBytes + 1024 * 1024) throw options.tooLarge();
  try {
    const { file, rest } = await firstFile(req, options.tooLarge);
    if (!file) throw formError('file', 'required');
    // Multipart fields never reach the JSON guard (input-guard.ts): the same text rule, here.
    if (isBadText(file.filename)) {
      file.file.resume();
      throw formError('file', BAD_TEXT_MESSAGE);
    }
    const buffer = await file.toBuffer();
    await rest();
    return { filename: file.filename, buffer };
  } catch (err) {
    if (!(err instanceof AppError) && (err as { statusCode?: number }).statusCode === 413)
      throw options.tooLarge();
    throw err;
  }
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
  const { file, rest } = await firstFile(req, options.tooLarge);
  if (!file) throw new AppError(10113, 400, undefined, [{ field: 'file', message: 'required' }]);
  try {
    // Multipart fields never reach the JSON guard (input-guard.ts); the text fields are the contract's text().
    if (isBadText(file.filename)) throw formError('file', BAD_TEXT_MESSAGE);
    const parsed = options.fields.safeParse(fieldValues(file));
    if (!parsed.success) throw fieldsError(parsed.error);
    // The file's stream ends only once the form did without a second file: a store commits nothing before.
    const source = file.file;
    async function* whole() {
      for await (const chunk of source) yield chunk as Buffer;
      await rest();
    }
    return await handle(parsed.data as z.output<S>, {
      stream: Readable.from(whole(), { objectMode: false }),
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
