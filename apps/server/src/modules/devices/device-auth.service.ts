import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { DeviceRegisterBody } from '@cellhub/contract/protocol';
import { AppError, formError } from '../../lib/app-error';
import type { Deps, RequestContext } from '../../lib/deps';
import { writeDeviceLog } from '../device-log/device-log.service';
import { findProductByKey, productSecretOf } from '../products/products.service';
import { writeAudit } from '../audit/audit.service';
import { deviceSecretContext, findDeviceBySn } from './devices.service';
import { devices } from './devices.table';

/** How far the request time may be from the server clock (PROTOCOL.md: 15 minutes, as for hmac passwords). */
export const SIGN_WINDOW_MS = 15 * 60_000;

const hmacHex = (key: string, message: string) => createHmac('sha256', key).update(message).digest('hex');

export function safeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase(), 'utf8');
  const y = Buffer.from(b.toLowerCase(), 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Dynamic registration (one secret per product): hands out a device's secret once, for an sn created under that
 * product and not registered yet. Unknown product, unknown sn and a wrong signature answer alike (10117), so the
 * route cannot be used to probe for serial numbers.
 */
export async function registerDevice(
  deps: Deps,
  ctx: RequestContext,
  body: DeviceRegisterBody,
): Promise<{ product_key: string; sn: string; secret: string }> {
  const ts = body.ts < 1e12 ? body.ts * 1000 : body.ts;
  if (Math.abs(deps.now().getTime() - ts) > SIGN_WINDOW_MS) {
    throw formError('ts', 'must be within 15 minutes of the server clock');
  }
  const product = await findProductByKey(deps.db, body.product_key);
  const device = product ? await findDeviceBySn(deps.db, body.sn) : undefined;
  const expected = product
    ? hmacHex(productSecretOf(deps, product), `${body.product_key}${body.sn}${body.ts}`)
    : '';
  if (!product || !device || device.productKey !== product.productKey || !safeEqualHex(expected, body.sign)) {
    throw new AppError(10117);
  }
  if (device.registeredat || device.disabled) throw new AppError(20402, 400, 'Device is already registered');
  const claimed = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .update(devices)
      .set({ registeredat: deps.now() })
      .where(and(eq(devices.id, device.id), isNull(devices.registeredat)))
      .returning({ id: devices.id });
    if (rows.length === 0) return false;
    await writeDeviceLog(tx, { deviceId: device.id, event: 'registered', detail: { ip: ctx.ip } });
    await writeAudit(tx, {
      uid: null,
      action: 'device_register',
      target: `device:${device.sn}`,
      ip: ctx.ip,
      detail: { product_key: product.productKey },
    });
    return true;
  });
  if (!claimed) throw new AppError(20402, 400, 'Device is already registered');
  return {
    product_key: product.productKey,
    sn: device.sn,
    secret: deps.box.decrypt(device.secret, deviceSecretContext(device.sn)),
  };
}
