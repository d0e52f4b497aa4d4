/** The response envelope and list conventions of CONTRACT.md. */
import { z } from 'zod';
import { text } from './text';

/** Success: `{ status: true, data }`. */
export const okEnvelope = <T extends z.ZodType>(data: T) => z.object({ status: z.literal(true), data });

/** List success: `{ status: true, data: [...], total }`. */
export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ status: z.literal(true), data: z.array(item), total: z.number().int() });

export const errorBody = z.object({
  code: z.number().int(),
  message: text(),
  details: z.unknown().optional(),
});

/** One invalid field of a 10113 answer (`details` is an array of these). */
export const fieldIssue = z.object({ field: text(), message: text() });
export type FieldIssue = z.infer<typeof fieldIssue>;

/** GET /api/health: each part is "ok" or "down"; 503 with code 10105 and these in `details` when one is down. */
export const healthData = z.object({ db: z.enum(['ok', 'down']), mqtt: z.enum(['ok', 'down']) });
export type HealthData = z.infer<typeof healthData>;

export const pageQuery = z.object({
  current: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(20),
});
export type PageQuery = z.infer<typeof pageQuery>;

export interface Ok<T> {
  status: true;
  data: T;
}
export interface OkList<T> {
  status: true;
  data: T[];
  total: number;
}
