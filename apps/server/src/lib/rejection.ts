/**
 * A refused device message: dropped, counted on the device row, written to its log; the device may get the reply
 * code. Thrown by whoever judges a message (the gateway's limits, telemetry ingest), handled by the gateway.
 */
export class Rejection extends Error {
  constructor(
    readonly reason: string,
    readonly replyCode = 10113,
    readonly details?: unknown,
  ) {
    super(reason);
  }
}
