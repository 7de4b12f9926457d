// Telling an image's format from its bytes, before any decoder sees them (image-fetcher.ts, photo.ts).

/**
 * What shelf photos are sent as: JPEG, PNG, WebP and AVIF (HEIF holding AV1; this libvips decodes no
 * HEVC, so an iPhone's HEIC is refused by name). The rest of what libvips reads is refused from the
 * bytes, before libvips sees them: SVG renders arbitrary filter chains (one 30 KB file held a worker at
 * 7 GB for minutes), TIFF and GIF carry many pages and odd codecs, and none is a camera's format.
 */
export type PhotoFormat = 'jpeg' | 'png' | 'webp' | 'avif';

const ascii = (bytes: Buffer, from: number, to: number) => bytes.subarray(from, to).toString('latin1');

/** The format the bytes say they are, by their signature; `heic` and `null` are refused. */
export function sniffFormat(bytes: Buffer): PhotoFormat | 'heic' | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  // ISO base media: a `ftyp` box first, whose major and compatible brands name the codec family.
  if (bytes.length >= 16 && ascii(bytes, 4, 8) === 'ftyp') {
    const size = Math.min(bytes.readUInt32BE(0), bytes.length, 256);
    const brands = [ascii(bytes, 8, 12)];
    for (let at = 16; at + 4 <= size; at += 4) brands.push(ascii(bytes, at, at + 4));
    if (brands.some((b) => b === 'avif' || b === 'avis')) return 'avif';
    if (brands.some((b) => ['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1'].includes(b))) return 'heic';
  }
  return null;
}

/** Bytes a decoded sample takes, by libvips band format (sharp's `depth`). */
export const BYTES_PER_SAMPLE: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  complex: 8,
  double: 8,
  dpcomplex: 16,
};

/**
 * Images of other kinds, told apart from bytes that are no image only to word the refusal; nothing
 * here is ever handed to a decoder (SVG's XML included).
 */
export function otherImageFormat(bytes: Buffer): boolean {
  const head = ascii(bytes, 0, Math.min(bytes.length, 512)).trimStart();
  return (
    head.startsWith('GIF8') ||
    head.startsWith('II*\0') ||
    head.startsWith('MM\0*') ||
    head.startsWith('BM') ||
    /^P[1-7]\s/.test(head) ||
    /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head) ||
    bytes.subarray(0, 2).equals(Buffer.from([0xff, 0x0a])) ||
    bytes.subarray(0, 12).equals(Buffer.from([0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a]))
  );
}
