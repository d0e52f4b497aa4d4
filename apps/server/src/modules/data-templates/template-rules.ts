import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { devices } from '../devices/devices.table';
import { products } from '../products/products.table';
import { dataTemplateVariables, deviceDataTemplates, productDataTemplates } from './data-templates.table';

/**
 * The property rules a device's data template adds (key = tag; `bool` for bool variables, else `number`): what a DTU
 * polling its own slaves reports on `P/up/property` (docs/device-protocol.md, group `modbus`). The template is the
 * device's own, else its product's default; none gives an empty map. Only tables are read here, so telemetry ingest
 * can use it without importing the template service.
 */
export async function templateRulesOf(db: DbOrTx, deviceId: number): Promise<Map<string, string>> {
  const rows = await db
    .select({ tag: dataTemplateVariables.tag, format: dataTemplateVariables.dataFormat })
    .from(devices)
    .leftJoin(deviceDataTemplates, eq(deviceDataTemplates.deviceId, devices.id))
    .leftJoin(products, eq(products.productKey, devices.productKey))
    .leftJoin(productDataTemplates, eq(productDataTemplates.productId, products.id))
    .innerJoin(
      dataTemplateVariables,
      eq(
        dataTemplateVariables.templateId,
        sql`coalesce(${deviceDataTemplates.templateId}, ${productDataTemplates.templateId})`,
      ),
    )
    .where(eq(devices.id, deviceId));
  return new Map(rows.map((r) => [r.tag, r.format === 'bool' ? 'bool' : 'number']));
}
