import type {
  LoginBody,
  LoginPhoneBody,
  LoginResult,
  RegisterBody,
  WechatTicket,
} from '@cellhub/contract/auth';
import { http } from '../../lib/request';

// Sign-in calls are silent: the form shows the failure inline, next to the fields, instead of a toast.
export const loginByPassword = (body: LoginBody) =>
  http.post<LoginResult>('/api/auth/login', body, { silent: true });

export const loginByPhone = (body: LoginPhoneBody) =>
  http.post<LoginResult>('/api/auth/login/phone', body, { silent: true });

export const register = (body: RegisterBody) =>
  http.post<{ uid: number }>('/api/auth/register', body, { silent: true });

export const sendSmsCode = (phone: string, purpose: 'login' | 'register' | 'change_phone') =>
  http.post<null>('/api/user/smscode', { phone, purpose });

export const createWechatTicket = () =>
  http.post<WechatTicket>('/api/auth/wechat/qr', undefined, { silent: true });

export const pollWechatTicket = (ticket: string) =>
  http.get<LoginResult>(`/api/auth/wechat/qr/${encodeURIComponent(ticket)}`, { silent: true });
