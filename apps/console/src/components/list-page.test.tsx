import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RealtimeStatus } from '../lib/realtime';
import { filterParams, ListEmpty, ListPage, useKeywordList, type ListQuery } from './list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from './list-search-bar';

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

  it("looks like Arco Pro's search table: the title in the card, row lines only, Search/Reset stacked", () => {
    const { container } = renderList({ data: { data: rows(3), total: 3 }, isFetching: false });
    expect(container.querySelector('.arco-card-header-title')?.textContent).toBe('Things');
    const table = container.querySelector('.arco-table')!;
    // No outer frame, no column lines: Arco adds these classes for a bordered table or bordered cells.
    expect(table.className).not.toMatch(/arco-table-border\b/);
    expect(table.className).not.toMatch(/arco-table-border-(cell|header-cell|body-cell)/);
    expect(screen.getByTestId('list-search-bar').querySelector('.arco-divider-vertical')).not.toBeNull();
  });

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

interface FilteredParams extends Params {
  kind?: string;
  level?: number;
}

function Filtered({
  query,
  onParams,
  live,
}: {
  query: ListQuery<Row>;
  onParams: (p: FilteredParams) => void;
  live?: RealtimeStatus;
}) {
  const { form, params, setParams, search } = useKeywordList<
    FilteredParams,
    { keyword?: string; kind?: string; level?: number }
  >();
  onParams(params);
  return (
    <ListPage<Row, FilteredParams>
      title="Filtered things"
      search={
        <ListSearchBar form={form} grid="third" onSearch={search}>
          <KeywordFilter label="Keyword" placeholder="Name" onSearch={search} />
          <ChoiceFilter
            label="Kind"
            field="kind"
            placeholder="All kinds"
            options={[
              { value: 'a', label: 'Kind A' },
              { value: 'b', label: 'Kind B' },
            ]}
          />
        </ListSearchBar>
      }
      live={live ? { status: live, open: 'Live now', off: 'Live lost' } : undefined}
      rowKey="id"
      columns={[{ title: 'Name', dataIndex: 'name' }]}
      query={query}
      params={params}
      setParams={setParams}
      quietRefetch
      pageSizes={[10, 100]}
      total={(total) => `${total} things`}
      failed="Could not load things"
      empty={<ListEmpty text="No things" hint="Make one first" actions={<button>Make one</button>} />}
    />
  );
}

describe('ListPage with several filters', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));

  it('filterParams trims text and leaves out cleared fields, keeping 0 and false', () => {
    expect(
      filterParams({ keyword: '  a ', kind: '', level: 0, on: false, gone: null, none: undefined }),
    ).toEqual({ keyword: 'a', kind: undefined, level: 0, on: false, gone: undefined, none: undefined });
  });

  it('searches every field of the form from page 1, and Reset clears them all', async () => {
    const seen: FilteredParams[] = [];
    const { container } = render(
      <MemoryRouter>
        <Filtered
          query={{ data: { data: rows(10), total: 300 }, isFetching: false }}
          onParams={(p) => seen.push(p)}
        />
      </MemoryRouter>,
    );
    await act(async () => fireEvent.click(screen.getByText('3')));
    expect(seen.at(-1)).toEqual({ current: 3, per_page: 10 });
    fireEvent.change(screen.getByPlaceholderText('Name'), { target: { value: ' pump' } });
    await act(async () => fireEvent.click(container.querySelector('#kind_input .arco-select-view')!));
    await act(async () => fireEvent.click(await screen.findByText('Kind B')));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Search/ })));
    expect(seen.at(-1)).toEqual({ current: 1, per_page: 10, keyword: 'pump', kind: 'b' });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Reset/ })));
    const last = seen.at(-1)!;
    expect([last.current, last.keyword, last.kind]).toEqual([1, undefined, undefined]);
    // Three filter cells to a row, and the page sizes the page asked for.
    expect(container.querySelectorAll('form .arco-row > .arco-col-8')).toHaveLength(2);
    await act(async () =>
      fireEvent.click(container.querySelector('.arco-pagination-option .arco-select-view')!),
    );
    const sizes = [...document.querySelectorAll('.arco-select-option')].map((o) => o.textContent);
    expect(sizes.filter((o) => /\d/.test(o ?? '')).map((o) => parseInt(o!, 10))).toEqual([10, 100]);
  });

  it('shows the live badge while connected and while reconnecting, none before', () => {
    const query = { data: { data: rows(1), total: 1 }, isFetching: false };
    const { rerender } = render(
      <MemoryRouter>
        <Filtered query={query} onParams={() => undefined} live="connecting" />
      </MemoryRouter>,
    );
    expect(screen.queryByText('Live now')).toBeNull();
    expect(screen.queryByText('Live lost')).toBeNull();
    rerender(
      <MemoryRouter>
        <Filtered query={query} onParams={() => undefined} live="open" />
      </MemoryRouter>,
    );
    expect(screen.getByText('Live now')).toBeTruthy();
    rerender(
      <MemoryRouter>
        <Filtered query={query} onParams={() => undefined} live="reconnecting" />
      </MemoryRouter>,
    );
    expect(screen.getByText('Live lost')).toBeTruthy();
  });

  it('with quietRefetch spins on the first load only, not over rows already shown', () => {
    const { container, rerender } = render(
      <MemoryRouter>
        <Filtered query={{ isFetching: true }} onParams={() => undefined} />
      </MemoryRouter>,
    );
    expect(container.querySelector('.arco-spin-loading')).toBeTruthy();
    rerender(
      <MemoryRouter>
        <Filtered
          query={{ data: { data: rows(2), total: 2 }, isFetching: true }}
          onParams={() => undefined}
        />
      </MemoryRouter>,
    );
    expect(container.querySelector('.arco-spin-loading')).toBeNull();
    expect(screen.getByText('row 2')).toBeTruthy();
  });

  it('shows its own empty state and its own failed-load text', () => {
    const { unmount } = render(
      <MemoryRouter>
        <Filtered query={{ data: { data: [], total: 0 }, isFetching: false }} onParams={() => undefined} />
      </MemoryRouter>,
    );
    expect(screen.getByText('No things')).toBeTruthy();
    expect(screen.getByText('Make one first')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Make one' })).toBeTruthy();
    unmount();
    render(
      <MemoryRouter>
        <Filtered
          query={{ isFetching: false, isError: true, refetch: () => undefined }}
          onParams={() => undefined}
        />
      </MemoryRouter>,
    );
    expect(screen.getByRole('alert').textContent).toContain('Could not load things');
  });
});
