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
          <KeywordFilter span={12} label="Keyword" placeholder="kw" onSearch={() => undefined} />
          <ChoiceFilter span={12} label="Kind" field="kind" placeholder="All kinds" options={[]} />
        </ListSearchBar>
      );
    }
    const { container } = render(<Half />);
    const row = container.querySelector('form .arco-row');
    expect(row?.querySelectorAll(':scope > .arco-col-12')).toHaveLength(2);
    expect(container.querySelectorAll('.arco-form-label-item-left')).toHaveLength(2);
  });
});
