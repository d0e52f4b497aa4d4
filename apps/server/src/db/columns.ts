import { timestamp } from 'drizzle-orm/pg-core';

/** Shared columns. Names follow the seed (`createdat`, `updatedat`). */
export const createdat = () =>
  timestamp('createdat', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedat = () =>
  timestamp('updatedat', { withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());
export const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
