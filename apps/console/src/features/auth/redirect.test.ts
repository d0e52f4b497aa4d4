import { describe, expect, it } from 'vitest';
import { resolveRedirect } from './redirect';

const r = (qs: string) => resolveRedirect(new URLSearchParams(qs));

describe('resolveRedirect', () => {
  it('defaults to the Workplace', () => {
    expect(r('')).toBe('/dashboard/workplace');
  });
  it('maps a route name and keeps its query', () => {
    expect(r('redirect=CardList&status=1')).toBe('/card/list?status=1');
  });
  it('fills path parameters from the query', () => {
    expect(r('redirect=CardDetail&iccid=8986')).toBe('/card/detail/8986');
  });
  it('refuses unknown names, missing parameters and URLs', () => {
    expect(r('redirect=Nope')).toBe('/dashboard/workplace');
    expect(r('redirect=CardDetail')).toBe('/dashboard/workplace');
    expect(r('redirect=https://evil.example')).toBe('/dashboard/workplace');
  });
});
