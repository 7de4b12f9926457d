import { regionBoxes } from './label-finder.js';
import type { Box } from './ocr-types.js';
import { shrink, type Photo } from './photo.js';

const SHRINK = 4;

/** A coloured pixel: its brightest channel this bright or more (not black)... */
const COLOURED_MIN = 96;
/** ...its channels this far apart, as a share of the brightest (saturated, not grey)... */
const COLOURED_CHROMA = 0.5;
/** ...and dark in the green channel, the one OCR reads (red, magenta, a deep orange; not yellow). */
const COLOURED_DARK_GREEN = 128;

/**
 * Label-shaped regions of coloured dark paper: a promotion label's red ("SAVE 19%" in red on a white
 * strip above its name and prices in white on red). Found on a quarter-size copy, where print is thin
 * and the region flows round it: pixels saturated and dark where OCR reads (the green channel), not
 * grey or black (a dark shelf, a black label), grouped into connected regions, kept when their size,
 * shape and fill are a label's (twice as wide as tall or more, at most half the photo across, mostly
 * paper: a pack's coloured front is squarer).
 */
export async function colouredPaperBoxes(photo: Photo): Promise<Box[]> {
  const { rgb, width: W, height: H, fx, fy } = await shrink(photo, SHRINK);
  // Coloured pixels are 0: darkComponents groups the zeros of a mask into connected regions.
  const mask = new Uint8Array(W * H);
  for (let i = 0, p = 0; i < W * H; i++, p += 3) {
    const r = rgb[p]!,
      g = rgb[p + 1]!,
      b = rgb[p + 2]!;
    const max = Math.max(r, g, b);
    mask[i] =
      max >= COLOURED_MIN && max - Math.min(r, g, b) >= COLOURED_CHROMA * max && g < COLOURED_DARK_GREEN ? 0 : 1;
  }
  return regionBoxes(photo, { mask, width: W, height: H, fx, fy }, { minHeight: 0.02, minAspect: 2, minFill: 0.5 });
}
