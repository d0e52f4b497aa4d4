import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Message } from '@arco-design/web-react';
import {
  ButtonAction,
  ConfirmAction,
  EditDeleteActions,
  LinkAction,
  RowActions,
  RowLink,
} from './row-actions';

function renderAt(element: React.ReactNode) {
  return render(
    <MemoryRouter initialEntries={['/list']}>
      <Routes>
        <Route path="/list" element={element} />
        <Route path="/edit/7" element={<p>edit page 7</p>} />
        <Route path="/detail/7" element={<p>detail page 7</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

// Arco's own texts follow its locale provider, which these tests do not mount.
const confirmButton = () => screen.findByRole('button', { name: /^(OK|确定)$/ });

describe('EditDeleteActions', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));

  it('deletes only after the confirmation, and Edit opens the edit page', async () => {
    const onDelete = vi.fn(() => Promise.resolve());
    renderAt(<EditDeleteActions edit="/edit/7" onDelete={onDelete} confirm="Delete this one?" />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Delete' })));
    expect(screen.getByText('Delete this one?')).toBeTruthy();
    expect(onDelete).not.toHaveBeenCalled();
    await act(async () => fireEvent.click(await confirmButton()));
    expect(onDelete).toHaveBeenCalledTimes(1);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Edit' })));
    expect(screen.getByText('edit page 7')).toBeTruthy();
  });

  it('calls an edit function, shows the row’s own actions first, and survives a refused delete', async () => {
    const edit = vi.fn();
    const onDelete = vi.fn(() => Promise.reject(new Error('refused')));
    renderAt(
      <EditDeleteActions edit={edit} onDelete={onDelete}>
        <LinkAction to="/detail/7">Details</LinkAction>
      </EditDeleteActions>,
    );
    const names = screen.getAllByRole('button').map((b) => b.textContent);
    expect(names).toEqual(['Details', 'Edit', 'Delete']);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Edit' })));
    expect(edit).toHaveBeenCalledTimes(1);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Delete' })));
    await act(async () => fireEvent.click(await confirmButton()));
    expect(onDelete).toHaveBeenCalledTimes(1);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Details' })));
    expect(screen.getByText('detail page 7')).toBeTruthy();
  });

  it('leaves out Edit when there is nothing to edit', () => {
    renderAt(<EditDeleteActions onDelete={() => Promise.resolve()} />);
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual(['Delete']);
  });
});

describe('ConfirmAction and ButtonAction', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));

  it('asks with its hint, runs once confirmed and toasts what it did; a refusal toasts nothing', async () => {
    const success = vi.spyOn(Message, 'success');
    const onConfirm = vi.fn(() => Promise.resolve());
    const refuse = vi.fn(() => Promise.reject(new Error('refused')));
    const open = vi.fn();
    renderAt(
      <RowActions>
        <ButtonAction onClick={open}>Reset password</ButtonAction>
        <ConfirmAction
          title="Unbind it?"
          hint="The owner loses it"
          status="warning"
          onConfirm={onConfirm}
          done="Unbound"
        >
          Unbind
        </ConfirmAction>
        <ConfirmAction title="Disable it?" onConfirm={refuse} done="Disabled">
          Disable
        </ConfirmAction>
      </RowActions>,
    );
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual([
      'Reset password',
      'Unbind',
      'Disable',
    ]);
    expect(screen.getByRole('button', { name: 'Unbind' }).className).toContain('arco-btn-status-warning');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Reset password' })));
    expect(open).toHaveBeenCalledTimes(1);

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Unbind' })));
    expect(screen.getByText('The owner loses it')).toBeTruthy();
    expect(onConfirm).not.toHaveBeenCalled();
    await act(async () => fireEvent.click(await confirmButton()));
    expect(onConfirm).toHaveBeenCalledTimes(1);
    expect(success).toHaveBeenLastCalledWith('Unbound');

    success.mockClear();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Disable' })));
    const oks = await screen.findAllByRole('button', { name: /^(OK|确定)$/ });
    await act(async () => fireEvent.click(oks.at(-1)!));
    expect(refuse).toHaveBeenCalledTimes(1);
    expect(success).not.toHaveBeenCalled();
    success.mockRestore();
  });
});

describe('RowLink', () => {
  it('links the cell to its page and keeps the class it is given', async () => {
    renderAt(
      <RowLink to="/detail/7" className="mono" title="SN 7">
        SN-7
      </RowLink>,
    );
    const link = screen.getByRole('link', { name: 'SN-7' });
    expect(link.getAttribute('href')).toBe('/detail/7');
    expect(link.getAttribute('title')).toBe('SN 7');
    expect(link.className.split(' ')).toContain('mono');
    expect(link.className.split(' ').length).toBe(2);
    await act(async () => fireEvent.click(link));
    expect(screen.getByText('detail page 7')).toBeTruthy();
  });
});
