import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ListPage, useKeywordList, type ListQuery } from './list-page';
import { KeywordFilter, ListSearchBar } from './list-search-bar';

interface Row {
  id: number;
  name: string;
}
interface Params {
  current: number;
  per_page: number;
  keyword?: string;
}

const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `row ${i + 1}` }));

function Harness({ query, onParams }: { query: ListQuery<Row>; onParams: (p: Params) => void }) {
  const { form, params, setParams, search } = useKeywordList<Params>();
  onParams(params);
  return (
    <ListPage<Row, Params>
      title="Things"
      help="What things are"
      search={
        <ListSearchBar form={form} onSearch={search}>
          <KeywordFilter label="Keyword" placeholder="Name" onSearch={search} />
        </ListSearchBar>
      }
      create={{ label: 'New thing', to: '/new' }}
      toolbarEnd={<span>right side</span>}
      rowKey="id"
      columns={[{ title: 'Name', dataIndex: 'name' }]}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => `${total} things`}
      empty={<p>nothing yet</p>}
    />
  );
}

function renderList(query: ListQuery<Row>, onParams: (p: Params) => void = () => undefined) {
  return render(
    <MemoryRouter initialEntries={['/list']}>
      <Routes>
        <Route path="/list" element={<Harness query={query} onParams={onParams} />} />
        <Route path="/new" element={<p>create page</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

describe('ListPage', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));

  it('shows the title, help, rows and total, and the create button opens its page', async () => {
    renderList({ data: { data: rows(3), total: 23 }, isFetching: false });
    expect(screen.getByText('Things')).toBeTruthy();
    expect(screen.getByText('What things are')).toBeTruthy();
    expect(screen.getByText('right side')).toBeTruthy();
    expect(screen.getByText('row 2')).toBeTruthy();
    expect(screen.getByText('23 things')).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /New thing/ })));
    expect(screen.getByText('create page')).toBeTruthy();
  });

  it('searches the trimmed keyword from page 1, and Reset clears it', async () => {
    const seen: Params[] = [];
    renderList({ data: { data: rows(10), total: 30 }, isFetching: false }, (p) => seen.push(p));
    await act(async () => fireEvent.click(screen.getByText('2')));
    expect(seen.at(-1)).toEqual({ current: 2, per_page: 10 });
    fireEvent.change(screen.getByPlaceholderText('Name'), { target: { value: '  pump ' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Search/ })));
    expect(seen.at(-1)).toEqual({ current: 1, per_page: 10, keyword: 'pump' });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Reset/ })));
    expect(seen.at(-1)).toEqual({ current: 1, per_page: 10, keyword: undefined });
  });

  it('shows the empty state, and a failed load offers a retry', async () => {
    const { unmount } = renderList({ data: { data: [], total: 0 }, isFetching: false });
    expect(screen.getByText('nothing yet')).toBeTruthy();
    unmount();
    const refetch = vi.fn();
    renderList({ isFetching: false, isError: true, refetch });
    expect(screen.getByRole('alert').textContent).toContain('Could not load the list');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Retry' })));
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('shows the loading state while fetching', () => {
    const { container } = renderList({ isFetching: true });
    expect(container.querySelector('.arco-spin-loading')).toBeTruthy();
  });
});
