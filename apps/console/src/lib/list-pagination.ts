import type { PaginationProps } from '@arco-design/web-react';
import type { Dispatch, ReactNode, SetStateAction } from 'react';

export interface PageParams {
  current: number;
  per_page: number;
}

/**
 * A search table's pagination bound to its `{ current, per_page }` request params, so paging and page-size changes
 * keep the active filters.
 */
export function listPagination<P extends PageParams>(
  params: P,
  setParams: Dispatch<SetStateAction<P>>,
  total: number | undefined,
  showTotal: (total: number) => ReactNode,
): PaginationProps {
  return {
    current: params.current,
    pageSize: params.per_page,
    total: total ?? 0,
    showTotal,
    sizeCanChange: true,
    onChange: (current: number, per_page: number) => setParams((p) => ({ ...p, current, per_page })),
  };
}
