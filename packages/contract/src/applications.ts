/**
 * Applications (seed section 2 "/application"; issue 14): software published by admins for the people who run the
 * fleet (a Windows configuration tool, an Android app, a DTU tool). /api/applications.
 *
 * An application (name, platform, description, icon) holds versions; each version is one uploaded package stored by
 * the server with its size and SHA-256, release notes in both languages, a `latest` flag (at most one per
 * application) and a `force_update` flag a client tool reads from `GET /api/applications/:id/latest`. Any signed-in
 * user reads and downloads; admins create, change and delete.
 *
 * The icon is a small image sent inline as a data URL (`data:image/png;base64,...`): PNG, JPEG or WebP only, at most
 * APPLICATION_ICON_MAX_BYTES decoded. SVG is refused (it can carry script); the server checks the bytes, not only
 * the prefix.
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { text } from './text';

export const APPLICATION_PLATFORMS = ['windows', 'android', 'ios', 'linux', 'dtu-tool', 'other'] as const;
export type ApplicationPlatform = (typeof APPLICATION_PLATFORMS)[number];

/** File name endings the server accepts for a package (its bytes are checked too). */
export const APPLICATION_EXTENSIONS = [
  '.exe',
  '.msi',
  '.apk',
  '.aab',
  '.ipa',
  '.zip',
  '.7z',
  '.tar.gz',
  '.tgz',
  '.gz',
  '.tar',
  '.deb',
  '.rpm',
  '.appimage',
  '.dmg',
  '.pkg',
  '.jar',
  '.bin',
] as const;

/** Default of APPLICATION_MAX_BYTES (the server's limit of one package). */
export const APPLICATION_DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

/** Decoded bytes of an icon. */
export const APPLICATION_ICON_MAX_BYTES = 64 * 1024;
export const APPLICATION_ICON_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

/**
 * `1.2.0`, `v2.0.1-beta.3`, `2024.05.01+7`: an optional `v`, a digit, then letters, digits, `. _ + -`; at most 64.
 */
export const APPLICATION_VERSION_RULE = /^[vV]?[0-9][A-Za-z0-9._+-]{0,62}$/;

const id = z.coerce.number().int().min(1).max(2_147_483_647);
const flag = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);

/**
 * An icon as a data URL, or '' for none. The schema only bounds the text (a data URL of a 64 KB image is about
 * 87 K characters); the server answers 50002 for a type other than PNG, JPEG or WebP (or bytes that are not one)
 * and 50001 above APPLICATION_ICON_MAX_BYTES.
 */
const icon = text()
  .trim()
  .max(1_000_000)
  .refine((v) => v === '' || v.startsWith('data:'), 'icon_rule');

const applicationFields = {
  name: text().trim().min(1).max(64),
  platform: z.enum(APPLICATION_PLATFORMS),
  description: text().trim().max(500),
  icon,
};

export const applicationCreateBody = z.object({
  ...applicationFields,
  description: applicationFields.description.default(''),
  icon: applicationFields.icon.default(''),
});
export type ApplicationCreateBody = z.input<typeof applicationCreateBody>;

export const applicationUpdateBody = z.object(applicationFields).partial();
export type ApplicationUpdateBody = z.input<typeof applicationUpdateBody>;

export const applicationIdParams = z.object({ id });
export const applicationVersionParams = z.object({ id, versionId: id });

export const applicationListQuery = pageQuery.extend({
  /** Matches name and description. */
  keyword: text().trim().max(64).optional(),
  platform: z.enum(APPLICATION_PLATFORMS).optional(),
});
export type ApplicationListQuery = z.infer<typeof applicationListQuery>;

export const applicationVersion = z.object({
  id: z.number().int(),
  application_id: z.number().int(),
  version: text(),
  notes_zh: text(),
  notes_en: text(),
  /** The uploaded file's name, as the download offers it. */
  filename: text(),
  /** Bytes. */
  size: z.number().int(),
  /** Lower-case hex. */
  sha256: text(),
  /** The type the server sends the package with (from its name ending). */
  content_type: text(),
  latest: z.boolean(),
  force_update: z.boolean(),
  createdat: text(),
});
export type ApplicationVersion = z.infer<typeof applicationVersion>;

export const applicationItem = z.object({
  id: z.number().int(),
  name: text(),
  platform: z.enum(APPLICATION_PLATFORMS),
  description: text(),
  /** A data URL, or '' for none. */
  icon: text(),
  /** The admin who created it; null when that account is gone. */
  created_by: z.number().int().nullable(),
  version_count: z.number().int(),
  /** The version marked latest, if any. */
  latest: applicationVersion.nullable(),
  createdat: text(),
  updatedat: text(),
});
export type ApplicationItem = z.infer<typeof applicationItem>;

const sha256 = text()
  .trim()
  .regex(/^[0-9A-Fa-f]{64}$/, 'checksum_rule')
  .transform((v) => v.toLowerCase());

const notes = text().trim().max(4000);

/**
 * The text fields of a multipart upload (`POST /api/applications/:id/versions`), sent before the `file` part.
 * Multipart fields are strings, so the flags also take "true"/"false"/"1"/"0". A new version is the latest unless
 * `latest` says otherwise. `sha256`, when given, must match the file (10113 on `sha256`, nothing stored).
 */
export const applicationVersionUploadFields = z.object({
  version: text().trim().regex(APPLICATION_VERSION_RULE, 'version_rule'),
  notes_zh: notes.default(''),
  notes_en: notes.default(''),
  latest: flag.default(true),
  force_update: flag.default(false),
  sha256: z.union([z.literal(''), sha256]).default(''),
});
export type ApplicationVersionUploadFields = z.input<typeof applicationVersionUploadFields>;

/** `PUT /api/applications/:id/versions/:versionId`. The file never changes; `latest: true` takes it from the others. */
export const applicationVersionUpdateBody = z
  .object({
    version: text().trim().regex(APPLICATION_VERSION_RULE, 'version_rule'),
    notes_zh: notes,
    notes_en: notes,
    latest: z.boolean(),
    force_update: z.boolean(),
  })
  .partial();
export type ApplicationVersionUpdateBody = z.input<typeof applicationVersionUpdateBody>;

export const applicationVersionListQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
});
export type ApplicationVersionListQuery = z.infer<typeof applicationVersionListQuery>;

/**
 * `POST /api/applications/:id/versions/:versionId/link`: a download link for the browser, signed by the server and
 * good for APPLICATION_LINK_TTL_SECONDS. The browser then downloads natively (its own progress, resuming with Range)
 * instead of holding the whole package in memory; like a presigned URL, whoever has the link may use it until then.
 */
export const APPLICATION_LINK_TTL_SECONDS = 600;
export const applicationDownloadLink = z.object({
  /** Absolute path under /api: `/api/application-files/<token>`. */
  url: text(),
  expires_at: text(),
});
export type ApplicationDownloadLink = z.infer<typeof applicationDownloadLink>;
export const APPLICATION_FILE_TOKEN_RULE = /^\d{1,10}\.[0-9a-z]{1,11}\.[0-9a-f]{64}$/;
export const applicationFileParams = z.object({
  token: text().regex(APPLICATION_FILE_TOKEN_RULE, 'token_rule'),
});

/** `GET /api/applications/:id/latest?current=1.2.0`: what a client tool asks at start. */
export const applicationLatestQuery = z.object({
  /** The version the client runs; compared with the latest one. */
  current: text().trim().max(64).optional(),
});

export const applicationLatest = z.object({
  application: z.object({ id: z.number().int(), name: text(), platform: z.enum(APPLICATION_PLATFORMS) }),
  /** The version marked latest, or null when none is. */
  latest: applicationVersion.nullable(),
  /** `current` was given and is older than the latest version (compareVersions). */
  update_available: z.boolean(),
  /** An update is available and the latest version is marked force-update. */
  force_update: z.boolean(),
});
export type ApplicationLatest = z.infer<typeof applicationLatest>;

/**
 * Orders two version strings: numeric runs compare as numbers, other runs as text, a leading `v` is ignored and a
 * pre-release (`-beta`) sorts before its release. Negative when `a` is older.
 */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const [main = '', pre = ''] = v.replace(/^[vV]/, '').split('+')[0]!.split(/-(.*)/s);
    return { main: main.split(/[._]/), pre };
  };
  const part = (x: string | undefined, y: string | undefined): number => {
    const nx = /^\d+$/.test(x ?? '') ? Number(x) : undefined;
    const ny = /^\d+$/.test(y ?? '') ? Number(y) : undefined;
    if (nx !== undefined && ny !== undefined) return nx - ny;
    return (x ?? '').localeCompare(y ?? '');
  };
  const va = split(a);
  const vb = split(b);
  for (let i = 0; i < Math.max(va.main.length, vb.main.length); i++) {
    const d = part(va.main[i] ?? '0', vb.main[i] ?? '0');
    if (d !== 0) return d;
  }
  if (va.pre === vb.pre) return 0;
  if (va.pre === '') return 1;
  if (vb.pre === '') return -1;
  const pa = va.pre.split('.');
  const pb = vb.pre.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] === undefined) return -1;
    if (pb[i] === undefined) return 1;
    const d = part(pa[i], pb[i]);
    if (d !== 0) return d;
  }
  return 0;
}
