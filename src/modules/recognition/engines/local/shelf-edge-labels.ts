import type { Box } from './ocr-types.js';
import { shrink, toPhotoBox, type Photo } from './photo.js';

const SHRINK = 4;
/** Two colours this close (the sum of their channels' differences) are one paint under one light. */
const SAME = 48;
/** A label stands out from the edge it is clipped to by this much or more. */
const APART = 80;
/** A row is a shelf edge's where one colour covers this share of it or more (labels cover the rest). */
const EDGE_SHARE = 0.4;

type Rgb = [number, number, number];
/**
 * A label found on an edge. `cut`: its colour went on past the edge above or below (a white label
 * under a white wall, or a label taller than its edge), so the box ends with the edge there and may
 * be short of the label.
 */
export type EdgeLabel = Box & { cut: boolean };
const dist = (a: Rgb, rgb: Buffer, p: number) =>
  Math.abs(rgb[p]! - a[0]) + Math.abs(rgb[p + 1]! - a[1]) + Math.abs(rgb[p + 2]! - a[2]);

/** A row's stretch's commonest colour (found by 16 levels a channel) and its share of the stretch. */
function stretchColour(
  rgb: Buffer,
  W: number,
  y: number,
  x0: number,
  x1: number,
  counts: Uint16Array,
): { colour: Rgb; share: number } {
  const bin = commonest(rgb, W, x0, x1, y, y + 1, counts);
  // The bin's pixels and its neighbours' averaged: paint whose noise straddles two bins (a dark
  // edge's, mostly) is measured from its own middle, not a bin's.
  const sum = [0, 0, 0];
  let n = 0;
  for (let x = x0, p = (y * W + x0) * 3; x < x1; x++, p += 3)
    if (dist(bin, rgb, p) <= SAME) {
      sum[0] += rgb[p]!;
      sum[1] += rgb[p + 1]!;
      sum[2] += rgb[p + 2]!;
      n++;
    }
  const colour: Rgb = [Math.round(sum[0]! / n), Math.round(sum[1]! / n), Math.round(sum[2]! / n)];
  let near = 0;
  for (let x = x0, p = (y * W + x0) * 3; x < x1; x++, p += 3) if (dist(colour, rgb, p) <= SAME) near++;
  return { colour, share: near / (x1 - x0) };
}

/** The commonest colour (by 16 levels a channel, the bin's middle) of a rectangle of the copy. */
function commonest(rgb: Buffer, W: number, x0: number, x1: number, y0: number, y1: number, counts: Uint16Array): Rgb {
  counts.fill(0);
  let top = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0, p = (y * W + x0) * 3; x < x1; x++, p += 3) {
      const bin = ((rgb[p]! >> 4) << 8) | ((rgb[p + 1]! >> 4) << 4) | (rgb[p + 2]! >> 4);
      if (++counts[bin]! > counts[top]!) top = bin;
    }
  return binColour(top);
}

/** The middle of a 16-levels-a-channel colour bin (red, green, blue in its 12 bits). */
const binColour = (bin: number): Rgb => [((bin >> 8) << 4) + 8, (((bin >> 4) & 15) << 4) + 8, ((bin & 15) << 4) + 8];

const close = (a: Rgb, b: Rgb) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) <= SAME;

/**
 * Two slices' bands of one edge: one colour, or both dark with one hue. A black price channel lit from
 * above reads rgb 31 at its ends and 70 in its middle, further apart than SAME, while its labels
 * stand out from either by far more.
 */
const sameEdge = (a: Rgb, b: Rgb) =>
  close(a, b) ||
  (Math.max(...a, ...b) < 112 &&
    Math.abs(a[0] - a[1] - (b[0] - b[1])) + Math.abs(a[1] - a[2] - (b[1] - b[2])) <= SAME / 2);

/** A band of one colour in one vertical slice of the photo. */
type Band = { slice: number; y0: number; y1: number; colour: Rgb };

/**
 * Labels found by the shelf edge they are clipped to, whatever either's colour (D379): white paper
 * on a blue edge, dark green labels on a red one, e-paper on black. The paper finder looks for
 * bright paper apart from its surroundings, and a label whose top meets a pale pack or wall above
 * runs into it there and is lost. Here the edges are found first, on a quarter-size copy cut into
 * upright slices (so a photo taken a few degrees askew still shows each edge as rows of one colour
 * in a slice): in each, bands of rows one colour covers most of, from half a percent to a tenth of
 * the photo tall; bands of one colour at about one height in neighbouring slices are one edge,
 * and an edge crosses half the photo or more. Along it, the runs of columns that stand out
 * from its colour through most of its height, label-wide and label-shaped, are the labels, as far
 * up and down as they stand out (a pack standing in front of the edge reaches past it, and is no
 * label).
 */
export async function labelsOnShelfEdges(photo: Photo): Promise<EdgeLabel[]> {
  const { rgb, width: W, height: H, fx, fy } = await shrink(photo, SHRINK);
  const slices = Math.max(4, Math.round(W / 40));
  const sw = W / slices;
  const counts = new Uint16Array(4096);
  const bands: Band[][] = [];
  for (let s = 0; s < slices; s++) {
    const x0 = Math.round(s * sw);
    const x1 = Math.round((s + 1) * sw);
    const rows = Array.from({ length: H }, (_, y) => stretchColour(rgb, W, y, x0, x1, counts));
    const found: Band[] = [];
    for (let y = 0; y < H;) {
      const start = rows[y]!;
      if (start.share < EDGE_SHARE) {
        y++;
        continue;
      }
      let end = y + 1;
      while (end < H && rows[end]!.share >= EDGE_SHARE && close(rows[end]!.colour, start.colour)) end++;
      // An edge's colour ends where it does: a band whose rows above or below are still its colour
      // (less of it: a pegboard's holes, packs in front) is a stretch of wall, not an edge. A few rows
      // out are looked at: across a slice of a photo taken askew, the edge's border row is half edge.
      const ends = (from: number, step: number) => {
        for (let k = 1, r = from; k <= 3 && r >= 0 && r < H; k++, r += step)
          if (!close(rows[r]!.colour, start.colour)) return true;
        return from < 0 || from >= H;
      };
      const bounded = ends(y - 1, -1) && ends(end, 1);
      if (bounded && end - y >= Math.max(3, H * 0.005) && end - y <= H * 0.1)
        // Its colour is its middle row's: the first is often half the lip above it.
        found.push({ slice: s, y0: y, y1: end, colour: rows[(y + end) >> 1]!.colour });
      y = end;
    }
    bands.push(found);
  }
  // Chains of bands across the slices: one colour, overlapping heights; a slice a label fills may
  // be skipped.
  const used = new Set<Band>();
  const out: EdgeLabel[] = [];
  for (let s = 0; s < slices; s++)
    for (const first of bands[s]!) {
      if (used.has(first)) continue;
      const chain = [first];
      for (let t = s + 1, last = first; t < slices && t - last.slice <= 2; t++) {
        const next = bands[t]!.find(
          (b) =>
            !used.has(b) &&
            // Against the last band's colour, not the first's: light falls off along a shelf, and a
            // dark edge's colour drifts slice by slice (rgb 32 to 79 across one photo).
            sameEdge(b.colour, last.colour) &&
            Math.min(b.y1, last.y1) - Math.max(b.y0, last.y0) >= 0.5 * Math.min(b.y1 - b.y0, last.y1 - last.y0),
        );
        if (next) {
          chain.push(next);
          last = next;
        }
      }
      // An edge crosses half the photo or more, seen in most slices of its span: bands on a few packs
      // side by side, or on the wall between them, do not.
      const span = chain.at(-1)!.slice - first.slice + 1;
      if (span < slices / 2 || chain.length < 0.6 * span) continue;
      for (const b of chain) used.add(b);
      out.push(...labelsOnEdge(rgb, W, H, chain, sw).map((b) => ({ ...toPhotoBox(b, { fx, fy }, photo), cut: b.cut })));
    }
  return out;
}

/** The labels along one shelf edge: its height at each column drawn between its slices' bands. */
function labelsOnEdge(rgb: Buffer, W: number, H: number, chain: Band[], sw: number): EdgeLabel[] {
  const counts = new Uint16Array(4096);
  const xs = chain.map((b) => (b.slice + 0.5) * sw);
  // Labels may cover the edge's ends whole (so no band is seen there): two slices more each side.
  const from = Math.max(0, Math.round((chain[0]!.slice - 2) * sw));
  const to = Math.min(W, Math.round((chain.at(-1)!.slice + 3) * sw));
  const edgeAt = (x: number): [number, number] => {
    let k = 0;
    while (k < xs.length - 2 && x > xs[k + 1]!) k++;
    const a = chain[k]!;
    const b = chain[Math.min(k + 1, chain.length - 1)]!;
    const t = xs.length < 2 ? 0 : Math.max(0, Math.min(1, (x - xs[k]!) / (xs[k + 1]! - xs[k]!)));
    return [Math.round(a.y0 + t * (b.y0 - a.y0)), Math.round(a.y1 + t * (b.y1 - a.y1))];
  };
  // The edge's colour at a column: its nearest slice's.
  const colourAt = (x: number) =>
    chain[
      Math.min(
        chain.length - 1,
        Math.max(
          0,
          xs.findIndex((c) => c + sw / 2 > x),
        ),
      )
    ]!.colour;
  // Columns standing out through most of the edge's height.
  const standsOut = new Uint8Array(W);
  for (let x = from; x < to; x++) {
    const [y0, y1] = edgeAt(x);
    const colour = colourAt(x);
    let n = 0;
    for (let y = y0; y < y1; y++) if (dist(colour, rgb, (y * W + x) * 3) > APART) n++;
    standsOut[x] = n >= 0.6 * (y1 - y0) ? 1 : 0;
  }
  const boxes: EdgeLabel[] = [];
  for (let x = from; x < to;) {
    if (!standsOut[x]) {
      x++;
      continue;
    }
    // A few columns' gap (print the colour of the edge) does not end a label.
    const [gy0, gy1] = edgeAt(x);
    const gap = Math.max(1, Math.round(0.3 * (gy1 - gy0)));
    let x1 = x + 1;
    for (let miss = 0, c = x + 1; c < to && miss <= gap; c++)
      if (standsOut[c]) {
        x1 = c + 1;
        miss = 0;
      } else miss++;
    const x0 = x;
    x = x1;
    const run = x1 - x0;
    // A run at the photo's side is cut off there (or is the fixture's upright): not a whole label.
    if (run < Math.max(4, W * 0.025) || run > W * 0.25 || x0 === 0 || x1 >= W) continue;
    const [y0, y1] = edgeAt((x0 + x1) / 2);
    const bh = y1 - y0;
    const reach = Math.max(2, Math.round(bh * 0.6));
    // The label's own colour: the commonest of the run's pixels within the edge.
    const paper = commonest(rgb, W, x0, x1, y0, y1, counts);
    // Its rows: those mostly of its colour, outwards from the edge's (print takes some of each).
    const rowOut = (y: number) => {
      let n = 0;
      for (let c = x0, p = (y * W + x0) * 3; c < x1; c++, p += 3) if (dist(paper, rgb, p) <= SAME * 1.5) n++;
      return n >= 0.5 * run;
    };
    // Rows of print (a name in large type) may take most of a row: a few such rows do not end it.
    const skip = Math.max(1, Math.round(0.4 * bh));
    let top = y0;
    for (let miss = 0, y = y0 - 1; y >= Math.max(0, y0 - reach) && miss <= skip; y--)
      if (rowOut(y)) {
        top = y;
        miss = 0;
      } else miss++;
    let bottom = y1;
    for (let miss = 0, y = y1; y < Math.min(H, y1 + reach) && miss <= skip; y++)
      if (rowOut(y)) {
        bottom = y + 1;
        miss = 0;
      } else miss++;
    // Standing out beyond the reach above and below: an upright or a pack in front of the edge. Beyond
    // it on one side only: what is above the edge (packs, the wall) or below it, not the label, which
    // ends with the edge there.
    const pastTop = top === y0 - reach && top > 0 && rowOut(top - 1);
    const pastBottom = bottom === y1 + reach && bottom < H && rowOut(bottom);
    if (pastTop && pastBottom) continue;
    if (pastTop) top = y0;
    if (pastBottom) bottom = y1;
    const cut = pastTop || pastBottom;
    const lh = bottom - top;
    // A label's print must be readable at all: 1.5 % of the photo's height or more (and 2.5 % of its
    // width, above).
    if (lh < 0.5 * bh || lh < Math.max(4, H * 0.015) || run / lh < 0.8 || run / lh > 6) continue;
    boxes.push({ x0, y0: top, x1, y1: bottom, cut });
  }
  return boxes;
}
