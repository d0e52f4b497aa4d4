import { Form, Input } from '@arco-design/web-react';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from './list-search-bar';

function Harness({ onSearch }: { onSearch: (keyword: string | undefined) => void }) {
  const [form] = Form.useForm<{ keyword?: string }>();
  return (
    <ListSearchBar form={form} layout="inline" onSearch={() => onSearch(form.getFieldValue('keyword'))}>
      <Form.Item label="Keyword" field="keyword">
        <Input placeholder="keyword" />
      </Form.Item>
    </ListSearchBar>
  );
}

describe('ListSearchBar', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));

  it("lays out Arco Pro's search table: filters, a vertical divider, then Search over Reset in one column", () => {
    render(<Harness onSearch={() => undefined} />);
    const bar = screen.getByTestId('list-search-bar');
    const [form, divider, buttons, ...rest] = [...bar.children];
    expect(rest).toEqual([]);
    expect(form!.tagName).toBe('FORM');
    expect(divider!.className).toContain('arco-divider-vertical');
    expect(buttons).toBe(screen.getByTestId('list-search-buttons'));
    // Stacked: the two buttons are the column's only children, Search first; no horizontal Space wraps them.
    expect([...buttons!.children].map((b) => b.textContent)).toEqual(['Search', 'Reset']);
    expect(bar.querySelector('.arco-space-horizontal')).toBeNull();
  });

  it('searches with the typed filter, and Reset clears it before searching again', async () => {
    const onSearch = vi.fn();
    render(<Harness onSearch={onSearch} />);
    await act(async () =>
      fireEvent.change(screen.getByPlaceholderText('keyword'), { target: { value: 'gw-01' } }),
    );
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Search' })));
    expect(onSearch).toHaveBeenLastCalledWith('gw-01');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Reset' })));
    expect(onSearch).toHaveBeenCalledTimes(2);
    expect(onSearch).toHaveBeenLastCalledWith(undefined);
    expect((screen.getByPlaceholderText('keyword') as HTMLInputElement).value).toBe('');
  });

  it('KeywordFilter searches on Enter with its value (64 characters at most); ChoiceFilter shows its placeholder', async () => {
    const seen: { keyword?: string; kind?: string }[] = [];
    function Filters() {
      const [form] = Form.useForm<{ keyword?: string; kind?: string }>();
      const search = () => seen.push({ ...form.getFieldsValue() });
      return (
        <ListSearchBar form={form} onSearch={search}>
          <KeywordFilter label="Keyword" placeholder="kw" onSearch={search} />
          <ChoiceFilter
            label="Kind"
            field="kind"
            placeholder="All kinds"
            options={[{ value: 'a', label: 'Kind A' }]}
          />
        </ListSearchBar>
      );
    }
    render(<Filters />);
    const input = screen.getByPlaceholderText('kw');
    await act(async () => fireEvent.change(input, { target: { value: 'DTU' } }));
    await act(async () => fireEvent.keyDown(input, { key: 'Enter', keyCode: 13 }));
    expect(seen.at(-1)?.keyword).toBe('DTU');
    expect(screen.getAllByText('All kinds').length).toBeGreaterThan(0);
    expect((input as HTMLInputElement).maxLength).toBe(64);
  });

  it('grid="half" puts the filters two to a row with left-aligned labels', () => {
    function Half() {
      const [form] = Form.useForm<{ keyword?: string; kind?: string }>();
      return (
        <ListSearchBar form={form} grid="half" onSearch={() => undefined}>
          <KeywordFilter label="Keyword" placeholder="kw" onSearch={() => undefined} />
          <ChoiceFilter label="Kind" field="kind" placeholder="All kinds" options={[]} />
        </ListSearchBar>
      );
    }
    const { container } = render(<Half />);
    const row = container.querySelector('form .arco-row');
    expect(row?.querySelectorAll(':scope > .arco-col-12')).toHaveLength(2);
    expect(container.querySelectorAll('.arco-form-label-item-left')).toHaveLength(2);
  });

  it('grid="third" puts them three to a row, a cell keeps the span it asks for', () => {
    function Third() {
      const [form] = Form.useForm<{ keyword?: string; kind?: string; wide?: string }>();
      return (
        <ListSearchBar form={form} grid="third" onSearch={() => undefined}>
          <KeywordFilter label="Keyword" placeholder="kw" onSearch={() => undefined} />
          <ChoiceFilter label="Kind" field="kind" placeholder="All kinds" options={[]} />
          <ChoiceFilter span={16} label="Wide" field="wide" placeholder="All" options={[]} />
        </ListSearchBar>
      );
    }
    const { container } = render(<Third />);
    const row = container.querySelector('form .arco-row');
    expect(row?.querySelectorAll(':scope > .arco-col-8')).toHaveLength(2);
    expect(row?.querySelectorAll(':scope > .arco-col-16')).toHaveLength(1);
    expect(container.querySelectorAll('.arco-form-label-item-left')).toHaveLength(3);
  });

  it('a searchable ChoiceFilter narrows its options to the labels that contain what is typed', async () => {
    function Products() {
      const [form] = Form.useForm<{ product_key?: string }>();
      return (
        <ListSearchBar form={form} grid="third" onSearch={() => undefined}>
          <ChoiceFilter
            label="Product"
            field="product_key"
            placeholder="All products"
            searchable
            options={[
              { value: 'pk1', label: 'Water Meter' },
              { value: 'pk2', label: 'Gas Meter' },
              { value: 'pk3', label: 'Gateway' },
            ]}
          />
        </ListSearchBar>
      );
    }
    const { container } = render(<Products />);
    const input = container.querySelector('#product_key_input input')!;
    await act(async () => fireEvent.focus(input));
    await act(async () => fireEvent.change(input, { target: { value: 'meter' } }));
    const shown = [...document.querySelectorAll('.arco-select-option')].map((o) => o.textContent);
    expect(shown).toEqual(['Water Meter', 'Gas Meter']);
  });
});
