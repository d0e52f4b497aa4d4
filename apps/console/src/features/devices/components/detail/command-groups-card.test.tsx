import type * as Arco from '@arco-design/web-react';
import type { DeviceCommandGroup } from '@cellhub/contract/command-groups';
import type { CommandItem, DeviceDetail } from '@cellhub/contract/devices';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, http } from '../../../../lib/request';
import CommandGroupsCard from './command-groups-card';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

const device = { sn: 'SN-1', product_key: 'pk01', online: 1 } as DeviceDetail;
const stamp = '2025-01-01T00:00:00.000Z';
const GROUPS: DeviceCommandGroup[] = [
  {
    id: 1,
    name: 'Modbus',
    description: '',
    commands: [
      {
        id: 7,
        group_id: 1,
        name: 'Read registers',
        type: 'hex',
        data: '{{slave}}03{{addr}}{{count}}',
        params: [
          { name: 'slave', label: 'Slave', type: 'int', min: 1, max: 247, bytes: 1 },
          { name: 'addr', label: '', type: 'hex', bytes: 2 },
          { name: 'count', label: '', type: 'int', min: 1, max: 125, bytes: 2 },
        ],
        reply_pattern: '^01',
        timeout_s: 10,
        description: '',
        createdat: stamp,
        updatedat: stamp,
      },
    ],
  },
];

function renderCard() {
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <CommandGroupsCard d={device} />
    </QueryClientProvider>,
  );
}

async function pickCommand() {
  const select = await screen.findByTestId('cg-command');
  fireEvent.click(select.querySelector('.arco-select-view') ?? select);
  fireEvent.click(await screen.findByText('Read registers'));
  await screen.findByTestId('cg-param-slave');
}

const type = (name: string, value: string) => {
  const input = screen.getByTestId(`cg-param-${name}`);
  fireEvent.change(input, { target: { value } });
  fireEvent.blur(input);
};

describe('command groups card on the device page', () => {
  beforeEach(() => {
    localStorage.setItem('arco-locale', 'en-US');
    vi.restoreAllMocks();
    vi.spyOn(http, 'list').mockResolvedValue({ data: [], total: 0, totalExact: true, extra: {} });
  });

  it('checks each parameter in the browser and sends only valid values', async () => {
    vi.spyOn(http, 'get').mockResolvedValue(GROUPS);
    const post = vi.spyOn(http, 'post').mockResolvedValue({ id: 'abc' } as CommandItem);
    renderCard();
    await pickCommand();

    type('slave', '300');
    type('addr', 'zz');
    type('count', '');
    expect(await screen.findByText('Out of range')).toBeTruthy();
    expect(screen.getByText('Only 0-9 and A-F')).toBeTruthy();
    expect(screen.getByText('Please enter a value')).toBeTruthy();
    fireEvent.click(screen.getByTestId('cg-send'));
    expect(post).not.toHaveBeenCalled();

    type('slave', '1');
    type('addr', '0x0A');
    expect(await screen.findByText('Leave out the 0x prefix')).toBeTruthy();
    type('addr', 'a');
    type('count', '2');
    await waitFor(() => expect(screen.getByTestId('cg-preview').textContent).toBe('0103000A0002'));
    fireEvent.click(screen.getByTestId('cg-send'));
    await waitFor(() => expect(post).toHaveBeenCalledTimes(1));
    expect(post.mock.calls[0]?.[0]).toBe('/api/devices/SN-1/command-groups/commands/7/send');
    expect(post.mock.calls[0]?.[1]).toEqual({ params: { slave: '1', addr: 'a', count: '2' } });
  });

  it('is not shown to a view-only share holder (10108) or when the product has no groups', async () => {
    vi.spyOn(http, 'get').mockRejectedValue(new ApiError(10108, 'No permission', 400));
    const { container, unmount } = renderCard();
    await waitFor(() => expect(http.get).toHaveBeenCalled());
    expect(container.querySelector('[data-testid="command-groups-card"]')).toBeNull();
    unmount();
    vi.spyOn(http, 'get').mockResolvedValue([]);
    const second = renderCard();
    await waitFor(() => expect(http.get).toHaveBeenCalled());
    expect(second.container.querySelector('[data-testid="command-groups-card"]')).toBeNull();
  });
});
