import { eq } from 'drizzle-orm';
import type { PublicDevice } from '@cellhub/contract/devices';
import { AppError } from '../../lib/app-error';
import type { Deps, RequestContext } from '../../lib/deps';
import { products } from '../products/products.table';
import { consume, type Limit } from '../rate-limit/rate-limit.service';
import { devices } from './devices.table';

/**
 * Shared by every instance (counted in the database), unlike the per-process flood guard: the page is public, so
 * this is what stops anyone from walking serial numbers to map a fleet.
 */
export const publicDeviceLimit = (ip: string): Limit => ({
  key: `public-device:ip:${ip}`,
  max: 60,
  windowSeconds: 60,
});

/** The label page behind a device's QR code: name, product, online and last seen; no owner, ids or secrets. */
export async function getPublicDevice(deps: Deps, ctx: RequestContext, sn: string): Promise<PublicDevice> {
  await consume(deps.db, [publicDeviceLimit(ctx.ip)], deps.now());
  const [row] = await deps.db
    .select({
      sn: devices.sn,
      name: devices.name,
      productName: products.name,
      online: devices.online,
      last: devices.lastcommunicationat,
    })
    .from(devices)
    .innerJoin(products, eq(products.productKey, devices.productKey))
    .where(eq(devices.sn, sn));
  if (!row) throw new AppError(10117);
  return {
    sn: row.sn,
    name: row.name,
    product_name: row.productName,
    online: row.online === 1 ? 1 : 0,
    lastcommunicationat: row.last ? row.last.toISOString() : null,
  };
}
