import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderPage } from '../../../lib/mock-api.test-kit';
import zhCN from '../locale/zh-CN';
import HwGroupDetailPage from './hw-group-detail-page';
import HwInfoPage from './hw-info-page';
import HwValuePage from './hw-value-page';

afterEach(() => vi.unstubAllGlobals());

const VALUE = {
  id: 3,
  type: 'module_model',
  value: 'EC200U-CN',
  description: 'Quectel Cat.1',
  groups: 1,
  createdat: '2026-11-26T08:00:00.000Z',
  updatedat: '2026-11-26T08:00:00.000Z',
};

describe('hardware values', () => {
  it('lists typed values and adds one through the dialog', async () => {
    const calls = mockApi({
      'GET /api/hw/values': { data: [VALUE], total: 1 },
      'POST /api/hw/values': (body) => ({ data: { ...VALUE, id: 4, groups: 0, ...(body as object) } }),
    });
    renderPage(HwValuePage, '/hw/value', '/hw/value');
    const row = (await screen.findByText('EC200U-CN')).closest('tr') as HTMLElement;
    expect(within(row).getByText(zhCN['hw.type.module_model'])).toBeTruthy();
    expect(within(row).getByText('Quectel Cat.1')).toBeTruthy();
    expect(screen.getByText('共 1 条')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: zhCN['hw.value.create'] }));
    const input = await screen.findByPlaceholderText(zhCN['hw.value.value.placeholder']);
    // An empty value is refused in the form, before any request.
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText(zhCN['hw.value.value.required'])).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.change(input, { target: { value: 'ML307R' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
        type: 'module_model',
        value: 'ML307R',
        description: '',
      }),
    );
  });

  it('keeps the type of a value a group uses', async () => {
    mockApi({ 'GET /api/hw/values': { data: [VALUE], total: 1 } });
    renderPage(HwValuePage, '/hw/value', '/hw/value');
    const row = (await screen.findByText('EC200U-CN')).closest('tr') as HTMLElement;
    fireEvent.click(within(row).getByRole('button', { name: '编辑' }));
    expect(await screen.findByText(zhCN['hw.value.typeLocked'])).toBeTruthy();
  });
});

describe('hardware group page', () => {
  it('shows the values by type, and a missing group as not found', async () => {
    mockApi({
      'GET /api/hw/groups/5': {
        data: {
          id: 5,
          name: 'DTU-400 rev B',
          description: '',
          values: [
            { id: 3, type: 'module_model', value: 'EC200U-CN' },
            { id: 6, type: 'board_revision', value: 'V1.2' },
          ],
          tasks: 2,
          createdat: '2026-11-26T08:00:00.000Z',
          updatedat: '2026-11-26T08:00:00.000Z',
        },
      },
    });
    renderPage(HwGroupDetailPage, '/hw/group/:id', '/hw/group/5');
    expect(await screen.findByText('DTU-400 rev B')).toBeTruthy();
    expect(screen.getByText('EC200U-CN')).toBeTruthy();
    expect(screen.getByText(zhCN['hw.type.board_revision'])).toBeTruthy();
  });

  it('tells a missing group', async () => {
    mockApi({ 'GET /api/hw/groups/9': { refuse: 10107 } });
    renderPage(HwGroupDetailPage, '/hw/group/:id', '/hw/group/9');
    expect(await screen.findByRole('button', { name: zhCN['hw.group.back'] })).toBeTruthy();
  });
});

describe('hardware records', () => {
  it('shows the test result, the mismatch and searches by SN or IMEI', async () => {
    const calls = mockApi({
      'GET /api/hw/info': {
        data: [
          {
            sn: 'FT-2',
            product_key: 'pk_factory_test1',
            imei: '861234567890121',
            module_model: 'ML307R',
            module_fw: 'ML307RDCLNR01A01',
            mcu_id: '0x0414',
            mac: '02:00:00:00:00:01',
            board_revision: 'V1.2',
            test_ok: false,
            test_items: [{ name: 'rs485', ok: false, detail: 'no echo' }],
            mismatch: ['module_model'],
            task_id: 1,
            first_at: '2026-11-26T08:00:00.000Z',
            last_at: '2026-11-26T08:00:00.000Z',
          },
        ],
        total: 1,
      },
    });
    renderPage(HwInfoPage, '/hw/info', '/hw/info');
    const row = (await screen.findByText('FT-2')).closest('tr') as HTMLElement;
    expect(within(row).getByText(zhCN['hw.info.test.failed'])).toBeTruthy();
    expect(within(row).getByText(zhCN['hw.info.mismatch'])).toBeTruthy();
    expect(within(row).getByText('ML307RDCLNR01A01')).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText(zhCN['hw.info.keyword.placeholder']), {
      target: { value: '8612345' },
    });
    fireEvent.click(screen.getByRole('button', { name: /查询/ }));
    await waitFor(() => expect(calls.at(-1)?.query.get('keyword')).toBe('8612345'));
  });

  it('fits without a horizontal scroll: fixed layout, MCU ID and MAC behind the column setting', async () => {
    localStorage.removeItem('cellhub.hw-info.columns');
    mockApi({
      'GET /api/hw/info': {
        data: [
          {
            sn: 'FT-LONG-SERIAL-NUMBER-0000000001',
            product_key: 'pk_factory_test1',
            imei: '861234567890121',
            module_model: 'EC200U-CN-A-VERY-LONG-MODULE-MODEL',
            module_fw: 'EC200UCNAAR03A04M08_OCPU_BETA_0001',
            mcu_id: '0x0414',
            mac: '02:00:00:00:00:01',
            board_revision: 'V1.2',
            test_ok: true,
            test_items: [],
            mismatch: [],
            task_id: 1,
            first_at: '2026-11-26T08:00:00.000Z',
            last_at: '2026-11-26T08:00:00.000Z',
          },
        ],
        total: 1,
      },
    });
    renderPage(HwInfoPage, '/hw/info', '/hw/info');
    const row = (await screen.findByText('FT-LONG-SERIAL-NUMBER-0000000001')).closest('tr') as HTMLElement;
    const table = row.closest('table') as HTMLTableElement;
    // No scroll width set: the table is as wide as its container, its columns fixed.
    expect(table.style.width === '' || table.style.width === '100%').toBe(true);
    expect(row.closest('.arco-table')?.className).toContain('arco-table-layout-fixed');
    expect(document.querySelector('.arco-table-scroll-position-left, .arco-table-scroll-x')).toBeNull();
    const headers = () => [...document.querySelectorAll('th')].map((th) => th.textContent);
    expect(headers()).toContain(zhCN['hw.info.board']);
    const mcuMac = `${zhCN['hw.info.mcu']} / ${zhCN['hw.info.mac']}`;
    expect(headers()).not.toContain(mcuMac);
    // A long value ends in an ellipsis on one line.
    const model = within(row).getByText('EC200U-CN-A-VERY-LONG-MODULE-MODEL');
    expect(model.style.textOverflow).toBe('ellipsis');
    expect(model.style.whiteSpace).toBe('nowrap');
    // The column setting shows MCU ID and MAC, and remembers it.
    fireEvent.click(screen.getByTestId('hw-info-column-setting'));
    fireEvent.click(await screen.findByLabelText(mcuMac));
    await waitFor(() => expect(headers()).toContain(mcuMac));
    expect(within(row).getByText('02:00:00:00:00:01')).toBeTruthy();
    expect(JSON.parse(localStorage.getItem('cellhub.hw-info.columns') ?? '[]')).toEqual([
      'mcu_mac',
      'board_revision',
    ]);
  });
});
