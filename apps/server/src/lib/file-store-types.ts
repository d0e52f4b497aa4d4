/**
 * The file store's interface (lib/file-store.ts chooses and uses one; lib/file-store-pg.ts is one), apart so the
 * implementations import it without importing the chooser.
 */
import type { Readable } from 'node:stream';

/** One stored file: the area (`firmware`, `applications`, `scenes`) and the id the store gave it. */
export interface FileRef {
  area: string;
  fileId: string;
}

/** Inclusive byte span. */
export interface ByteSpan {
  start: number;
  end: number;
}

/** An upload in progress: bytes in order, then `commit` (the file becomes readable) or `abort` (nothing left). */
export interface FileWriter {
  /** Resolves once the bytes may be dropped by the caller (backpressure). */
  write(chunk: Buffer): Promise<void>;
  /** The new file's id. */
  commit(): Promise<string>;
  abort(): Promise<void>;
}

export interface FileStore {
  readonly kind: 'dir' | 'postgres';
  writer(area: string): FileWriter;
  /**
   * The file's bytes, or the inclusive span of them; opened lazily, so a missing file is an error of the stream.
   * Ask `size` first where an answer depends on the file existing.
   */
  read(ref: FileRef, span?: ByteSpan): Readable;
  /** Bytes, or undefined when the store does not hold the file. */
  size(ref: FileRef): Promise<number | undefined>;
  /** Removes files; one already gone is fine. */
  remove(area: string, fileIds: string[]): Promise<void>;
  /**
   * Removes what uploads left that never committed nor aborted (the server died under them): those begun before
   * `before` (`dir`: last written before it). Answers how many.
   */
  sweepPartial(before: Date): Promise<number>;
}
