import type { DbOrTx } from '../../db/client';
import { simDownloadCheck as simCardsDownloadCheck } from '../sim/sim-cards.service';

export interface SimDownloadVerdict {
  ok: boolean;
  /** Why the device's SIM cannot take the download (expired, out of data); shown in the upgrade log. */
  reason?: string;
}

/**
 * Cellular awareness: whether each device's SIM card can take a download of `bytes` now. The OTA engine asks it
 * for every batch it is about to send, inside the claiming transaction (so it must query through `db`, never
 * through deps.db: PGlite has one connection), and skips refused devices with the reason in their log row.
 * The SIM module answers (docs/sim.md): refused when the device's card expired, is suspended or deactivated, or has
 * less traffic left than the download (`expired`, `suspended`, `no_traffic`, `not_enough_traffic`); devices
 * without a known card pass.
 */
export async function simDownloadCheck(
  db: DbOrTx,
  deviceSns: readonly string[],
  bytes: number,
): Promise<Map<string, SimDownloadVerdict>> {
  return simCardsDownloadCheck(db, deviceSns, bytes);
}

export type SimDownloadCheck = typeof simDownloadCheck;
