import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aliyunMqttSign, azureSasToken, isBase64Key, tencentMqttSign } from './platform-signatures';

describe('aliyun MQTT sign-in', () => {
  // Worked example "三元组接入示例" of the Alibaba Cloud IoT developer community's guide to connecting with an
  // open-source MQTT client ("基于开源MQTT自主接入阿里云IoT平台", GXIC / wongxmig), which follows
  // https://help.aliyun.com/document_detail/73742.html: productKey a14Xib5kdYd, deviceName light1983432,
  // clientId SN1928339, timestamp 1539421321846, hmacsha1.
  it('matches the published hmacsha1 example', () => {
    const out = aliyunMqttSign({
      productKey: 'a14Xib5kdYd',
      deviceName: 'light1983432',
      deviceSecret: 'oLyaKqVxtRvjH284LdhqVgVUx1UPy6zq',
      clientId: 'SN1928339',
      timestamp: 1539421321846,
      securemode: 3,
      signmethod: 'hmacsha1',
    });
    expect(out).toEqual({
      clientId: 'SN1928339|securemode=3,signmethod=hmacsha1,timestamp=1539421321846|',
      username: 'light1983432&a14Xib5kdYd',
      password: 'b2488041f64f425016b467ee1c94959ebd592ad1',
    });
  });

  it('signs the same content with HMAC-SHA256 when asked (the default of our platforms)', () => {
    const out = aliyunMqttSign({
      productKey: 'a14Xib5kdYd',
      deviceName: 'light1983432',
      deviceSecret: 'oLyaKqVxtRvjH284LdhqVgVUx1UPy6zq',
      clientId: 'SN1928339',
      timestamp: 1539421321846,
      securemode: 2,
      signmethod: 'hmacsha256',
    });
    const content = 'clientIdSN1928339deviceNamelight1983432productKeya14Xib5kdYdtimestamp1539421321846';
    expect(out.clientId).toBe('SN1928339|securemode=2,signmethod=hmacsha256,timestamp=1539421321846|');
    expect(out.password).toBe(
      createHmac('sha256', 'oLyaKqVxtRvjH284LdhqVgVUx1UPy6zq').update(content).digest('hex'),
    );
    expect(out.password).toHaveLength(64);
  });
});

describe('tencent MQTT sign-in', () => {
  // Example in the docstring of a public Tencent IoT Hub client (product J5M4D6INI9, device pi_dht11), computed with
  // the algorithm of https://cloud.tencent.com/document/product/634/32546 ("基于 MQTT 的签名认证接入指引"):
  // username "J5M4D6INI9pi_dht11;12010126;13GB9;1645079520", PSK u/nAbSmZKbCW7lugludvLg==.
  it('matches the published hmacsha256 example', () => {
    const out = tencentMqttSign({
      productId: 'J5M4D6INI9',
      deviceName: 'pi_dht11',
      devicePsk: 'u/nAbSmZKbCW7lugludvLg==',
      connId: '13GB9',
      expiry: 1645079520,
      signmethod: 'hmacsha256',
    });
    expect(out).toEqual({
      clientId: 'J5M4D6INI9pi_dht11',
      username: 'J5M4D6INI9pi_dht11;12010126;13GB9;1645079520',
      password: '995566e2241a06391c30d9ac23de2706a0e9e59247830c556eb55ccfdee5f127;hmacsha256',
    });
  });

  it('keys the HMAC with the base64-decoded PSK, not its text', () => {
    const a = tencentMqttSign({
      productId: 'P',
      deviceName: 'd',
      devicePsk: 'u/nAbSmZKbCW7lugludvLg==',
      connId: 'x',
      expiry: 1,
      signmethod: 'hmacsha1',
    });
    const wrong = createHmac('sha1', 'u/nAbSmZKbCW7lugludvLg==').update(a.username).digest('hex');
    expect(a.password).not.toBe(`${wrong};hmacsha1`);
    expect(a.password).toMatch(/^[0-9a-f]{40};hmacsha1$/);
  });
});

describe('azure SAS token', () => {
  // Azure/azure-iot-sdk-node common/core/test/_shared_access_signature_test.js: key base64("password"),
  // resource "uri", expiry 12345 -> sig kcWxXAK2OAaAoq2oCkaGzX2NMqDB8nCyNuq2fPYCDhk%3D.
  const key = Buffer.from('password').toString('base64');

  it("matches the Azure IoT SDK's test vector", () => {
    expect(azureSasToken({ resourceUri: 'uri', key, expiry: 12345 })).toBe(
      'SharedAccessSignature sr=uri&sig=kcWxXAK2OAaAoq2oCkaGzX2NMqDB8nCyNuq2fPYCDhk%3D&se=12345',
    );
  });

  it('URL-encodes the device resource and signs the encoded form; adds skn for policy keys', () => {
    const token = azureSasToken({
      resourceUri: 'myhub.azure-devices.net/devices/dev 1',
      key,
      expiry: 1700000000,
      policyName: 'device',
    });
    const sr = 'myhub.azure-devices.net%2Fdevices%2Fdev%201';
    const sig = createHmac('sha256', Buffer.from(key, 'base64')).update(`${sr}\n1700000000`).digest('base64');
    expect(token).toBe(
      `SharedAccessSignature sr=${sr}&sig=${encodeURIComponent(sig)}&se=1700000000&skn=device`,
    );
  });
});

describe('isBase64Key', () => {
  it('accepts base64 keys of 16 bytes or more and nothing else', () => {
    expect(isBase64Key('u/nAbSmZKbCW7lugludvLg==')).toBe(true);
    expect(isBase64Key(Buffer.alloc(32, 7).toString('base64'))).toBe(true);
    expect(isBase64Key('cGFzc3dvcmQ=')).toBe(false);
    expect(isBase64Key('not base64!')).toBe(false);
    expect(isBase64Key('abc')).toBe(false);
  });
});
