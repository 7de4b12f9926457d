import sharp, { type Metadata } from 'sharp';
import { OutboundAddressError } from '../../lib/outbound/address-guard.js';
import { OversizeError, outboundRequest } from '../../lib/outbound/http-client.js';
import { UNDECODABLE_IMAGE_MESSAGE, type ImageErrorCode } from '../../temporal/contracts/image-errors.js';
import { BYTES_PER_SAMPLE, otherImageFormat, sniffFormat, type PhotoFormat } from '../../lib/image-format.js';

/**
 * `retryable` separates a flaky host (try again) from an answer that will not change. `message` is
 * public (stored on the analysis, returned by the API): it says what the client can act on and never
 * names an internal address, port, resolver answer or socket error; `detail` is for our logs only.
 */
export class ImageError extends Error {
  constructor(
    readonly code: ImageErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'ImageError';
  }
}

export type FetchedImage = { bytes: Buffer; contentType: string; width: number; height: number };

export type ImageFetchOptions = {
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
  maxPixels?: number;
  maxSide?: number;
  /**
   * What to do with the photo once it is known to be one (its bytes and header checked): run while
   * the photo is decoded in full (unless `decodeInFull` is false), and awaited, before fetchImage
   * answers. A photo the decode refuses is refused however `keep` went; what `keep` stored of it is the
   * caller's to discard.
   */
  keep?: (image: FetchedImage) => Promise<void>;
  /**
   * False: a photo within `maxSide` is not decoded here (its bytes, format, header and what decoding
   * it would cost are checked all the same), because the recognizer that reads it decodes every photo
   * in full first and refuses one that does not decode with this fetch's code and message
   * (`Recognizer.decodesEveryPhoto`, decisions.md D282). A larger photo is decoded to be resized anyway.
   */
  decodeInFull?: boolean;
};

/**
 * Work per image is bounded before it is done: the format is read from the bytes and must be one
 * shelf photos come in; the header's dimensions are checked against IMAGE_MAX_PIXELS before anything
 * is decoded (a 311 KB PNG can claim 10000×10000), and so is what decoding would allocate (pixels ×
 * channels × bytes a sample: a 16-bit RGBA image takes 8 bytes a pixel, not 3); decoders refuse more
 * pixels than that; and what is kept for recognition is at most RECOGNITION_MAX_SIDE on its longest
 * side. Recognition then works on at most 4096×4096×3 bytes (~50 MB) per copy, whatever was sent.
 */
export const DEFAULT_MAX_PIXELS = 64_000_000;
export const RECOGNITION_MAX_SIDE = 4096;

/** The body is no image we can decode; `cause`, if any, what the decoder said (kept for the logs). */
function notAnImage(cause?: unknown): ImageError {
  const detail = cause === undefined ? undefined : (cause as Error).message;
  return new ImageError('IMAGE_NOT_AN_IMAGE', UNDECODABLE_IMAGE_MESSAGE, false, detail);
}

/** The public refusal of a format outside the allow-list (the client can convert and send again). */
function unsupported(found: PhotoFormat | 'heic' | null): ImageError {
  return new ImageError(
    'IMAGE_UNSUPPORTED',
    found === 'heic'
      ? 'HEIC images are not supported; send the photo as JPEG, PNG, WebP or AVIF.'
      : 'The image is not in a supported format; send the photo as JPEG, PNG, WebP or AVIF.',
    false,
  );
}

export async function fetchImage(url: string, opts: ImageFetchOptions): Promise<FetchedImage> {
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_PIXELS;
  const maxSide = opts.maxSide ?? RECOGNITION_MAX_SIDE;
  let res;
  try {
    res = await outboundRequest(url, {
      timeoutMs: opts.timeoutMs,
      maxBytes: opts.maxBytes,
      maxRedirects: 3,
      allowPrivate: opts.allowPrivate,
      headers: { accept: 'image/*', 'user-agent': 'Service-ImageFetcher/1.0' },
    });
  } catch (err) {
    if (err instanceof OutboundAddressError) {
      if (err.code === 'PRIVATE_ADDRESS')
        throw new ImageError(
          'IMAGE_ADDRESS_BLOCKED',
          'The image URL points to an address that is not allowed (a private or reserved network).',
          false,
          err.message,
        );
      if (err.code === 'INVALID_URL')
        throw new ImageError('IMAGE_UNREACHABLE', 'The image URL is not a valid http(s) URL.', false, err.message);
      throw new ImageError('IMAGE_UNREACHABLE', "The image URL's host name could not be resolved.", true, err.message);
    }
    if (err instanceof OversizeError)
      throw new ImageError('IMAGE_TOO_LARGE', `The image is larger than ${opts.maxBytes} bytes.`, false);
    const e = err as Error & { code?: string };
    const timedOut =
      e.name === 'TimeoutError' ||
      e.name === 'AbortError' ||
      e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
      e.code === 'UND_ERR_BODY_TIMEOUT' ||
      e.code === 'UND_ERR_CONNECT_TIMEOUT';
    throw new ImageError(
      'IMAGE_UNREACHABLE',
      timedOut ? 'The image host did not answer in time.' : 'The image host could not be reached.',
      true,
      `${e.code ?? e.name}: ${e.message}`,
    );
  }
  if (res.status >= 300) {
    const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
    throw new ImageError('IMAGE_HTTP_ERROR', `The image URL answered HTTP ${res.status}.`, retryable);
  }
  const contentType = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (contentType && !contentType.startsWith('image/') && contentType !== 'application/octet-stream') {
    throw new ImageError('IMAGE_NOT_AN_IMAGE', `The URL returned '${contentType}', not an image.`, false);
  }
  const format = sniffFormat(res.body);
  if (format === 'heic' || (format === null && otherImageFormat(res.body))) throw unsupported(format);
  if (format === null) throw notAnImage();
  let meta: Metadata;
  try {
    // Reads the header only: nothing is decoded yet.
    meta = await sharp(res.body, { limitInputPixels: false }).metadata();
    if (!meta.width || !meta.height || !meta.format) throw new Error('no dimensions');
  } catch (err) {
    throw notAnImage(err);
  }
  // The signature and the decoder must agree (an AVIF brand over a HEVC payload, say).
  const decodedAs = meta.format === 'heif' ? (meta.compression === 'av1' ? 'avif' : 'heic') : meta.format;
  if (decodedAs !== format) throw unsupported(decodedAs === 'heic' ? 'heic' : null);
  if (meta.width * meta.height > maxPixels) {
    throw new ImageError(
      'IMAGE_TOO_LARGE',
      `The image is ${meta.width}×${meta.height} pixels; at most ${maxPixels.toLocaleString('en')} pixels are accepted.`,
      false,
    );
  }
  // What decoding allocates, against what an 8-bit RGB photo at the pixel limit would.
  const sampleBytes = BYTES_PER_SAMPLE[meta.depth ?? 'uchar'] ?? 8;
  const decodedBytes = meta.width * meta.height * (meta.channels ?? 3) * sampleBytes;
  if (decodedBytes > maxPixels * 3) {
    const mb = (n: number) => Math.ceil(n / 1_000_000).toLocaleString('en');
    throw new ImageError(
      'IMAGE_TOO_COMPLEX',
      `The image would take ${mb(decodedBytes)} MB to decode (${meta.width}×${meta.height}, ${meta.channels} channels of ${sampleBytes * 8} bits); at most ${mb(maxPixels * 3)} MB are accepted. Send an 8-bit RGB photo.`,
      false,
    );
  }
  const decoder = () => sharp(res.body, { limitInputPixels: maxPixels, sequentialRead: true });
  if (Math.max(meta.width, meta.height) <= maxSide) {
    const image = { bytes: res.body, contentType: `image/${format}`, width: meta.width, height: meta.height };
    if (opts.decodeInFull === false) {
      await opts.keep?.(image);
      return image;
    }
    // A full decode catches truncated files that still have a valid header. It needs nothing `keep`
    // does, nor `keep` anything of it: the two run at once (the decode on libvips' threads, `keep`
    // waiting on the database), and a photo that fails the decode is refused all the same.
    const [decoded, kept] = await Promise.allSettled([
      Promise.resolve().then(() => decoder().resize(32, 32, { fit: 'inside' }).raw().toBuffer()),
      opts.keep?.(image),
    ]);
    if (decoded.status === 'rejected') throw notAnImage(decoded.reason);
    if (kept.status === 'rejected') throw kept.reason;
    return image;
  }
  let image: FetchedImage;
  try {
    await decoder().resize(32, 32, { fit: 'inside' }).raw().toBuffer();
    // Larger than recognition needs: keep a copy at most maxSide on its longest side, upright.
    const { data, info } = await decoder()
      .rotate()
      .resize({ width: maxSide, height: maxSide, fit: 'inside' })
      .jpeg({ quality: 92 })
      .toBuffer({ resolveWithObject: true });
    image = { bytes: data, contentType: 'image/jpeg', width: info.width, height: info.height };
  } catch (err) {
    throw notAnImage(err);
  }
  await opts.keep?.(image);
  return image;
}
