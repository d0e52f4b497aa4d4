/**
 * MQTT sign-in parameters of the third-party clouds, computed as each cloud documents them. Pure functions: the
 * tests check them against the worked examples the clouds and their SDKs publish.
 */
import { createHmac } from 'node:crypto';

export type HmacMethod = 'hmacsha256' | 'hmacsha1';
const algorithm = (m: HmacMethod) => (m === 'hmacsha256' ? 'sha256' : 'sha1');

export interface MqttSignIn {
  clientId: string;
  username: string;
  password: string;
}

export interface AliyunSignInput {
  productKey: string;
  deviceName: string;
  deviceSecret: string;
  /** The client id inside the MQTT client id; Alibaba Cloud suggests the sn or MAC. */
  clientId: string;
  /** Unix milliseconds; part of the signed content. */
  timestamp: number;
  securemode: 2 | 3;
  signmethod: HmacMethod;
}

/**
 * Alibaba Cloud IoT Platform, unique-certificate-per-device over MQTT:
 * client id `<id>|securemode=<m>,signmethod=<alg>,timestamp=<ms>|`, username `<deviceName>&<productKey>`,
 * password = hex HMAC(deviceSecret, "clientId<id>deviceName<dn>productKey<pk>timestamp<ms>").
 */
export function aliyunMqttSign(input: AliyunSignInput): MqttSignIn {
  const content =
    `clientId${input.clientId}deviceName${input.deviceName}` +
    `productKey${input.productKey}timestamp${input.timestamp}`;
  return {
    clientId: `${input.clientId}|securemode=${input.securemode},signmethod=${input.signmethod},timestamp=${input.timestamp}|`,
    username: `${input.deviceName}&${input.productKey}`,
    password: createHmac(algorithm(input.signmethod), input.deviceSecret).update(content).digest('hex'),
  };
}

/** Tencent's fixed SDK application id in the MQTT username. */
export const TENCENT_SDK_APPID = '12010126';

export interface TencentSignInput {
  productId: string;
  deviceName: string;
  /** The device PSK as the console shows it (base64). */
  devicePsk: string;
  /** A short random string that helps Tencent's support find a connection. */
  connId: string;
  /** Unix seconds after which the password stops working. */
  expiry: number;
  signmethod: HmacMethod;
}

/**
 * Tencent Cloud IoT Hub / IoT Explorer, key authentication: client id `<productId><deviceName>`, username
 * `<clientId>;12010126;<connid>;<expiry>`, password `<hex HMAC(base64-decoded PSK, username)>;<signmethod>`.
 */
export function tencentMqttSign(input: TencentSignInput): MqttSignIn {
  const clientId = `${input.productId}${input.deviceName}`;
  const username = `${clientId};${TENCENT_SDK_APPID};${input.connId};${input.expiry}`;
  const token = createHmac(algorithm(input.signmethod), Buffer.from(input.devicePsk, 'base64'))
    .update(username)
    .digest('hex');
  return { clientId, username, password: `${token};${input.signmethod}` };
}

export interface AzureSasInput {
  /** e.g. `myhub.azure-devices.net/devices/device1`; URL-encoded into `sr` and the signed string. */
  resourceUri: string;
  /** The base64 key of the device (or of a hub policy, with `policyName`). */
  key: string;
  /** Unix seconds. */
  expiry: number;
  policyName?: string;
}

/**
 * Azure IoT Hub SAS token: `SharedAccessSignature sr=<uri>&sig=<sig>&se=<expiry>[&skn=<policy>]`, where
 * sig = URL-encoded base64 HMAC-SHA256(base64-decoded key, "<url-encoded uri>\n<expiry>").
 */
export function azureSasToken(input: AzureSasInput): string {
  const sr = encodeURIComponent(input.resourceUri);
  const sig = createHmac('sha256', Buffer.from(input.key, 'base64'))
    .update(`${sr}\n${input.expiry}`)
    .digest('base64');
  const skn = input.policyName ? `&skn=${encodeURIComponent(input.policyName)}` : '';
  return `SharedAccessSignature sr=${sr}&sig=${encodeURIComponent(sig)}&se=${input.expiry}${skn}`;
}

/** Whether a string is canonical base64 of at least 16 bytes (tencent PSKs and azure keys). */
export function isBase64Key(value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  return Buffer.from(value, 'base64').length >= 16;
}
