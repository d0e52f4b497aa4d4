import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderPage } from '../../../lib/mock-api.test-kit';
import zhCN from '../locale/zh-CN';
import ProductiveGroupDetailPage from './productive-group-detail-page';
import TaskDetailPage from './task-detail-page';
import TaskListPage from './task-list-page';

afterEach(() => vi.unstubAllGlobals());

const TASK = {
  id: 7,
  name: 'November batch',
  product_key: 'pk_dtu_400_a',
  product_name: 'DTU-400',
  hw_group_id: 5,
  hw_group_name: 'DTU-400 rev B',
  hw_version: 'DTU-400 rev B (EC200U-CN / V1.2)',
  quantity: 20,
  sn_rule: { type: 'rule', prefix: 'DTU', digits: 4, start: 1 },
  first_sn: 'DTU2611260001',
  last_sn: 'DTU2611260020',
  firmware_version_id: null,
  firmware_version: null,
  planned_date: '2026-11-26',
  note: '',
  state: 'draft',
  progress: { created: 0, tested_ok: 0, failed: 0, mismatch: 0, shipped: 0 },
  startedat: null,
  finishedat: null,
  createdat: '2026-11-26T08:00:00.000Z',
  updatedat: '2026-11-26T08:00:00.000Z',
};
const producing = {
  ...TASK,
  state: 'producing',
  startedat: '2026-11-26T08:10:00.000Z',
  progress: { created: 20, tested_ok: 12, failed: 1, mismatch: 1, shipped: 3 },
};
const device = (sn: string) => ({
  sn,
  product_key: TASK.product_key,
  task_id: 7,
  task_name: TASK.name,
  tested: 'ok',
  mismatch: [],
  uid: null,
  online: 0,
  createdat: '2026-11-26T08:10:00.000Z',
  tested_at: '2026-11-26T08:20:00.000Z',
});

describe('production task list', () => {
  it('shows each task with its SN range, state and progress', async () => {
    mockApi({ 'GET /api/production/tasks': { data: [producing], total: 1 } });
    renderPage(TaskListPage, '/product/productive/task', '/product/productive/task');
    const row = (await screen.findByText('November batch')).closest('tr') as HTMLElement;
    expect(within(row).getByText('DTU2611260001 … DTU2611260020')).toBeTruthy();
    expect(within(row).getByText(zhCN['prod.task.state.producing'])).toBeTruthy();
    expect(within(row).getByText('13/20')).toBeTruthy();
  });
});

describe('production task page', () => {
  it('starts a draft after the confirmation', async () => {
    const calls = mockApi({
      'GET /api/production/tasks/7': { data: TASK },
      'GET /api/production/tasks/7/devices': { data: [], total: 0 },
      'POST /api/production/tasks/7/start': { data: producing },
    });
    renderPage(TaskDetailPage, '/product/productive/task/:id', '/product/productive/task/7');
    fireEvent.click(await screen.findByRole('button', { name: zhCN['prod.task.startAction'] }));
    expect(await screen.findByText('将创建 20 台库存设备，确定开始生产？')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(calls.some((c) => c.path === '/api/production/tasks/7/start')).toBe(true));
  });

  it('names the clashing SNs when the start is refused (20402)', async () => {
    mockApi({
      'GET /api/production/tasks/7': { data: TASK },
      'GET /api/production/tasks/7/devices': { data: [], total: 0 },
      'POST /api/production/tasks/7/start': {
        refuse: 20402,
        details: { sns: ['DTU2611260003', 'DTU2611260004'], count: 2 },
      },
    });
    renderPage(TaskDetailPage, '/product/productive/task/:id', '/product/productive/task/7');
    fireEvent.click(await screen.findByRole('button', { name: zhCN['prod.task.startAction'] }));
    fireEvent.click(await screen.findByRole('button', { name: '确定' }));
    expect(
      await screen.findByText('2 个 SN 已存在，未创建任何设备：DTU2611260003, DTU2611260004'),
    ).toBeTruthy();
  });

  it('shows progress and devices of a started task, and its label sheet', async () => {
    mockApi({
      'GET /api/production/tasks/7': { data: producing },
      'GET /api/production/tasks/7/devices': { data: [device('DTU2611260001')], total: 20 },
      'GET /api/production/tasks/7/labels': {
        data: {
          task_id: 7,
          task_name: TASK.name,
          product_name: 'DTU-400',
          hw_version: TASK.hw_version,
          sns: ['DTU2611260001', 'DTU2611260002'],
        },
      },
    });
    renderPage(TaskDetailPage, '/product/productive/task/:id', '/product/productive/task/7');
    expect(await screen.findByText('DTU2611260001')).toBeTruthy();
    expect(screen.queryByRole('button', { name: zhCN['prod.task.startAction'] })).toBeNull();
    expect(screen.getByText('13/20')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: zhCN['prod.task.labels'] }));
    const sheet = await screen.findByTestId('label-sheet');
    await waitFor(() => expect(sheet.querySelectorAll('[data-sn]')).toHaveLength(2));
    const label = sheet.querySelector('[data-sn="DTU2611260002"]') as HTMLElement;
    expect(within(label).getByText('DTU2611260002')).toBeTruthy();
    expect(within(label).getByText(TASK.hw_version)).toBeTruthy();
    expect(label.querySelector('svg[aria-label="QR code"]')).toBeTruthy();
  });
});

describe('productive group page', () => {
  it("adds a task's devices and tells what happened to each", async () => {
    const calls = mockApi({
      'GET /api/production/groups/3': {
        data: {
          id: 3,
          name: 'Shipment 1',
          description: '',
          devices: 0,
          createdat: '2026-11-26T08:00:00.000Z',
          updatedat: '2026-11-26T08:00:00.000Z',
        },
      },
      'GET /api/production/groups/3/devices': { data: [], total: 0 },
      'GET /api/production/tasks': { data: [producing], total: 1 },
      'POST /api/production/groups/3/devices': {
        data: [
          { sn: 'A1', code: 0, result: 'added' },
          { sn: 'A2', code: 11014, result: 'not_in_stock' },
          { sn: 'NOPE', code: 10117, result: 'not_found' },
        ],
      },
    });
    renderPage(ProductiveGroupDetailPage, '/productive/group/:id', '/productive/group/3');
    expect(await screen.findByText(zhCN['prod.group.empty'])).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: zhCN['prod.group.add'] }));
    fireEvent.change(await screen.findByPlaceholderText(zhCN['prod.group.add.sns.placeholder']), {
      target: { value: 'A1\nA2\nNOPE' },
    });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ sns: 'A1\nA2\nNOPE' }),
    );
    expect(await screen.findByText('加入 1 台；已在分组 0；不存在 1；不在库存 1')).toBeTruthy();
  });
});
