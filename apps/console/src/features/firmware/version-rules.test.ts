import { describe, expect, it } from 'vitest';
import { checksumFits, FIRMWARE_ACCEPT, hasFirmwareExtension } from './version-rules';

describe('firmware file rules', () => {
  it('accepts the endings the server accepts, whatever the case', () => {
    for (const name of ['dtu.bin', 'DTU-1.2.0.BIN', 'mcu.hex', 'rootfs.tar.gz', 'pkg.zip', 'app.ota']) {
      expect(hasFirmwareExtension(name), name).toBe(true);
    }
    for (const name of ['notes.txt', 'page.html', '.bin', 'firmware', 'setup.exe']) {
      expect(hasFirmwareExtension(name), name).toBe(false);
    }
    expect(FIRMWARE_ACCEPT).toContain('.bin');
    expect(FIRMWARE_ACCEPT.split(',').every((e) => e.startsWith('.'))).toBe(true);
  });

  it('checks the checksum length against the algorithm and allows it empty', () => {
    const md5 = 'd41d8cd98f00b204e9800998ecf8427e';
    const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    expect(checksumFits('', 'md5')).toBe(true);
    expect(checksumFits(undefined, 'sha256')).toBe(true);
    expect(checksumFits(md5, 'md5')).toBe(true);
    expect(checksumFits(md5.toUpperCase(), 'md5')).toBe(true);
    expect(checksumFits(md5, 'sha256')).toBe(false);
    expect(checksumFits(sha256, 'sha256')).toBe(true);
    expect(checksumFits(sha256, 'md5')).toBe(false);
    expect(checksumFits(`${md5.slice(0, 31)}g`, 'md5')).toBe(false);
  });
});
