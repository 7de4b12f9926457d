import sharp from 'sharp';
import type { Box } from './ocr-types.js';
import { sniffFormat } from '../../../../lib/image-format.js';
import { UNDECODABLE_IMAGE_MESSAGE } from '../../../../temporal/contracts/image-errors.js';
import { RecognitionRejectedError } from '../../recognizer.js';

/** A photo decoded once, upright (EXIF applied), as 8-bit RGB: every stage works from this copy. */
export type Photo = { rgb: Buffer; width: number; height: number };
/** A smaller RGB copy, and how many photo pixels one of its pixels stands for along each axis. */
export type Shrunk = { rgb: Buffer; width: number; height: number; fx: number; fy: number };
export type GreyImage = { data: Buffer; width: number; height: number };

export async function decodePhoto(image: Buffer): Promise<Photo> {
  // Bounded twice: the fetcher keeps at most 4096 px a side, in a photo format it read from the bytes;
  // this guards any other caller (and images stored before formats were checked) the same way.
  const format = sniffFormat(image);
  if (format === null || format === 'heic')
    throw new RecognitionRejectedError('the stored image is not in a photo format (JPEG, PNG, WebP or AVIF)');
  // The whole photo is decoded here, so a file cut short behind a valid header is refused here, with
  // the code and words the fetch would have refused it with: the fetch leaves that check to this
  // decode (Recognizer.decodesEveryPhoto, decisions.md D282).
  const { data, info } = await sharp(image, { limitInputPixels: 64_000_000 })
    .rotate()
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch(() => {
      throw new RecognitionRejectedError(UNDECODABLE_IMAGE_MESSAGE, 'IMAGE_NOT_AN_IMAGE');
    });
  return { rgb: data, width: info.width, height: info.height };
}

/** Each photo's smaller copies, by factor: several stages look at the same quarter-size copy. */
const shrunk = new WeakMap<Photo, Map<number, Promise<Shrunk>>>();

/**
 * A smaller copy of the photo, made once a photo and factor (the paper finder, the labels found from
 * their bars and the coloured paper finder each look at the quarter-size one). Read only.
 */
export function shrink(photo: Photo, factor: number): Promise<Shrunk> {
  let copies = shrunk.get(photo);
  if (!copies) shrunk.set(photo, (copies = new Map()));
  let copy = copies.get(factor);
  if (!copy) copies.set(factor, (copy = shrinkOnce(photo, factor)));
  return copy;
}

async function shrinkOnce(photo: Photo, factor: number): Promise<Shrunk> {
  const { data, info } = await sharp(photo.rgb, { raw: { width: photo.width, height: photo.height, channels: 3 } })
    .resize(Math.max(1, Math.round(photo.width / factor)))
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    rgb: data,
    width: info.width,
    height: info.height,
    fx: photo.width / info.width,
    fy: photo.height / info.height,
  };
}

/** A box found on a smaller copy, in the photo's pixels (outwards to whole pixels, inside the photo). */
export function toPhotoBox(b: Box, copy: Pick<Shrunk, 'fx' | 'fy'>, photo: Pick<Photo, 'width' | 'height'>): Box {
  return {
    x0: Math.floor(b.x0 * copy.fx),
    y0: Math.floor(b.y0 * copy.fy),
    x1: Math.min(photo.width, Math.ceil(b.x1 * copy.fx)),
    y1: Math.min(photo.height, Math.ceil(b.y1 * copy.fy)),
  };
}

/**
 * The green channel: what OCR reads labels from. Red promotion print on yellow paper is as dark
 * there as black print on white, where luminance leaves it grey on light grey.
 */
export function greenChannel(photo: Photo): GreyImage {
  const data = Buffer.allocUnsafe(photo.width * photo.height);
  for (let i = 0, p = 1; i < data.length; i++, p += 3) data[i] = photo.rgb[p]!;
  return { data, width: photo.width, height: photo.height };
}
