/**
 * A send that did not go through. `retryable` false: trying again cannot help (the provider refused the number,
 * the template or the address); the worker records the failure at once.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** The channel has no usable settings: code 20141 for a synchronous send, a retry later for a queued one. */
export class NotConfiguredError extends DeliveryError {
  constructor(what: string) {
    super(`${what} is not configured`, true);
    this.name = 'NotConfiguredError';
  }
}
