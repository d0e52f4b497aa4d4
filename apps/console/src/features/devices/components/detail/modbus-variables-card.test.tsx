import type * as Arco from '@arco-design/web-react';
import type { ModbusExchange, ModbusStatusList } from '@cellhub/contract/modbus-polling';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, http } from '../../../../lib/request';
import ModbusVariablesCard from './modbus-variables-card';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

const base = {
  unit: '',
  slave_address: 1,
  reads: 0,
  timeouts: 0,
  exceptions: 0,
  crc_errors: 0,
  invalid: 0,
  last_value: null,
  last_read_at: null,
  last_error: '',
  last_error_at: null,
};
const STATUS: ModbusStatusList = {
  template_id: 1,
  collect_mode: 'platform',
  variables: [
    {
      ...base,
      tag: 'temp',
      name: 'Water temperature',
      unit: '°C',
      register_type: 'holding',
      register_address: 1,
      data_format: 'int16',
      access: 'r',
      reads: 12,
      timeouts: 2,
      last_value: 21.5,
      last_error: 'the slave did not answer in time',
    },
    {
      ...base,
      tag: 'sp',
      name: 'Setpoint',
      register_type: 'holding',
      register_address: 11,
      data_format: 'uint16',
      access: 'rw',
    },
  ],
};
const READ: ModbusExchange = {
  outcome: 'response',
  code: 0,
  message: '',
  request: '010300000001840a',
  response: '01030200d7f81a',
  function_code: 3,
  exception_code: null,
  raw: 215,
  value: 21.5,
  elapsed_ms: 42,
};

function renderCard(readOnly = false) {
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <ModbusVariablesCard sn="SN-1" readOnly={readOnly} />
    </QueryClientProvider>,
  );
}

describe('Modbus variables card on the device page', () => {
  beforeEach(() => {
    localStorage.setItem('arco-locale', 'en-US');
    vi.restoreAllMocks();
  });

  it('is not shown for a device without a data template', async () => {
    const get = vi.spyOn(http, 'get').mockRejectedValue(new ApiError(81004, 'no template', 400));
    const { container } = renderCard();
    await waitFor(() => expect(get).toHaveBeenCalled());
    expect(container.querySelector('[data-testid="modbus-variables-card"]')).toBeNull();
  });

  it('polls counters every 5 s for a device with variables, and never again one without a template', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const refused = vi.spyOn(http, 'get').mockRejectedValue(new ApiError(81004, 'no template', 400));
      const first = renderCard();
      await waitFor(() => expect(refused).toHaveBeenCalledTimes(1));
      await vi.advanceTimersByTimeAsync(30_000);
      expect(refused).toHaveBeenCalledTimes(1);
      first.unmount();

      vi.restoreAllMocks();
      const polled = vi.spyOn(http, 'get').mockResolvedValue(STATUS);
      renderCard();
      await screen.findByText('Water temperature');
      expect(polled).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(5_000);
      await waitFor(() => expect(polled).toHaveBeenCalledTimes(2));
    } finally {
      vi.useRealTimers();
    }
  });

  it('lists variables with counters and test-reads one, showing the frames', async () => {
    vi.spyOn(http, 'get').mockResolvedValue(STATUS);
    const post = vi.spyOn(http, 'post').mockResolvedValue(READ);
    renderCard();
    await screen.findByText('Water temperature');
    expect(screen.getByTestId('mb-errors-temp').textContent).toBe('Timeout 2');
    expect(screen.getByTestId('mb-errors-sp').textContent).toBe('0');
    expect(screen.getByText('21.5 °C')).toBeTruthy();
    expect(screen.queryByTestId('mb-write-temp')).toBeNull(); // read-only variable
    fireEvent.click(screen.getByTestId('mb-read-temp'));
    await screen.findByTestId('mb-result');
    expect(post).toHaveBeenCalledWith('/api/devices/SN-1/modbus/variables/temp/read', undefined, {
      silent: true,
    });
    expect(screen.getByTestId('mb-response-hex').textContent).toBe('01 03 02 00 D7 F8 1A');
    expect(screen.getByTestId('mb-result-value').textContent).toContain('21.5');
  });

  it('writes a value and shows a refused write with its frames', async () => {
    vi.spyOn(http, 'get').mockResolvedValue(STATUS);
    const post = vi.spyOn(http, 'post').mockRejectedValue(
      new ApiError(81002, 'exception 2: Illegal data address', 400, {
        ...READ,
        outcome: 'exception',
        code: 81002,
        message: 'exception 2: Illegal data address',
        response: '018602c3a1',
        exception_code: 2,
      }),
    );
    renderCard();
    fireEvent.click(await screen.findByTestId('mb-write-sp'));
    const el = await screen.findByTestId('mb-write-value');
    const input = el.tagName === 'INPUT' ? el : el.querySelector('input')!;
    fireEvent.change(input, { target: { value: '70' } });
    fireEvent.blur(input);
    fireEvent.click(screen.getByTestId('mb-write-submit'));
    await screen.findByTestId('mb-result');
    expect(post).toHaveBeenCalledWith(
      '/api/devices/SN-1/modbus/variables/sp/write',
      { value: 70 },
      { silent: true },
    );
    expect(screen.getByText(/Illegal data address/)).toBeTruthy();
  });

  it('offers no reads or writes to a view-only share', async () => {
    vi.spyOn(http, 'get').mockResolvedValue(STATUS);
    renderCard(true);
    await screen.findByText('Water temperature');
    expect(screen.queryByTestId('mb-read-temp')).toBeNull();
    expect(screen.queryByTestId('mb-write-sp')).toBeNull();
  });
});
