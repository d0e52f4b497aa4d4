import { describe, expect, it } from 'vitest';
import {
  FIRMWARE_VERSION_RULE,
  firmwareListQuery,
  firmwareVersionImportBody,
  firmwareVersionUploadFields,
  usableFirmwareQuery,
} from './firmware';

const MD5 = 'D41D8CD98F00B204E9800998ECF8427E';
const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('firmware contract', () => {
  it('version strings: semver-like, dates, V-prefixed; no spaces or slashes', () => {
    for (const v of ['1.2.0', 'V1.0.3-beta+21', '20240501', 'EC200A_1.0.7', 'a'.repeat(64)]) {
      expect(FIRMWARE_VERSION_RULE.test(v), v).toBe(true);
    }
    for (const v of ['', '.1', '-1', '1 0', '1/2', 'a'.repeat(65), 'версия']) {
      expect(FIRMWARE_VERSION_RULE.test(v), v).toBe(false);
    }
  });

  it('upload fields: multipart strings become booleans, the checksum is lower-cased and must fit the algorithm', () => {
    expect(firmwareVersionUploadFields.parse({ version: '1.0', latest: 'true', checksum: MD5 })).toEqual({
      version: '1.0',
      description: '',
      algorithm: 'md5',
      checksum: MD5.toLowerCase(),
      latest: true,
    });
    expect(firmwareVersionUploadFields.parse({ version: '1.0', latest: '0' }).latest).toBe(false);
    expect(
      firmwareVersionUploadFields.parse({ version: '1.0', algorithm: 'sha256', checksum: SHA256 }).checksum,
    ).toBe(SHA256);
    const wrongLength = firmwareVersionUploadFields.safeParse({
      version: '1.0',
      algorithm: 'sha256',
      checksum: MD5,
    });
    expect(wrongLength.success).toBe(false);
    expect(wrongLength.error?.issues.map((i) => i.path.join('.'))).toEqual(['checksum']);
    expect(firmwareVersionUploadFields.safeParse({ version: '1.0', checksum: 'xyz' }).success).toBe(false);
    expect(firmwareVersionUploadFields.safeParse({ version: '1.0', latest: 'yes' }).success).toBe(false);
  });

  it('URL imports take http and https only', () => {
    for (const url of ['https://example.com/fw.bin', 'http://10.0.0.1:8080/a?b=c']) {
      expect(firmwareVersionImportBody.safeParse({ version: '1', url }).success, url).toBe(true);
    }
    for (const url of [
      'ftp://example.com/fw.bin',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'https://a b',
    ]) {
      expect(firmwareVersionImportBody.safeParse({ version: '1', url }).success, url).toBe(false);
    }
  });

  it('list filters: type 0 or 1 from the query string; usable versions take product_key or productKey', () => {
    expect(firmwareListQuery.parse({ type: '1' }).type).toBe(1);
    expect(firmwareListQuery.safeParse({ type: '2' }).success).toBe(false);
    expect(usableFirmwareQuery.parse({ productKey: 'pk_abcd' }).productKey).toBe('pk_abcd');
    expect(usableFirmwareQuery.safeParse({ product_key: 'a/b' }).success).toBe(false);
  });
});
