/**
 * Accounts and sign-in: request and response shapes of /api/auth/* and /api/user/*.
 * The server validates with these, the console types its forms with them, OpenAPI is generated from them.
 */
import { z } from 'zod';
import { text } from './text';
import { ROLES } from './routes';

/** Seed section 5: at least 6 characters, no spaces, digits plus upper and lower case letters. */
export const PASSWORD_RULE = /^(?=.*\d)(?=.*[a-z])(?=.*[A-Z])\S{6,64}$/;
/** Mainland China mobile numbers, optionally with +86; other countries as E.164. */
export const PHONE_RULE = /^(?:(?:\+?86)?1[3-9]\d{9}|\+[1-9]\d{6,14})$/;
export const USERNAME_RULE = /^[A-Za-z0-9_\-.]{3,32}$/;
export const CAPTCHA_RULE = /^\d{6}$/;

export const password = text().regex(PASSWORD_RULE, 'password_rule');
export const phone = text().trim().regex(PHONE_RULE, 'phone_rule');
export const captcha = text().trim().regex(CAPTCHA_RULE, 'captcha_rule');
export const username = text().trim().regex(USERNAME_RULE, 'username_rule');

export const roleSchema = z.enum(ROLES);

export const loginBody = z.object({
  username: text().trim().min(1).max(64),
  // Sign-in does not re-check the password rules: an account may predate them.
  password: text().min(1).max(128),
});
export type LoginBody = z.infer<typeof loginBody>;

export const loginPhoneBody = z.object({ phone, captcha });
export type LoginPhoneBody = z.infer<typeof loginPhoneBody>;

export const loginResult = z.object({
  token: text(),
  uid: z.number().int(),
  issuper: z.boolean(),
});
export type LoginResult = z.infer<typeof loginResult>;

export const registerBody = z.object({
  username,
  password,
  password2: text(),
  phone: phone.optional(),
  captcha: captcha.optional(),
});
export type RegisterBody = z.infer<typeof registerBody>;
export const registerResult = z.object({ uid: z.number().int() });

export const smsCodeBody = z.object({
  phone,
  /** What the code is for; sign-in codes need an account with that phone, others do not. */
  purpose: z.enum(['login', 'register', 'change_phone']).default('change_phone'),
});
export type SmsCodeBody = z.infer<typeof smsCodeBody>;

export const passwordChangeBody = z.object({
  old_password: text().min(1).max(128),
  new_password: password,
  confirm_password: text().min(1),
});
export type PasswordChangeBody = z.infer<typeof passwordChangeBody>;

export const phoneChangeBody = z.object({ phone, captcha });
export type PhoneChangeBody = z.infer<typeof phoneChangeBody>;

export const genderSchema = z.enum(['male', 'female', 'unknown']);
export const certificationSchema = z.enum(['pass', 'auditing']);

/** GET /api/user/info: the user info the console keeps (seed section 3) plus the settings fields. */
export const userInfo = z.object({
  uid: z.number().int(),
  username: text(),
  name: text(),
  nickname: text(),
  picture: text(),
  job: text(),
  jobName: text(),
  organization: text(),
  organizationName: text(),
  location: text(),
  locationName: text(),
  email: text(),
  introduction: text(),
  personalWebsite: text(),
  phone: text(),
  registrationDate: text(),
  accountId: text(),
  certification: certificationSchema,
  role: roleSchema,
  gender: genderSchema,
  birthday: text().nullable(),
  country: text(),
  area: text(),
  address: text(),
  profile: text(),
  wechat_bound: z.boolean(),
});
export type UserInfo = z.infer<typeof userInfo>;

/** PUT /api/user/profile: the "basic information" tab of user settings. */
export const profileUpdateBody = z.object({
  nickname: text().trim().max(32).optional(),
  email: z.union([z.literal(''), z.email().max(128)]).optional(),
  gender: genderSchema.optional(),
  birthday: z.union([z.iso.date(), z.null()]).optional(),
  country: text().trim().max(64).optional(),
  area: text().trim().max(128).optional(),
  address: text().trim().max(200).optional(),
  profile: text().max(200).optional(),
});
export type ProfileUpdateBody = z.infer<typeof profileUpdateBody>;

export const menuResult = z.array(text());

/** WeChat QR sign-in: POST /api/auth/wechat/qr creates a ticket, GET /api/auth/wechat/qr/:ticket polls it. */
export const wechatTicket = z.object({
  ticket: text(),
  /** The URL the QR code encodes (the messaging app's OAuth page for this ticket). */
  qr_url: text(),
  expires_at: text(),
});
export type WechatTicket = z.infer<typeof wechatTicket>;

export const wechatTicketParams = z.object({ ticket: text().min(1).max(64) });

/** What the OAuth provider appends to the redirect URI; `code` is missing when the user declined. */
export const wechatCallbackQuery = z.object({
  code: text().max(512).optional(),
  state: text().max(128).optional(),
});

/** Admin: users */
export const userListQuery = z.object({
  current: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(20),
  keyword: text().trim().max(64).optional(),
  disabled: z.enum(['0', '1']).optional(),
});
export const userListItem = z.object({
  uid: z.number().int(),
  username: text(),
  nickname: text(),
  phone: text(),
  email: text(),
  role: roleSchema,
  disabled: z.boolean(),
  createdat: text(),
  last_login_at: text().nullable(),
});
export type UserListItem = z.infer<typeof userListItem>;
export const userResetPasswordBody = z.object({ new_password: password });
/** POST /api/users: an admin opens an account for a customer (no SMS code, no registration limit). */
export const userCreateBody = z.object({
  username,
  password,
  nickname: text().trim().max(32).optional(),
  phone: phone.optional(),
  email: z.union([z.literal(''), z.email().max(128)]).optional(),
  role: roleSchema.default('user'),
});
export type UserCreateBody = z.infer<typeof userCreateBody>;
export const userIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
/**
 * PUT /api/users/:id: an admin changes an account's role and contact fields; only the fields sent change, '' clears
 * phone or email. Username and password have their own paths (the name is how people sign in; resets sign out).
 */
export const userUpdateBody = z
  .object({
    nickname: text().trim().max(32).optional(),
    phone: z.union([z.literal(''), phone]).optional(),
    email: z.union([z.literal(''), z.email().max(128)]).optional(),
    role: roleSchema.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'empty' });
export type UserUpdateBody = z.infer<typeof userUpdateBody>;
