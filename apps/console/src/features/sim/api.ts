/**
 * The SIM pages' calls (docs/sim.md): cards, usage, packages, orders and balance for everyone; providers, stock,
 * creation logs, refunds, completions and top-ups for admins. Shapes are the contract's (sim.ts).
 */
import type {
  BalanceAccountItem,
  BalanceInfo,
  LedgerItem,
  LedgerKind,
  OrderDetail,
  OrderItem,
  OrderKind,
  OrderStatus,
  PackageCreateBody,
  PackageItem,
  PackageType,
  PackageUpdateBody,
  SimCardBatchResult,
  SimCardCreateBody,
  SimCardDetail,
  SimCardFlag,
  SimCardItem,
  SimCardLogDetail,
  SimCardLogItem,
  SimCardOrderItem,
  SimCardStatus,
  SimCardUpdateBody,
  SimOperator,
  SimProviderBody,
  SimProviderItem,
  SimProviderTestResult,
  SimSyncRun,
  SimUsageImportResult,
  SimUsageSeries,
  TopupBody,
} from '@cellhub/contract/sim';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getToken } from '../../lib/auth';
import { ApiError, buildUrl, http, type QueryParams } from '../../lib/request';

const enc = encodeURIComponent;

/** Every SIM query starts with this key, so one write refreshes every SIM figure on screen. */
export const SIM_KEY = ['sim'] as const;

export interface Paging {
  current: number;
  per_page: number;
}

export interface CardFilter {
  keyword?: string;
  status?: SimCardStatus;
  operator?: SimOperator;
  flag?: SimCardFlag;
  expiring_days?: number;
  /** Admin list only. */
  provider_id?: number;
  package_id?: number;
  uid?: number;
}
export type CardListParams = Paging & CardFilter;

/** The caller's cards (GET /api/cards) or, for the stock pages, every card (GET /api/card-admin/cards). */
export function useCardList(params: CardListParams, scope: 'mine' | 'admin' = 'mine') {
  const url = scope === 'admin' ? '/api/card-admin/cards' : '/api/cards';
  return useQuery({
    queryKey: [...SIM_KEY, 'cards', scope, params],
    queryFn: () => http.list<SimCardItem>(url, { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useCard(iccid: string | undefined) {
  return useQuery({
    queryKey: [...SIM_KEY, 'card', iccid],
    queryFn: () => http.get<SimCardDetail>(`/api/cards/${enc(iccid ?? '')}`, { silent: true }),
    enabled: !!iccid,
    retry: (n, e) => !(e instanceof ApiError && e.answered) && n < 2,
  });
}

export function useCardUsage(iccid: string, granularity: 'day' | 'month') {
  return useQuery({
    queryKey: [...SIM_KEY, 'usage', iccid, granularity],
    queryFn: () =>
      http.get<SimUsageSeries>(`/api/cards/${enc(iccid)}/usage`, { params: { granularity }, silent: true }),
    placeholderData: keepPreviousData,
  });
}

export function useCardOrders(iccid: string, params: Paging) {
  return useQuery({
    queryKey: [...SIM_KEY, 'card-orders', iccid, params],
    queryFn: () => http.list<SimCardOrderItem>(`/api/cards/${enc(iccid)}/orders`, { ...params }),
    placeholderData: keepPreviousData,
  });
}

/**
 * The CSV export of the card list (same filters). It needs the bearer token, so it is fetched and handed to the
 * browser as a file; failures answer like the request layer (ApiError with the code).
 */
export async function downloadCardExport(filter: CardFilter, scope: 'mine' | 'admin'): Promise<void> {
  const url = scope === 'admin' ? '/api/card-admin/cards/export' : '/api/cards/export';
  const token = getToken();
  const res = await fetch(buildUrl(url, { ...filter } as QueryParams), {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { code?: number; message?: string };
    throw new ApiError(body.code ?? 0, body.message ?? res.statusText, res.status);
  }
  const disposition = res.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'sim-cards.csv';
  saveBlob(await res.blob(), name);
}

export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

// --- packages ---------------------------------------------------------------------------------------------------

export interface PackageListParams extends Paging {
  keyword?: string;
  operator?: SimOperator;
  type?: PackageType;
  /** Admins only: '1' on sale, '0' off sale. */
  on_sale?: '1' | '0';
}

export function usePackageList(params: PackageListParams) {
  return useQuery({
    queryKey: [...SIM_KEY, 'packages', params],
    queryFn: () => http.list<PackageItem>('/api/packages', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function usePackage(id: number | undefined) {
  return useQuery({
    queryKey: [...SIM_KEY, 'package', id],
    queryFn: () => http.get<PackageItem>(`/api/packages/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: SIM_KEY }),
      // The Workplace shows the balance, pending orders and card totals.
      qc.invalidateQueries({ queryKey: ['dashboard'] }),
    ]);
}

/** Form pages put refusals next to their fields. */
export function useSavePackage() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: PackageCreateBody | PackageUpdateBody }) =>
      id
        ? http.put<PackageItem>(`/api/packages/${id}`, body, { silent: true })
        : http.post<PackageItem>('/api/packages', body, { silent: true }),
    onSuccess: invalidate,
  });
}

/** Silent: a package in use (60001) is explained by the page with its counts. */
export function useDeletePackage() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/packages/${id}`, { silent: true }),
    onSuccess: invalidate,
  });
}

// --- orders and balance -----------------------------------------------------------------------------------------

export interface OrderListParams extends Paging {
  keyword?: string;
  status?: OrderStatus;
  kind?: OrderKind;
  uid?: number;
  package_id?: number;
  from?: string;
  to?: string;
}

export function useOrderList(params: OrderListParams, refetchInterval?: number) {
  return useQuery({
    queryKey: [...SIM_KEY, 'orders', params],
    queryFn: () => http.list<OrderItem>('/api/orders', { ...params }),
    placeholderData: keepPreviousData,
    refetchInterval,
  });
}

export function useOrder(id: number) {
  return useQuery({
    queryKey: [...SIM_KEY, 'order', id],
    queryFn: () => http.get<OrderDetail>(`/api/orders/${id}`),
  });
}

/**
 * Creates an order for one package on some cards and, with `pay`, pays it from the balance in the same call. The
 * Idempotency-Key makes a repeat of this request (a retry after a lost answer) answer the same order and charge
 * nothing more. Silent: the page explains 60002 (balance) and 60005 (package does not fit a card) itself.
 */
export function useCreateOrder() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({
      package_id,
      iccids,
      pay,
      idempotencyKey,
    }: {
      package_id: number;
      iccids: string[];
      pay: boolean;
      idempotencyKey: string;
    }) =>
      http.post<OrderDetail>(
        '/api/orders',
        { package_id, iccids, pay },
        { silent: true, headers: { 'Idempotency-Key': idempotencyKey } },
      ),
    onSettled: invalidate,
  });
}

export function usePayOrder() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, idempotencyKey }: { id: number; idempotencyKey: string }) =>
      http.post<OrderDetail>(`/api/orders/${id}/pay`, undefined, {
        silent: true,
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
    onSettled: invalidate,
  });
}

export function useCancelOrder() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.post<OrderDetail>(`/api/orders/${id}/cancel`),
    onSettled: invalidate,
  });
}

/** Admin: refund a paid order or complete a pending one paid outside Cellhub; the note is audited. */
export function useOrderAdminAction() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, action, note }: { id: number; action: 'refund' | 'complete'; note: string }) =>
      http.post<OrderDetail>(`/api/orders/${id}/${action}`, { note }),
    onSettled: invalidate,
  });
}

export function useBalance(uid?: number) {
  return useQuery({
    queryKey: [...SIM_KEY, 'balance', uid ?? 'me'],
    queryFn: () => http.get<BalanceInfo>('/api/balance', { params: { uid } }),
  });
}

export interface LedgerParams extends Paging {
  uid?: number;
  kind?: LedgerKind;
}

export function useLedger(params: LedgerParams, enabled = true) {
  return useQuery({
    queryKey: [...SIM_KEY, 'ledger', params],
    queryFn: () => http.list<LedgerItem>('/api/balance/ledger', { ...params }),
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function useTopup() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: TopupBody) => http.post<LedgerItem>('/api/balance/topups', body),
    onSuccess: invalidate,
  });
}

export function useBalanceAccounts(params: Paging & { keyword?: string }, enabled = true) {
  return useQuery({
    queryKey: [...SIM_KEY, 'accounts', params],
    queryFn: () => http.list<BalanceAccountItem>('/api/balance/accounts', { ...params }),
    placeholderData: keepPreviousData,
    enabled,
    staleTime: 5_000,
  });
}

// --- providers (admin) ------------------------------------------------------------------------------------------

export interface ProviderListParams extends Paging {
  keyword?: string;
  kind?: SimProviderItem['kind'];
  operator?: SimOperator;
}

export function useProviderList(params: ProviderListParams) {
  return useQuery({
    queryKey: [...SIM_KEY, 'providers', params],
    queryFn: () => http.list<SimProviderItem>('/api/card-admin/providers', { ...params }),
    placeholderData: keepPreviousData,
  });
}

/** Every provider, for the selects of the card pages (an operator has a handful of accounts). */
export function useProviderOptions(enabled = true) {
  return useQuery({
    queryKey: [...SIM_KEY, 'providers', 'options'],
    queryFn: () => http.list<SimProviderItem>('/api/card-admin/providers', { current: 1, per_page: 100 }),
    enabled,
    staleTime: 30_000,
  });
}

export function useProvider(id: number | undefined) {
  return useQuery({
    queryKey: [...SIM_KEY, 'provider', id],
    queryFn: () => http.get<SimProviderItem>(`/api/card-admin/providers/${id}`, { silent: true }),
    enabled: id !== undefined,
  });
}

export function useSaveProvider() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: SimProviderBody }) =>
      id
        ? http.put<SimProviderItem>(`/api/card-admin/providers/${id}`, body, { silent: true })
        : http.post<SimProviderItem>('/api/card-admin/providers', body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useDeleteProvider() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.delete<null>(`/api/card-admin/providers/${id}`, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useTestProvider() {
  return useMutation({
    mutationFn: (id: number) => http.post<SimProviderTestResult>(`/api/card-admin/providers/${id}/test`),
  });
}

export function useSyncProvider() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => http.post<SimSyncRun>(`/api/card-admin/providers/${id}/sync`),
    onSuccess: invalidate,
  });
}

export function useSyncRuns(params: Paging & { provider_id?: number }, live: boolean) {
  return useQuery({
    queryKey: [...SIM_KEY, 'sync-runs', params],
    queryFn: () => http.list<SimSyncRun>('/api/card-admin/sync-runs', { ...params }),
    placeholderData: keepPreviousData,
    // Runs move from queued to finished within seconds; poll only while one is unfinished.
    refetchInterval: live ? 3_000 : false,
  });
}

// --- stock (admin) ----------------------------------------------------------------------------------------------

export function useCreateCard() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: SimCardCreateBody) =>
      http.post<SimCardDetail>('/api/card-admin/cards', body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useUpdateCard() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ iccid, body }: { iccid: string; body: SimCardUpdateBody }) =>
      http.put<SimCardDetail>(`/api/card-admin/cards/${enc(iccid)}`, body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useDeleteCard() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (iccid: string) => http.delete<null>(`/api/card-admin/cards/${enc(iccid)}`),
    onSuccess: invalidate,
  });
}

export function useCardStatusAction() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ iccid, action }: { iccid: string; action: 'activate' | 'suspend' }) =>
      http.post<SimCardDetail>(`/api/card-admin/cards/${enc(iccid)}/status`, { action }, { silent: true }),
    onSettled: invalidate,
  });
}

function fileForm(file: File): FormData {
  const form = new FormData();
  form.append('file', file, file.name);
  return form;
}

/** Silent: the batch page shows file refusals (50001-50003) beside the upload area. */
export function useBatchImport() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({
      file,
      onProgress,
    }: {
      file: File;
      onProgress?: (loaded: number, total?: number) => void;
    }) =>
      http.post<SimCardBatchResult>('/api/card-admin/cards/batch', fileForm(file), {
        silent: true,
        onUploadProgress: onProgress,
      }),
    onSuccess: invalidate,
  });
}

export function useUsageImport() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (file: File) =>
      http.post<SimUsageImportResult>('/api/card-admin/usage/import', fileForm(file), { silent: true }),
    onSuccess: invalidate,
  });
}

export function useCardLogs(params: Paging) {
  return useQuery({
    queryKey: [...SIM_KEY, 'card-logs', params],
    queryFn: () => http.list<SimCardLogItem>('/api/card-admin/card-logs', { ...params }),
    placeholderData: keepPreviousData,
  });
}

export function useCardLog(id: number | undefined) {
  return useQuery({
    queryKey: [...SIM_KEY, 'card-log', id],
    queryFn: () => http.get<SimCardLogDetail>(`/api/card-admin/card-logs/${id}`),
    enabled: id !== undefined,
  });
}
