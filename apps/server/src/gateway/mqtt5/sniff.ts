/**
 * The protocol level of the CONNECT a connection starts with, read from its first bytes: fixed header 0x10, the
 * remaining length (1 to 4 bytes), the protocol name ("MQTT", or "MQIsdp" for 3.1) and then the level byte (3, 4
 * or 5). At most 14 bytes are looked at.
 *
 * Returns `undefined` while more bytes are needed and `null` when the bytes are not a CONNECT this front
 * recognises (Aedes then gets them and refuses them as it always did).
 */
export function connectProtocolLevel(buf: Buffer): number | null | undefined {
  if (buf.length === 0) return undefined;
  if (buf[0] !== 0x10) return null;
  let pos = 1;
  for (;;) {
    if (pos >= buf.length) return undefined;
    const byte = buf[pos++]!;
    if ((byte & 0x80) === 0) break;
    if (pos > 4) return null;
  }
  if (pos + 2 > buf.length) return undefined;
  const nameLength = buf.readUInt16BE(pos);
  if (nameLength !== 4 && nameLength !== 6) return null;
  pos += 2 + nameLength;
  if (pos >= buf.length) return undefined;
  return buf[pos]!;
}
