import { describe, expect, it } from 'vitest';
import { listPagination } from './list-pagination';

describe('listPagination', () => {
  it('shows the params page and moves to another page or size without losing the filters', () => {
    let params = { current: 2, per_page: 10, keyword: 'gw' };
    const setParams = (next: typeof params | ((p: typeof params) => typeof params)) => {
      params = typeof next === 'function' ? next(params) : next;
    };
    const pagination = listPagination(params, setParams, 42, (total) => `${total} in all`);
    expect(pagination).toMatchObject({ current: 2, pageSize: 10, total: 42, sizeCanChange: true });
    expect(
      pagination.showTotal === true || pagination.showTotal === false
        ? null
        : pagination.showTotal?.(42, [11, 20]),
    ).toBe('42 in all');
    pagination.onChange?.(3, 20);
    expect(params).toEqual({ current: 3, per_page: 20, keyword: 'gw' });
  });

  it('counts nothing while the list has not loaded', () => {
    const pagination = listPagination(
      { current: 1, per_page: 10 },
      () => undefined,
      undefined,
      () => '',
    );
    expect(pagination.total).toBe(0);
  });
});
