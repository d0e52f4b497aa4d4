import type {
  PasswordChangeBody,
  PhoneChangeBody,
  ProfileUpdateBody,
  WechatTicket,
} from '@cellhub/contract/auth';
import { http } from '../../lib/request';

export const updateProfile = (body: ProfileUpdateBody) => http.put<null>('/api/user/profile', body);

/** Silent: the form puts "wrong old password" next to the field. */
export const changePassword = (body: PasswordChangeBody) =>
  http.put<null>('/api/user/password', body, { silent: true });

export const sendPhoneCode = (phone: string) =>
  http.post<null>('/api/user/smscode', { phone, purpose: 'change_phone' });

/** Silent: 20125 (same number) and 20121 (wrong code) go next to their fields. */
export const changePhone = (body: PhoneChangeBody) =>
  http.put<null>('/api/user/phone', body, { silent: true });

export const createWechatBindTicket = () =>
  http.post<WechatTicket>('/api/user/wechat/qr', undefined, { silent: true });

export const unbindWechat = () => http.delete<null>('/api/user/wechat');

/** 20124 until scanned; null once the account is bound. */
export const pollWechatBindTicket = (ticket: string) =>
  http.get<null>(`/api/user/wechat/qr/${encodeURIComponent(ticket)}`, { silent: true });
