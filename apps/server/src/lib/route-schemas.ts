import { type z } from 'zod';
import { errorBody, listEnvelope, okEnvelope } from '@cellhub/contract/common';

export const ok = <T>(data: T) => ({ status: true as const, data });
export const okList = <T>(data: T[], total: number) => ({ status: true as const, data, total });

const described = (description: string) => errorBody.describe(description);

const ERROR_RESPONSES = {
  400: described('invalid input (10113 with details) or a business rule; the code says which'),
  403: described('not signed in, or the token is expired or revoked (10102)'),
  404: described('no such API route (10106)'),
  413: described('body too large (50001)'),
  429: described('too many requests (10104); see Retry-After'),
  503: described('a dependency is down (10105)'),
} as const;

type ErrorStatus = keyof typeof ERROR_RESPONSES;

/** Response schemas for a route: its success shape plus the error answers it can give. */
export function responses<T extends z.ZodType>(data: T, ...statuses: ErrorStatus[]) {
  return { 200: okEnvelope(data), ...pick(statuses) };
}

export function listResponses<T extends z.ZodType>(item: T, ...statuses: ErrorStatus[]) {
  return { 200: listEnvelope(item), ...pick(statuses) };
}

function pick(statuses: ErrorStatus[]) {
  const all: ErrorStatus[] = [400, 429, ...statuses];
  return Object.fromEntries(all.map((s) => [s, ERROR_RESPONSES[s]])) as Record<ErrorStatus, typeof errorBody>;
}

/** Signed-in routes: their error answers include 403. */
export const SIGNED_IN: ErrorStatus[] = [403];
