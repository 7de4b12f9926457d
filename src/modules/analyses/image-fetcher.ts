import sharp from 'sharp';
import { OutboundAddressError } from '../../lib/outbound/address-guard.js';
import { OversizeError, outboundRequest } from '../../lib/outbound/http-client.js';

export const IMAGE_ERROR_CODES = [
  'IMAGE_UNREACHABLE',
  'IMAGE_HTTP_ERROR',
  'IMAGE_NOT_AN_IMAGE',
  'IMAGE_TOO_LARGE',
  'IMAGE_ADDRESS_BLOCKED',
] as const;
export type ImageErrorCode = (typeof IMAGE_ERROR_CODES)[number];

/** `retryable` separates a flaky host (try again) from an answer that will not change. */
export class ImageError extends Error {
  constructor(
    readonly code: ImageErrorCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ImageError';
  }
}

export type FetchedImage = { bytes: Buffer; contentType: string; width: number; height: number };

export type ImageFetchOptions = { maxBytes: number; timeoutMs: number; allowPrivate: boolean };

const MAX_PIXELS = 100_000_000;

export async function fetchImage(url: string, opts: ImageFetchOptions): Promise<FetchedImage> {
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
      if (err.code === 'PRIVATE_ADDRESS') throw new ImageError('IMAGE_ADDRESS_BLOCKED', err.message, false);
      if (err.code === 'INVALID_URL') throw new ImageError('IMAGE_UNREACHABLE', err.message, false);
      throw new ImageError('IMAGE_UNREACHABLE', err.message, true);
    }
    if (err instanceof OversizeError) throw new ImageError('IMAGE_TOO_LARGE', `The image is larger than ${opts.maxBytes} bytes.`, false);
    const e = err as Error & { code?: string };
    throw new ImageError('IMAGE_UNREACHABLE', `Could not fetch the image: ${e.code ?? e.name}: ${e.message}`, true);
  }
  if (res.status >= 300) {
    const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
    throw new ImageError('IMAGE_HTTP_ERROR', `The image URL answered HTTP ${res.status}.`, retryable);
  }
  const contentType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType && !contentType.startsWith('image/') && contentType !== 'application/octet-stream') {
    throw new ImageError('IMAGE_NOT_AN_IMAGE', `The URL returned '${contentType}', not an image.`, false);
  }
  try {
    const meta = await sharp(res.body, { limitInputPixels: MAX_PIXELS }).metadata();
    if (!meta.width || !meta.height || !meta.format) throw new Error('no dimensions');
    // A full decode catches truncated files that still have a valid header.
    await sharp(res.body, { limitInputPixels: MAX_PIXELS }).resize(32, 32, { fit: 'inside' }).raw().toBuffer();
    return { bytes: res.body, contentType: `image/${meta.format}`, width: meta.width, height: meta.height };
  } catch (err) {
    throw new ImageError('IMAGE_NOT_AN_IMAGE', `The body could not be decoded as an image: ${(err as Error).message}`, false);
  }
}
