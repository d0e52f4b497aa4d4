import { sql } from 'drizzle-orm';
import { boolean, date, index, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdat, tstz, updatedat } from '../../db/columns';

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: ['admin', 'user'] })
      .notNull()
      .default('user'),
    phone: text('phone'),
    wechatOpenid: text('wechat_openid'),
    nickname: text('nickname').notNull().default(''),
    email: text('email').notNull().default(''),
    gender: text('gender', { enum: ['male', 'female', 'unknown'] })
      .notNull()
      .default('unknown'),
    birthday: date('birthday', { mode: 'string' }),
    country: text('country').notNull().default(''),
    area: text('area').notNull().default(''),
    address: text('address').notNull().default(''),
    profile: text('profile').notNull().default(''),
    certification: text('certification', { enum: ['pass', 'auditing'] })
      .notNull()
      .default('auditing'),
    disabled: boolean('disabled').notNull().default(false),
    lastLoginAt: tstz('last_login_at'),
    createdat: createdat(),
    updatedat: updatedat(),
  },
  (t) => [
    // Case-insensitive so "Admin" cannot be registered next to "admin".
    uniqueIndex('users_username_lower_uq').on(sql`lower(${t.username})`),
    uniqueIndex('users_phone_uq').on(t.phone),
    uniqueIndex('users_wechat_openid_uq').on(t.wechatOpenid),
    index('users_createdat_idx').on(t.createdat),
  ],
);

export type UserRow = typeof users.$inferSelect;
