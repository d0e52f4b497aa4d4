import { productDeleteRefusal, type ProductDeleteRefusal } from '@cellhub/contract/products';
import { ApiError } from '../../lib/request';

/** The device count of a refused product deletion (10112), or undefined for any other failure. */
export function deleteRefusal(e: unknown): ProductDeleteRefusal | undefined {
  if (!(e instanceof ApiError) || e.code !== 10112) return undefined;
  const parsed = productDeleteRefusal.safeParse(e.details);
  return parsed.success ? parsed.data : undefined;
}
