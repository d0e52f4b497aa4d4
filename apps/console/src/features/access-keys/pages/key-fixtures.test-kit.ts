/** The access-key page tests' key and signed-in user (the API and render kit is lib/mock-api.test-kit.tsx). */
export const KEY = {
  access_key: 'AKABCDEFGHIJKLMNOPQRST',
  name: 'Nightly sync',
  scopes: ['devices:read', 'devices:control'],
  ip_allow: ['203.0.113.7', '10.0.0.0/8'],
  expires_at: null,
  enabled: true,
  verified: true,
  last_used_at: '2026-11-20T08:00:00.000Z',
  last_used_ip: '203.0.113.7',
  created_at: '2026-11-01T08:00:00.000Z',
  updated_at: '2026-11-01T08:00:00.000Z',
  owner: null,
};

export const ME = { uid: 7, username: 'alice', phone: '13800001111', email: '', role: 'user' };
