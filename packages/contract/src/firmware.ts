/**
 * Firmware (seed section 3 "Firmware"): /api/firmware, admin only except the usable-versions list.
 *
 * A firmware (name, product, type, objname, public) holds versions; each version is one binary stored by the server
 * (uploaded, or fetched once from a URL) with its size, MD5 and SHA-256. `checksum` is the digest of the version's
 * `algorithm`, the one a device checks after download (PROTOCOL.md `P/down/ota`). One version per product is the
 * `latest`. Users may read the versions they can roll out: those of public firmware and those of their own products.
 */
import { z } from 'zod';
import { text } from './text';
import { pageQuery } from './common';
import { PRODUCT_KEY_RULE } from './protocol';

/** 0 test, 1 formal (seed section 3). */
export const FIRMWARE_TYPES = [0, 1] as const;
export type FirmwareType = (typeof FIRMWARE_TYPES)[number];

export const CHECKSUM_ALGORITHMS = ['md5', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** Hex length of each algorithm's digest. */
export const CHECKSUM_HEX_LENGTH: Record<ChecksumAlgorithm, number> = { md5: 32, sha256: 64 };

/** File name endings the server accepts for a firmware binary (the bytes are checked too). */
export const FIRMWARE_EXTENSIONS = [
  '.bin',
  '.hex',
  '.img',
  '.fw',
  '.zip',
  '.tar',
  '.gz',
  '.tgz',
  '.pkg',
  '.ota',
  '.dfu',
  '.swu',
] as const;

/** Default of FIRMWARE_MAX_BYTES (the server's limit of one binary). */
export const FIRMWARE_DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** `1.2.0`, `V1.0.3-beta+21`, `20240501`: starts with a letter or digit; letters, digits, `. _ + -`; at most 64. */
export const FIRMWARE_VERSION_RULE = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

const id = z.coerce.number().int().min(1).max(2_147_483_647);
const flag = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);

const firmwareFields = {
  name: text().trim().min(1).max(64),
  product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule'),
  type: z.union([z.literal(0), z.literal(1)]),
  /** The part of the device the binary is for (e.g. `mcu`, `modem`); free text. */
  objname: text().trim().max(64),
  description: text().trim().max(200),
  /** Public firmware is usable in OTA tasks by every user; otherwise only by the product's owner (and admins). */
  public: z.boolean(),
};

export const firmwareCreateBody = z.object({
  ...firmwareFields,
  type: firmwareFields.type.default(0),
  objname: firmwareFields.objname.default(''),
  description: firmwareFields.description.default(''),
  public: firmwareFields.public.default(false),
});
export type FirmwareCreateBody = z.input<typeof firmwareCreateBody>;

/** `product_key` can change only while the firmware has no versions (70003 otherwise). */
export const firmwareUpdateBody = z.object(firmwareFields).partial();
export type FirmwareUpdateBody = z.input<typeof firmwareUpdateBody>;

export const firmwareIdParams = z.object({ id });
export const firmwareVersionParams = z.object({ id, versionId: id });

export const firmwareListQuery = pageQuery.extend({
  /** Matches name and objname. */
  keyword: text().trim().max(64).optional(),
  product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule').optional(),
  type: z.coerce
    .number()
    .pipe(z.union([z.literal(0), z.literal(1)]))
    .optional(),
});
export type FirmwareListQuery = z.infer<typeof firmwareListQuery>;

export const firmwareItem = z.object({
  id: z.number().int(),
  name: text(),
  product_key: text(),
  /** '' when the product no longer exists. */
  product_name: text(),
  type: z.union([z.literal(0), z.literal(1)]),
  objname: text(),
  description: text(),
  public: z.boolean(),
  version_count: z.number().int(),
  /** The version string of this firmware's version marked latest, if it has it. */
  latest_version: text().nullable(),
  createdat: text(),
  updatedat: text(),
});
export type FirmwareItem = z.infer<typeof firmwareItem>;

export const firmwareVersion = z.object({
  id: z.number().int(),
  firmware_id: z.number().int(),
  product_key: text(),
  version: text(),
  /** Where the server fetched the binary from; '' for an upload. */
  url: text(),
  /** The uploaded or fetched file's name. */
  filename: text(),
  /** Bytes. */
  size: z.number().int(),
  /** Digest of `algorithm`, lower-case hex. */
  checksum: text(),
  algorithm: z.enum(CHECKSUM_ALGORITHMS),
  md5: text(),
  sha256: text(),
  description: text(),
  latest: z.boolean(),
  createdat: text(),
  updatedat: text(),
});
export type FirmwareVersion = z.infer<typeof firmwareVersion>;

const checksum = text()
  .trim()
  .regex(/^([0-9A-Fa-f]{32}|[0-9A-Fa-f]{64})$/, 'checksum_rule')
  .transform((v) => v.toLowerCase());

const versionFields = {
  version: text().trim().regex(FIRMWARE_VERSION_RULE, 'version_rule'),
  description: text().trim().max(200).default(''),
  algorithm: z.enum(CHECKSUM_ALGORITHMS).default('md5'),
  /**
   * The digest the admin expects (of `algorithm`). When given, the server compares it with the one it computed
   * and refuses a mismatch (10113 on `checksum`, nothing stored); when empty, the computed one is used.
   */
  checksum: z.union([z.literal(''), checksum]).default(''),
  latest: flag.default(false),
};

const checksumMatchesAlgorithm = (v: { checksum: string; algorithm: ChecksumAlgorithm }) =>
  v.checksum === '' || v.checksum.length === CHECKSUM_HEX_LENGTH[v.algorithm];
const checksumIssue = { message: 'checksum_length', path: ['checksum'] };

/**
 * The text fields of a multipart upload (`POST /api/firmware/:id/versions`), sent before the `file` part.
 * Multipart fields are strings, so `latest` also takes "true"/"false"/"1"/"0".
 */
export const firmwareVersionUploadFields = z
  .object(versionFields)
  .refine(checksumMatchesAlgorithm, checksumIssue);
export type FirmwareVersionUploadFields = z.input<typeof firmwareVersionUploadFields>;

/** `POST /api/firmware/:id/versions/import`: the server fetches `url` once and stores it like an upload. */
export const firmwareVersionImportBody = z
  .object({
    ...versionFields,
    url: text()
      .trim()
      .max(2048)
      .regex(/^https?:\/\/\S+$/i, 'url_rule'),
  })
  .refine(checksumMatchesAlgorithm, checksumIssue);
export type FirmwareVersionImportBody = z.input<typeof firmwareVersionImportBody>;

/**
 * `PUT /api/firmware/:id/versions/:versionId`. The binary never changes under a version (upload a new version
 * instead); `algorithm` may change because both digests are known. `latest: true` takes it from the product's
 * other version; `latest: false` leaves the product without one.
 */
export const firmwareVersionUpdateBody = z
  .object({
    version: versionFields.version,
    description: text().trim().max(200),
    algorithm: z.enum(CHECKSUM_ALGORITHMS),
    latest: z.boolean(),
  })
  .partial();
export type FirmwareVersionUpdateBody = z.input<typeof firmwareVersionUpdateBody>;

export const firmwareVersionListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
});
export type FirmwareVersionListQuery = z.infer<typeof firmwareVersionListQuery>;

/** `GET /api/firmware/versions/usable`: versions the caller may roll out in an OTA task. */
export const usableFirmwareQuery = pageQuery.extend({
  product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule').optional(),
  /** Same as product_key (accepted for callers that use camelCase). */
  productKey: text().regex(PRODUCT_KEY_RULE, 'product_key_rule').optional(),
  /** Matches the firmware name and the version string. */
  keyword: text().trim().max(64).optional(),
});
export type UsableFirmwareQuery = z.infer<typeof usableFirmwareQuery>;

export const usableFirmwareVersion = firmwareVersion.omit({ url: true }).extend({
  firmware_name: text(),
  product_name: text(),
  type: z.union([z.literal(0), z.literal(1)]),
  objname: text(),
  public: z.boolean(),
});
export type UsableFirmwareVersion = z.infer<typeof usableFirmwareVersion>;
