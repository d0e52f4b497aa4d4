/**
 * What the platform routes do with a product's cloud binding: the access check (the product must be the caller's,
 * or any for admins), the work of platform-params.service.ts, and the device log entries it returns.
 */
import type { PageQuery } from '@cellhub/contract/common';
import type {
  PlatformCredentialItem,
  PlatformCredentialsBody,
  PlatformSyncResult,
} from '@cellhub/contract/platforms';
import type { Actor, Deps } from '../../lib/deps';
import { writeDeviceLog } from '../device-log/device-log.service';
import { visibleProduct } from '../products/products.service';
import {
  listPlatformCredentials,
  setPlatformCredentials,
  syncPlatformProducts,
  syncProductPlatformParams,
} from './platform-params.service';

export async function listProductPlatformCredentials(
  deps: Deps,
  actor: Actor,
  productKey: string,
  query: PageQuery,
): Promise<{ items: PlatformCredentialItem[]; total: number }> {
  return listPlatformCredentials(deps, await visibleProduct(deps, actor, productKey), query);
}

export async function setProductPlatformCredentials(
  deps: Deps,
  actor: Actor,
  productKey: string,
  input: PlatformCredentialsBody,
): Promise<{ sn: string; code: number; message?: string }[]> {
  const product = await visibleProduct(deps, actor, productKey);
  const { results, log } = await setPlatformCredentials(deps, actor, product, input);
  await writeDeviceLog(deps.db, ...log);
  return results;
}

export async function syncProductPlatform(
  deps: Deps,
  actor: Actor,
  productKey: string,
): Promise<PlatformSyncResult> {
  const { result, log } = await syncProductPlatformParams(
    deps,
    await visibleProduct(deps, actor, productKey),
  );
  await writeDeviceLog(deps.db, ...log);
  return result;
}

/** After an admin changed a platform: every product bound to it (the caller has passed requireAdmin). */
export async function syncPlatformBoundProducts(deps: Deps, platformId: number): Promise<PlatformSyncResult> {
  const { result, log } = await syncPlatformProducts(deps, platformId);
  await writeDeviceLog(deps.db, ...log);
  return result;
}
