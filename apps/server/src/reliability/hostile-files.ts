/**
 * Hostile upload fixtures, made in code (no binary fixture is committed): zip bombs dressed as .xlsx, XML entity
 * attacks, zips with unsafe entry names, polyglots, SVG with script, lying names and broken multipart bodies.
 * Each case says which kinds of upload route it is aimed at; hostile-uploads.test.ts sends it to every route of
 * those kinds and checks the answer, the data directory and the tables.
 */
import { constants, deflateRawSync } from 'node:zlib';

// --- zip ------------------------------------------------------------------------------------------------------------

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = CRC_TABLE[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export interface ZipEntry {
  /** Written as given (UTF-8): `../`, absolute paths and NUL included. */
  name: string;
  /** Plain content, deflated by the builder (or stored with `store`). */
  data?: Buffer | string;
  store?: boolean;
  /** Already deflated bytes (raw deflate) and their true size; for bombs. */
  deflated?: { raw: Buffer; size: number; crc?: number };
  /** The uncompressed size written in the headers, when it should lie. */
  declaredSize?: number;
}

/** A zip file of `entries` (local headers, central directory, end record), exactly as described: no checks. */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    let method: number;
    let body: Buffer;
    let size: number;
    let crc: number;
    if (e.deflated) {
      method = 8;
      body = e.deflated.raw;
      size = e.deflated.size;
      crc = e.deflated.crc ?? 0;
    } else {
      const plain = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data ?? '', 'utf8');
      method = e.store ? 0 : 8;
      body = e.store ? plain : deflateRawSync(plain);
      size = plain.length;
      crc = crc32(plain);
    }
    const declared = e.declaredSize ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x5b21, 12); // 2025-09-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(declared >>> 0, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x5b21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(declared >>> 0, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/**
 * Raw deflate of `prefix`, then `mb` MiB of `fill`, then `suffix`, without ever holding the MiBs: one MiB is
 * deflated once, ending on a full flush (byte aligned, no back-reference across it), and that block is repeated.
 * About 1 KB per MiB, the best deflate can do.
 */
export function deflateBomb(
  prefix: string,
  fill: number,
  mb: number,
  suffix: string,
): { raw: Buffer; size: number } {
  const flush = { finishFlush: constants.Z_FULL_FLUSH, level: 9 };
  const head = deflateRawSync(Buffer.from(prefix), flush);
  const block = deflateRawSync(Buffer.alloc(1024 * 1024, fill), flush);
  const tail = deflateRawSync(Buffer.from(suffix));
  const parts: Buffer[] = [head];
  for (let i = 0; i < mb; i++) parts.push(block);
  parts.push(tail);
  return {
    raw: Buffer.concat(parts),
    size: Buffer.byteLength(prefix) + mb * 1024 * 1024 + Buffer.byteLength(suffix),
  };
}

// --- xlsx -----------------------------------------------------------------------------------------------------------

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A worksheet of inline-string cells. */
export function sheetXml(rows: string[][], doctype = ''): string {
  const col = (i: number) => String.fromCharCode(65 + i);
  const body = rows
    .map(
      (cells, r) =>
        `<row r="${r + 1}">${cells
          .map((c, i) => `<c r="${col(i)}${r + 1}" t="inlineStr"><is><t>${xmlText(c)}</t></is></c>`)
          .join('')}</row>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${doctype}<worksheet xmlns="${NS}"><sheetData>${body}</sheetData></worksheet>`;
}

export const workbookXml = (doctype = '', sheetName = 'Sheet1') =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${doctype}<workbook xmlns="${NS}" xmlns:r="${REL}"><sheets><sheet name="${sheetName}" sheetId="1" r:id="rId1"/></sheets></workbook>`;

/** The parts of a minimal workbook; override any of them (or add entries) to make it hostile. */
export function xlsxEntries(
  rows: string[][],
  override: Partial<Record<string, ZipEntry | string>> = {},
): ZipEntry[] {
  const parts: Record<string, ZipEntry | string> = {
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
      '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
      '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' +
      '</Types>',
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': workbookXml(),
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    'xl/worksheets/sheet1.xml': sheetXml(rows),
    'xl/sharedStrings.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="${NS}" count="0" uniqueCount="0"></sst>`,
    ...override,
  } as Record<string, ZipEntry | string>;
  return Object.entries(parts).map(([name, p]) => (typeof p === 'string' ? { name, data: p } : p));
}

export const xlsx = (rows: string[][], override: Partial<Record<string, ZipEntry | string>> = {}): Buffer =>
  zip(xlsxEntries(rows, override));

// --- XML entity attacks ---------------------------------------------------------------------------------------------

const XXE_FILE = '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
const XXE_HTTP = '<!DOCTYPE x [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/x.dtd"> %remote;]>';
const LAUGHS =
  '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from(
    { length: 9 },
    (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
  ).join('') +
  ']>';

/** A shared-strings part whose one string is an entity reference defined by `doctype`. */
const sharedStrings = (doctype: string, ref: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>${doctype}<sst xmlns="${NS}" count="1" uniqueCount="1"><si><t>${ref}</t></si></sst>`;

/** A sheet whose sn cell is shared string 0. */
const sharedSheet = (doctype = '', ref = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>${doctype}<worksheet xmlns="${NS}"><sheetData>` +
  `<row r="1"><c r="A1" t="inlineStr"><is><t>sn</t></is></c><c r="B1" t="inlineStr"><is><t>iccid</t></is></c><c r="C1" t="inlineStr"><is><t>tag</t></is></c></row>` +
  `<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>0</v></c><c r="C2" t="inlineStr"><is><t>${ref || 'x'}</t></is></c></row>` +
  `</sheetData></worksheet>`;

// --- the cases ------------------------------------------------------------------------------------------------------

/**
 * The kinds of upload route: `table` (.csv/.xlsx imports: devices, SIM cards, SIM usage), `sheet` (.xlsx only:
 * data-template variables), `image` (scene images), `binary` (firmware and application packages: stored whole,
 * never unpacked), `json` (scene and scene-model imports: a JSON body).
 */
export type RouteKind = 'table' | 'sheet' | 'image' | 'binary' | 'json';

/** One file part, or a whole hand-made multipart body (broken framing), or a JSON body. */
export type HostileBody =
  | { file: { filename: string; contentType: string; content: Buffer }; extraFields?: Record<string, string> }
  | { raw: (fields: Record<string, string>) => Buffer; contentLength?: number }
  | { json: string };

export interface HostileCase {
  id: string;
  kinds: RouteKind[];
  /** Built per route kind (a firmware must be called .bin, a table .xlsx). */
  body: (kind: RouteKind) => HostileBody;
}

export const BOUNDARY = '----cellhubhostile9c2e';

const part = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

const filePart = (filename: string, type: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;

/** A well-formed multipart body: the fields, then the file parts, then the closing boundary. */
export function multipartBody(
  fields: Record<string, string>,
  files: { filename: string; contentType: string; content: Buffer }[],
): Buffer {
  const chunks: Buffer[] = [
    Buffer.from(
      Object.entries(fields)
        .map(([k, v]) => part(k, v))
        .join(''),
    ),
  ];
  for (const f of files)
    chunks.push(Buffer.from(filePart(f.filename, f.contentType)), f.content, Buffer.from('\r\n'));
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Rows every table route can read (a devices, SIM card and usage header all at once) plus a variable tag. */
const GOOD_ROWS = [
  ['sn', 'iccid', 'date', 'used_mb', 'tag', 'name'],
  ['HOSTILE-1', '89860000000000009999', '2026-01-01', '1', 't1', 'n'],
];

/** A file of the kind the route takes, named as the route expects, with `content`. */
function asFile(kind: RouteKind, content: Buffer, ext?: string): HostileBody {
  const e =
    ext ?? (kind === 'image' ? '.png' : kind === 'binary' ? '.bin' : kind === 'json' ? '.json' : '.xlsx');
  const type =
    e === '.xlsx'
      ? XLSX_TYPE
      : e === '.png'
        ? 'image/png'
        : e === '.csv'
          ? 'text/csv'
          : 'application/octet-stream';
  return { file: { filename: `hostile${e}`, contentType: type, content } };
}

const svg = (inner: string, attrs = '') =>
  `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"${attrs}>${inner}</svg>`;

/** A real (tiny) binary for the routes that store files whole: bytes that are not text. */
export const harmlessBinary = (): Buffer =>
  Buffer.from([0x7f, 0x00, 0x01, 0x02, 0xfe, 0xff, 0x10, 0x80, 0x00, 0x42]);

/** A 1x1 PNG. */
export const tinyPng = (): Buffer =>
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );

/** A harmless file of the route's kind under `filename` (for the name attacks). */
function namedFile(kind: RouteKind, filename: (ext: string) => string): HostileBody {
  const ext = kind === 'image' ? '.png' : kind === 'binary' ? '.bin' : '.csv';
  const content =
    kind === 'image'
      ? tinyPng()
      : kind === 'binary'
        ? harmlessBinary()
        : Buffer.from(GOOD_ROWS.map((r) => r.join(',')).join('\n'));
  const type = kind === 'image' ? 'image/png' : kind === 'binary' ? 'application/octet-stream' : 'text/csv';
  return { file: { filename: filename(ext), contentType: type, content } };
}

/** A scene document (the import format) with `extra` merged in. */
const sceneDoc = (extra: string) =>
  `{"format":"cellhub.scene","version":1,"kind":"scene","name":"hostile","canvas":{"width":100,"height":100},"widgets":[{"id":"t","kind":"text","x":0,"y":0,"w":1,"h":1,"text":"x"}]${extra}}`;

export interface CaseSizes {
  /** MiB the bomb inflates to. */
  bombMb: number;
  /** Bytes of the long CSV line. */
  longLineBytes: number;
}

export function hostileCases(sizes: CaseSizes): HostileCase[] {
  const bombSheet = () =>
    deflateBomb(
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${NS}"><sheetData>`,
      0x20,
      sizes.bombMb,
      '</sheetData></worksheet>',
    );
  const tableOrSheet: RouteKind[] = ['table', 'sheet'];
  const everyFileRoute: RouteKind[] = ['table', 'sheet', 'image', 'binary'];
  const cases: HostileCase[] = [
    // Zip bombs dressed as .xlsx.
    {
      id: 'xlsx-bomb-forged-size',
      kinds: [...tableOrSheet, 'image'],
      body: (k) => {
        const b = bombSheet();
        return asFile(
          k,
          xlsx([], {
            'xl/worksheets/sheet1.xml': { name: 'xl/worksheets/sheet1.xml', deflated: b, declaredSize: 2048 },
          }),
          k === 'image' ? '.png' : '.xlsx',
        );
      },
    },
    {
      id: 'xlsx-bomb-honest-size',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          xlsx([], {
            'xl/worksheets/sheet1.xml': { name: 'xl/worksheets/sheet1.xml', deflated: bombSheet() },
          }),
        ),
    },
    {
      id: 'xlsx-bomb-in-shared-strings',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          xlsx(GOOD_ROWS, {
            'xl/sharedStrings.xml': {
              name: 'xl/sharedStrings.xml',
              deflated: deflateBomb(
                `<?xml version="1.0"?><sst xmlns="${NS}"><si><t>`,
                0x41,
                sizes.bombMb,
                '</t></si></sst>',
              ),
              declaredSize: 300,
            },
          }),
        ),
    },
    {
      id: 'xlsx-many-forged-entries',
      kinds: tableOrSheet,
      // Many entries each lying a little: their declared sum stays small, their real one does not.
      body: (k) => {
        const b = deflateBomb('', 0x20, Math.max(1, Math.floor(sizes.bombMb / 64)), '');
        return asFile(
          k,
          zip([
            ...xlsxEntries(GOOD_ROWS),
            ...Array.from({ length: 64 }, (_, i) => ({
              name: `xl/media/pad${i}.xml`,
              deflated: b,
              declaredSize: 10,
            })),
          ]),
        );
      },
    },
    // XML entity attacks inside a workbook.
    {
      id: 'xlsx-xxe-shared-strings',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          xlsx([], {
            'xl/sharedStrings.xml': sharedStrings(XXE_FILE, '&xxe;'),
            'xl/worksheets/sheet1.xml': sharedSheet(),
          }),
        ),
    },
    {
      id: 'xlsx-xxe-workbook',
      kinds: tableOrSheet,
      body: (k) => asFile(k, xlsx(GOOD_ROWS, { 'xl/workbook.xml': workbookXml(XXE_FILE, '&xxe;') })),
    },
    {
      id: 'xlsx-xxe-parameter-entity',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          xlsx([], {
            'xl/worksheets/sheet1.xml': sharedSheet(XXE_HTTP),
            'xl/sharedStrings.xml': sharedStrings('', 'x'),
          }),
        ),
    },
    {
      id: 'xlsx-billion-laughs-shared-strings',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          xlsx([], {
            'xl/sharedStrings.xml': sharedStrings(LAUGHS, '&lol9;'),
            'xl/worksheets/sheet1.xml': sharedSheet(),
          }),
        ),
    },
    {
      id: 'xlsx-billion-laughs-workbook',
      kinds: tableOrSheet,
      body: (k) => asFile(k, xlsx(GOOD_ROWS, { 'xl/workbook.xml': workbookXml(LAUGHS, '&lol9;') })),
    },
    {
      id: 'xlsx-billion-laughs-sheet',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          xlsx([], {
            'xl/worksheets/sheet1.xml': sharedSheet(LAUGHS, '&lol9;'),
            'xl/sharedStrings.xml': sharedStrings('', 'x'),
          }),
        ),
    },
    // Zips whose entry names escape, or that are not whole.
    {
      id: 'zip-dot-dot-entry',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          zip([...xlsxEntries(GOOD_ROWS), { name: '../../../../tmp/cellhub-escape.txt', data: 'escaped' }]),
        ),
    },
    {
      id: 'zip-absolute-entry',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          zip([...xlsxEntries(GOOD_ROWS), { name: '/etc/cron.d/cellhub', data: '* * * * * root id' }]),
        ),
    },
    {
      id: 'zip-backslash-entry',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(k, zip([...xlsxEntries(GOOD_ROWS), { name: '..\\..\\windows\\evil.dll', data: 'MZ' }])),
    },
    {
      id: 'zip-nul-in-entry-name',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(k, zip([...xlsxEntries(GOOD_ROWS), { name: 'xl/evil.xml\u0000.png', data: '<x/>' }])),
    },
    {
      id: 'zip-thousands-of-entries',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          zip([
            ...xlsxEntries(GOOD_ROWS),
            ...Array.from({ length: 5000 }, (_, i) => ({ name: `xl/pad/p${i}.xml`, data: '', store: true })),
          ]),
        ),
    },
    {
      id: 'zip-truncated',
      kinds: [...tableOrSheet, 'image'],
      body: (k) => {
        const whole = xlsx(GOOD_ROWS);
        return asFile(k, whole.subarray(0, Math.floor(whole.length / 2)), k === 'image' ? '.png' : '.xlsx');
      },
    },
    {
      id: 'zip-entry-size-mismatch',
      kinds: tableOrSheet,
      // A sheet declared bigger than it is (a lie the other way).
      body: (k) =>
        asFile(
          k,
          xlsx(GOOD_ROWS, {
            'xl/worksheets/sheet1.xml': {
              name: 'xl/worksheets/sheet1.xml',
              data: sheetXml(GOOD_ROWS),
              declaredSize: 60 * 1024 * 1024,
            },
          }),
        ),
    },
    // Polyglots: one file, two readings.
    {
      id: 'polyglot-png-zip',
      kinds: [...tableOrSheet, 'binary'],
      body: (k) => asFile(k, Buffer.concat([tinyPng(), xlsx(GOOD_ROWS)]), k === 'binary' ? '.zip' : '.xlsx'),
    },
    {
      id: 'polyglot-gif-js',
      kinds: everyFileRoute,
      // A GIF header that is also a script: GIF89a=1;alert(document.domain)//
      body: (k) =>
        asFile(
          k,
          Buffer.from('GIF89a/*\u0001\u0000\u0001\u0000*/=1;alert(document.domain);//\n'),
          k === 'table' ? '.csv' : undefined,
        ),
    },
    {
      id: 'polyglot-pdf-zip',
      kinds: [...tableOrSheet, 'image', 'binary'],
      body: (k) =>
        asFile(
          k,
          Buffer.concat([Buffer.from('%PDF-1.4\n%\u00e2\u00e3\n1 0 obj<<>>endobj\n'), xlsx(GOOD_ROWS)]),
          k === 'binary' ? '.zip' : k === 'image' ? '.png' : '.xlsx',
        ),
    },
    {
      id: 'polyglot-html-png-name',
      kinds: everyFileRoute,
      body: (k) =>
        asFile(
          k,
          Buffer.from('<!DOCTYPE html><html><script>alert(1)</script></html>'),
          k === 'table' ? '.csv' : undefined,
        ),
    },
    // SVG: script, handlers, links, foreign content, external references.
    ...(
      [
        ['svg-script', svg('<script>alert(document.cookie)</script>')],
        ['svg-onload', svg('<rect width="10" height="10"/>', ' onload="alert(1)"')],
        [
          'svg-javascript-href',
          svg('<a xlink:href="javascript:alert(1)"><rect width="10" height="10"/></a>'),
        ],
        [
          'svg-foreign-object',
          svg(
            '<foreignObject width="10" height="10"><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="javascript:alert(1)"></iframe></body></foreignObject>',
          ),
        ],
        [
          'svg-external-reference',
          svg(
            '<image href="file:///etc/passwd" width="10" height="10"/><use href="http://127.0.0.1:9/x.svg#a"/>',
          ),
        ],
      ] as const
    ).map(([id, text]): HostileCase => ({
      id,
      kinds: ['image', 'binary'],
      body: (k) => ({
        file: {
          filename: k === 'image' ? 'scene.svg' : 'fw.bin',
          contentType: 'image/svg+xml',
          content: Buffer.from(text),
        },
      }),
    })),
    {
      id: 'svg-named-png',
      kinds: ['image'],
      body: () => asFile('image', Buffer.from(svg('<script>alert(1)</script>')), '.png'),
    },
    {
      id: 'svg-with-bom-and-space',
      kinds: ['image', 'binary'],
      body: (k) =>
        asFile(
          k,
          Buffer.concat([
            Buffer.from([0xef, 0xbb, 0xbf]),
            Buffer.from(`\n   ${svg('<script>alert(1)</script>')}`),
          ]),
        ),
    },
    // Types that lie.
    {
      id: 'exe-named-image-or-csv',
      kinds: ['table', 'image'],
      body: (k) =>
        asFile(
          k,
          Buffer.concat([Buffer.from('MZ\u0090\u0000'), Buffer.alloc(200, 0)]),
          k === 'table' ? '.csv' : '.png',
        ),
    },
    {
      id: 'ole2-xls-named-xlsx',
      kinds: tableOrSheet,
      body: (k) =>
        asFile(
          k,
          Buffer.concat([
            Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
            Buffer.alloc(504, 0),
          ]),
        ),
    },
    {
      id: 'text-named-xlsx',
      kinds: tableOrSheet,
      body: (k) => asFile(k, Buffer.from('sn,name\nX,y\n')),
    },
    {
      id: 'text-named-firmware',
      kinds: ['binary'],
      body: (k) => asFile(k, Buffer.from('#!/bin/sh\nrm -rf /\n'.repeat(40))),
    },
    {
      id: 'zip-named-png',
      kinds: ['image'],
      body: () => asFile('image', xlsx(GOOD_ROWS), '.png'),
    },
    // CSV bodies.
    {
      id: 'csv-long-line',
      kinds: ['table'],
      body: () =>
        asFile(
          'table',
          Buffer.concat([
            Buffer.from('sn,iccid,date,used_mb,name\nX1,89860000000000000001,2026-01-01,1,'),
            Buffer.alloc(sizes.longLineBytes, 0x61),
            Buffer.from('\n'),
          ]),
          '.csv',
        ),
    },
    {
      id: 'csv-broken-utf8',
      kinds: ['table'],
      body: () =>
        asFile(
          'table',
          Buffer.concat([
            Buffer.from('sn,iccid,date,used_mb\nX\u00e9'),
            Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xff]),
            Buffer.from(',1,2026-01-01,1\n'),
          ]),
          '.csv',
        ),
    },
    {
      id: 'csv-nul-bytes',
      kinds: ['table'],
      body: () =>
        asFile(
          'table',
          Buffer.from('sn,iccid,date,used_mb\nX\u0000Y,89860000000000000001,2026-01-01,1\n'),
          '.csv',
        ),
    },
    {
      id: 'csv-unclosed-quote',
      kinds: ['table'],
      body: () =>
        asFile(
          'table',
          Buffer.from(`sn,iccid,date,used_mb\n"X1,89860000000000000001,2026-01-01,1\n${'y,'.repeat(1000)}`),
          '.csv',
        ),
    },
    // File names.
    {
      id: 'name-nul',
      kinds: everyFileRoute,
      body: (k) => namedFile(k, (ext) => `ok${ext}\u0000.exe`),
    },
    // Empty and oversized.
    {
      id: 'empty-file',
      kinds: everyFileRoute,
      body: (k) => asFile(k, Buffer.alloc(0), k === 'table' ? '.csv' : undefined),
    },
    // Multipart framing.
    {
      id: 'multipart-never-closed',
      kinds: everyFileRoute,
      body: (k) => {
        const f = asFile(
          k,
          k === 'image' ? tinyPng() : k === 'binary' ? harmlessBinary() : xlsx(GOOD_ROWS),
        ) as { file: { filename: string; contentType: string; content: Buffer } };
        return {
          raw: (fields) => {
            const whole = multipartBody(fields, [f.file]);
            // The closing boundary and the file's last bytes never come.
            return whole.subarray(0, whole.length - `\r\n--${BOUNDARY}--\r\n`.length - 3);
          },
        };
      },
    },
    {
      id: 'multipart-no-final-boundary',
      kinds: everyFileRoute,
      body: (k) => {
        const f = asFile(
          k,
          k === 'image' ? tinyPng() : k === 'binary' ? harmlessBinary() : xlsx(GOOD_ROWS),
        ) as { file: { filename: string; contentType: string; content: Buffer } };
        return {
          raw: (fields) =>
            Buffer.concat([
              Buffer.from(
                Object.entries(fields)
                  .map(([n, v]) => part(n, v))
                  .join('') + filePart(f.file.filename, f.file.contentType),
              ),
              f.file.content,
            ]),
        };
      },
    },
    {
      id: 'multipart-two-files',
      kinds: everyFileRoute,
      body: (k) => {
        const f = asFile(
          k,
          k === 'image' ? tinyPng() : k === 'binary' ? harmlessBinary() : xlsx(GOOD_ROWS),
        ) as { file: { filename: string; contentType: string; content: Buffer } };
        return {
          raw: (fields) =>
            multipartBody(fields, [f.file, { ...f.file, filename: `second-${f.file.filename}` }]),
        };
      },
    },
    {
      id: 'multipart-field-over-limit',
      kinds: everyFileRoute,
      body: (k) => {
        const f = asFile(
          k,
          k === 'image' ? tinyPng() : k === 'binary' ? harmlessBinary() : xlsx(GOOD_ROWS),
        ) as { file: { filename: string; contentType: string; content: Buffer } };
        return {
          raw: (fields) =>
            multipartBody(
              { ...fields, notes_en: 'x'.repeat(2 * 1024 * 1024), padding: 'y'.repeat(2 * 1024 * 1024) },
              [f.file],
            ),
        };
      },
    },
    {
      id: 'multipart-lying-content-length',
      kinds: everyFileRoute,
      // The header announces far more than the route takes: refused before a byte is read.
      body: (k) => {
        const f = asFile(
          k,
          k === 'image' ? tinyPng() : k === 'binary' ? harmlessBinary() : xlsx(GOOD_ROWS),
        ) as { file: { filename: string; contentType: string; content: Buffer } };
        return {
          raw: (fields) => multipartBody(fields, [f.file]),
          contentLength: 4 * 1024 * 1024 * 1024 - 1,
        };
      },
    },
    // JSON imports.
    {
      id: 'json-deep-nesting',
      kinds: ['json'],
      body: () => ({ json: `{"file":${'['.repeat(100_000)}${']'.repeat(100_000)}}` }),
    },
    {
      id: 'json-deep-objects',
      kinds: ['json'],
      body: () => ({ json: `{"file":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}` }),
    },
    {
      id: 'json-proto',
      kinds: ['json'],
      body: () => ({ json: `{"file":${sceneDoc(',"__proto__":{"isAdmin":true,"polluted":1}')}}` }),
    },
    {
      id: 'json-constructor-prototype',
      kinds: ['json'],
      body: () => ({ json: `{"file":${sceneDoc(',"constructor":{"prototype":{"polluted":1}}')}}` }),
    },
    {
      id: 'json-widget-bomb',
      kinds: ['json'],
      body: () => ({
        json: `{"file":${sceneDoc('').replace(/"widgets":\[.*\]/, `"widgets":[${Array.from({ length: 5000 }, (_, i) => `{"id":"w${i}","kind":"text","x":0,"y":0,"w":1,"h":1,"text":"x"}`).join(',')}]`)}}`,
      }),
    },
  ];
  return cases;
}

/**
 * Names that are hostile but whose file is harmless: a route may accept the file if the name it records is inert
 * (no directory part, no control or bidi characters) and the file lands under a name of the server's own.
 */
export const hostileNames: { id: string; name: (ext: string) => string }[] = [
  { id: 'name-dot-dot', name: (ext) => `../../../../tmp/cellhub-escape${ext}` },
  { id: 'name-absolute', name: (ext) => `/etc/cron.d/cellhub${ext}` },
  { id: 'name-backslash', name: (ext) => `..\\..\\boot${ext}` },
  { id: 'name-control-characters', name: (ext) => `a\u0007\u001b[31mred${ext}` },
  { id: 'name-very-long', name: (ext) => `${'a'.repeat(5000)}${ext}` },
  { id: 'name-rtl-override', name: (ext) => `invoice\u202egpj${ext}` },
  { id: 'name-bidi-isolates', name: (ext) => `\u2066report\u2069\u200f${ext}` },
];

/** A harmless file of the kind under `filename`. */
export const harmlessFile = (kind: RouteKind, filename: (ext: string) => string): HostileBody =>
  namedFile(kind, filename);
