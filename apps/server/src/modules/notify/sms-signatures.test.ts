import { describe, expect, it } from 'vitest';
import {
  aliyunCanonicalQuery,
  aliyunPercentEncode,
  aliyunRpcSignature,
  aliyunStringToSign,
  aliyunTimestamp,
  sha256Hex,
  tc3Sign,
} from './sms-signatures';

describe('Alibaba Cloud RPC signature 1.0', () => {
  // The worked example of Alibaba Cloud's "Signature mechanism" page for RPC APIs (DescribeRegions, AccessKey
  // testid / testsecret): the published StringToSign and Signature.
  const params = {
    TimeStamp: '2016-02-23T12:46:24Z',
    Format: 'XML',
    AccessKeyId: 'testid',
    Action: 'DescribeRegions',
    SignatureMethod: 'HMAC-SHA1',
    SignatureNonce: '3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf',
    Version: '2014-05-26',
    SignatureVersion: '1.0',
  };

  // The canonical query is encoded a second time as a whole, so its & become %26 (some copies of the page lost them;
  // the published signature below only comes out with them).
  it('reproduces the published string to sign', () => {
    expect(aliyunStringToSign('GET', params)).toBe(
      'GET&%2F&AccessKeyId%3Dtestid%26Action%3DDescribeRegions%26Format%3DXML%26SignatureMethod%3DHMAC-SHA1' +
        '%26SignatureNonce%3D3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf%26SignatureVersion%3D1.0' +
        '%26TimeStamp%3D2016-02-23T12%253A46%253A24Z%26Version%3D2014-05-26',
    );
  });

  it('reproduces the published signature', () => {
    expect(aliyunRpcSignature('testsecret', 'GET', params)).toBe('CT9X0VtwR86fNWSnsc6v8YGOjuE=');
    // The Signature parameter itself never takes part.
    expect(aliyunRpcSignature('testsecret', 'GET', { ...params, Signature: 'x' })).toBe(
      'CT9X0VtwR86fNWSnsc6v8YGOjuE=',
    );
  });

  it('encodes as the documentation specifies (space %20, * %2A, ~ kept, UTF-8 bytes)', () => {
    expect(aliyunPercentEncode('a b*c~d')).toBe('a%20b%2Ac~d');
    expect(aliyunPercentEncode("!'()")).toBe('%21%27%28%29');
    expect(aliyunPercentEncode('阿里云')).toBe('%E9%98%BF%E9%87%8C%E4%BA%91');
    expect(aliyunPercentEncode('{"code":"1"}')).toBe('%7B%22code%22%3A%221%22%7D');
  });

  it('sorts parameters by name in byte order', () => {
    expect(aliyunCanonicalQuery({ b: '2', B: '1', a: '3' })).toBe('B=1&a=3&b=2');
  });

  it('formats timestamps as UTC without milliseconds', () => {
    expect(aliyunTimestamp(new Date('2024-05-06T07:08:09.123Z'))).toBe('2024-05-06T07:08:09Z');
  });
});

describe('Tencent Cloud TC3-HMAC-SHA256', () => {
  // The worked example of Tencent Cloud's "Signature v3" page (CVM DescribeInstances, timestamp 1551113065,
  // SecretKey Gu5t9xGARNpq86cd98joQYCN3EXAMPLE): the published intermediate values and signature.
  const payload = '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}';
  const signed = tc3Sign({
    secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
    secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
    service: 'cvm',
    host: 'cvm.tencentcloudapi.com',
    timestamp: 1551113065,
    payload,
    contentType: 'application/json; charset=utf-8',
  });

  it('hashes the payload and the canonical request as published', () => {
    expect(sha256Hex(payload)).toBe('35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064');
    expect(signed.canonicalRequest).toBe(
      'POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\n' +
        'content-type;host\n35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064',
    );
    expect(sha256Hex(signed.canonicalRequest)).toBe(
      '5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031',
    );
  });

  it('builds the published string to sign and signature', () => {
    expect(signed.stringToSign).toBe(
      'TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n' +
        '5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031',
    );
    expect(signed.signature).toBe('72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168');
    expect(signed.authorization).toBe(
      'TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, ' +
        'SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
    );
  });

  it('takes the credential date from the timestamp in UTC (not local time)', () => {
    // 2019-02-26 00:44:25 in UTC+8 is still the 25th in UTC: the documentation's own warning.
    expect(signed.credentialScope).toBe('2019-02-25/cvm/tc3_request');
    const nextDay = tc3Sign({
      secretId: 'x',
      secretKey: 'y',
      service: 'sms',
      host: 'sms.tencentcloudapi.com',
      timestamp: 1551139200,
      payload: '{}',
      contentType: 'application/json; charset=utf-8',
    });
    expect(nextDay.credentialScope).toBe('2019-02-26/sms/tc3_request');
  });
});
