import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { EditDeleteActions } from './list-parts';

const t = (key: string) => ({ 'alert.edit': 'Edit', 'alert.delete': 'Delete' })[key] ?? key;

describe('EditDeleteActions', () => {
  it('deletes only after the confirmation, and Edit opens the edit page', async () => {
    const onDelete = vi.fn(() => Promise.resolve());
    render(
      <MemoryRouter initialEntries={['/list']}>
        <Routes>
          <Route path="/list" element={<EditDeleteActions t={t} editPath="/edit/7" onDelete={onDelete} />} />
          <Route path="/edit/7" element={<p>edit page 7</p>} />
        </Routes>
      </MemoryRouter>,
    );
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Delete' })));
    expect(onDelete).not.toHaveBeenCalled();
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: /OK|确定/ })));
    expect(onDelete).toHaveBeenCalledTimes(1);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Edit' })));
    expect(screen.getByText('edit page 7')).toBeTruthy();
  });
});
