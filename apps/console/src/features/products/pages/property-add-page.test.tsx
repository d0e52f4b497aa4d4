import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderPage } from '../../../lib/mock-api.test-kit';
import zhCN from '../locale/zh-CN';
import { modelCandidates } from '../model-definitions';
import PropertyAddPage from './property-add-page';

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

const PRODUCT = {
  id: 1,
  name: 'Fleet DTU',
  product_key: 'pkfleet',
  access: 'manage',
  properties: [
    { key: 'temp', name: '温度', name_us: '', charttype: 'line', datatype: 'number', unit: '°C', cycles: 0 },
  ],
};
const MODEL = {
  product_key: 'pkfleet',
  product_name: 'Fleet DTU',
  properties: PRODUCT.properties,
  events: [
    {
      key: 'overheat',
      name: '过热',
      name_us: '',
      level: 'warn',
      output: [
        { key: 'temp', name: '温度', datatype: 'float', unit: '°C' },
        { key: 'board_temp', name: '板温', datatype: 'float', unit: '°C' },
      ],
    },
  ],
  services: [
    {
      key: 'reboot',
      name: '重启',
      name_us: '',
      input: [{ key: 'delay', name: '延时', datatype: 'int', unit: 's' }],
      output: [{ key: 'reboot', name: '结果', datatype: 'bool', unit: '' }],
    },
  ],
};

const userInfo = (role: 'admin' | 'user') => ({ data: { uid: 7, username: 'u', role, nickname: '' } });

describe('property add page and the thing model', () => {
  it('offers the parameters that are not properties yet, and refuses an event or service key', () => {
    expect(modelCandidates(MODEL as never, ['temp']).map((c) => [c.key, c.datatype, c.unit])).toEqual([
      ['board_temp', 'number', '°C'],
      ['delay', 'number', 's'],
    ]);
  });

  it('prefills the form from a picked parameter and saves it', async () => {
    const calls = mockApi({
      'GET /api/user/info': userInfo('admin'),
      'GET /api/products/pkfleet': { data: PRODUCT },
      'GET /api/thing-models/pkfleet': { data: MODEL },
      'POST /api/products/pkfleet/properties': { data: PRODUCT },
    });
    renderPage(PropertyAddPage, '/product/property/add/:productKey', '/product/property/add/pkfleet');
    const picker = await screen.findByTestId('property-from-model');
    await act(async () => fireEvent.click(picker.querySelector('.arco-select-view') ?? picker));
    const option = [...document.querySelectorAll('.arco-select-option')];
    expect(option.map((o) => o.textContent)).toEqual([
      `板温 (board_temp) · ${zhCN['product.prop.fromModel.event']} 过热 · float, °C`,
      `延时 (delay) · ${zhCN['product.prop.fromModel.service']} 重启 · int, s`,
    ]);
    await act(async () => fireEvent.click(option[0]!));
    expect((screen.getByPlaceholderText('temperature') as HTMLInputElement).value).toBe('board_temp');
    expect((screen.getByPlaceholderText('°C') as HTMLInputElement).value).toBe('°C');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: zhCN['product.save'] })));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      key: 'board_temp',
      name: '板温',
      unit: '°C',
      datatype: 'number',
    });
  });

  it("refuses a service's key before sending", async () => {
    const calls = mockApi({
      'GET /api/user/info': userInfo('admin'),
      'GET /api/products/pkfleet': { data: PRODUCT },
      'GET /api/thing-models/pkfleet': { data: MODEL },
      'POST /api/products/pkfleet/properties': { data: PRODUCT },
    });
    renderPage(PropertyAddPage, '/product/property/add/:productKey', '/product/property/add/pkfleet');
    await screen.findByTestId('property-from-model');
    const key = screen.getByPlaceholderText('temperature');
    fireEvent.change(key, { target: { value: 'reboot' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: zhCN['product.save'] })));
    expect(await screen.findByText(zhCN['product.prop.serviceKey'])).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it("shows the server's refusal of an event key (a user who cannot read the model)", async () => {
    const calls = mockApi({
      'GET /api/user/info': userInfo('user'),
      'GET /api/products/pkfleet': { data: PRODUCT },
      'POST /api/products/pkfleet/properties': {
        refuse: 70002,
        details: [{ field: 'key', message: 'event_key' }],
      },
    });
    renderPage(PropertyAddPage, '/product/property/add/:productKey', '/product/property/add/pkfleet');
    const key = await screen.findByPlaceholderText('temperature');
    fireEvent.change(key, { target: { value: 'overheat' } });
    fireEvent.change(screen.getAllByRole('textbox')[1]!, { target: { value: '过热' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: zhCN['product.save'] })));
    expect(await screen.findByText(zhCN['product.prop.eventKey'])).toBeTruthy();
    expect(screen.queryByTestId('property-from-model')).toBeNull();
    expect(calls.some((c) => c.path === '/api/thing-models/pkfleet')).toBe(false);
  });
});
