/** What the gateway knows about a connected device; services acting for a device take it first. */
export interface DeviceRef {
  id: number;
  sn: string;
  productKey: string;
  /** Owner; null for devices in stock. Decides who receives its live events. */
  uid: number | null;
}
