import { darkComponents, type Component } from './glyphs.js';
import type { Box } from './ocr-types.js';
import type { PaddleOcr } from './paddle/paddle-ocr.js';
import { resampleRegion, type RawImage } from './paddle/raw-image.js';

/** The label's crop is scaled to about this many pixels tall: its price's digits some 40 px. */
const CROP_HEIGHT = 160;
/**
 * How sure the learned recognizer must be of each part: the units less so, as a lone narrow `1` is
 * its least sure reading (0.75–0.8 where it reads `59` beside it at 0.99), and they must read as
 * digits only.
 */
const SURE = { units: 0.6, cents: 0.8 };

const gh = (c: Component) => c.y1 - c.y0;
const gw = (c: Component) => c.x1 - c.x0;

/**
 * A price printed with raised cents (`$1⁵⁹`, `4⁹⁹ €`, the usual US shelf label): the whole units in the
 * label's tallest digits, the cents half as tall beside them, their tops level. Read as one line, the
 * learned recognizer gives `'1""` or `"2s9` (the small digits are a few pixels tall, and it expects one
 * baseline); read apart, each part is one line of its own size: `1` and `59`.
 *
 * The label's crop, scaled up, is split into dark glyphs (Otsu's threshold); the tallest is the price's
 * first digit, the digits of its height on its baseline are the units, and the glyphs right after them
 * whose tops are level with theirs and which end above their middle are the cents. Each part is read
 * by the learned recognizer; the price is kept only when the units read as 1 to 3 digits and the cents
 * as exactly two, both surely. Null otherwise: a price on one baseline is read by the label's own
 * reading, and this adds nothing there.
 */
export async function readRaisedCents(ocr: PaddleOcr, rgb: RawImage, box: Box): Promise<number | null> {
  const region = {
    x0: Math.max(0, Math.floor(box.x0)),
    y0: Math.max(0, Math.floor(box.y0)),
    x1: Math.min(rgb.width, Math.ceil(box.x1)),
    y1: Math.min(rgb.height, Math.ceil(box.y1)),
  };
  const [w, h] = [region.x1 - region.x0, region.y1 - region.y0];
  if (w < 8 || h < 8) return null;
  const scale = Math.min(8, Math.max(1, CROP_HEIGHT / h));
  const [cw, ch] = [Math.round(w * scale), Math.round(h * scale)];
  const crop = resampleRegion(rgb, region, cw, ch);
  const grey = new Uint8Array(cw * ch);
  for (let i = 0, p = 0; i < grey.length; i++, p += 3) grey[i] = (crop[p]! + crop[p + 1]! + crop[p + 2]!) / 3;
  const threshold = otsu(grey);
  const ink = new Uint8Array(grey.length);
  for (let i = 0; i < grey.length; i++) ink[i] = grey[i]! <= threshold ? 0 : 255;
  // Glyphs wholly inside the crop: what touches its border is the edge or the paper's rim.
  const components = darkComponents(ink, cw, ch, Math.max(4, Math.round(0.4 * scale * scale))).filter(
    (c) => c.x0 > 0 && c.y0 > 0 && c.x1 < cw && c.y1 < ch,
  );
  const digits = components
    .filter((c) => gh(c) >= ch * 0.12 && gh(c) <= ch * 0.85 && gw(c) <= gh(c) * 1.5 && c.area / (gw(c) * gh(c)) > 0.15)
    .sort((a, b) => gh(b) - gh(a));
  const anchor = digits[0];
  if (!anchor) return null;
  const ah = gh(anchor);
  const units = digits
    .filter((g) => gh(g) >= 0.75 * ah && Math.abs(g.y1 - anchor.y1) <= 0.2 * ah)
    .sort((a, b) => a.x0 - b.x0);
  const last = units.at(-1)!;
  const cents = components.filter(
    (g) =>
      gh(g) >= 0.25 * ah &&
      gh(g) <= 0.7 * ah &&
      Math.abs(g.y0 - anchor.y0) <= 0.3 * ah &&
      g.y1 <= anchor.y0 + 0.75 * ah &&
      g.x0 >= last.x1 - 2 &&
      g.x0 - last.x1 < 1.2 * ah,
  );
  // The cents' two digits (and the sign after them, `19€`) may have run together into one glyph where
  // the print is small: one glyph at least as wide as tall is taken as two (D388).
  const joined = cents.length === 1 && gw(cents[0]!) >= gh(cents[0]!);
  if (units.length > 3 || (cents.length < 2 && !joined)) return null;
  const around = (cs: Component[], pad: number): Box => ({
    x0: region.x0 + (Math.min(...cs.map((c) => c.x0)) - pad) / scale,
    y0: region.y0 + (Math.min(...cs.map((c) => c.y0)) - pad) / scale,
    x1: region.x0 + (Math.max(...cs.map((c) => c.x1)) + pad) / scale,
    y1: region.y0 + (Math.max(...cs.map((c) => c.y1)) + pad) / scale,
  });
  // A joined glyph much wider than two digits holds the sign too: its first two digits' width is read.
  const centsBox = around(cents, 0.15 * ah);
  if (joined && gw(cents[0]!) > 1.6 * gh(cents[0]!))
    centsBox.x1 = centsBox.x0 + (1.3 * gh(cents[0]!) + 0.3 * ah) / scale;
  const [whole, part] = await ocr.recognizeBoxes(rgb, [around(units, 0.2 * ah), centsBox]);
  if (!whole || !part || whole.confidence < SURE.units || part.confidence < SURE.cents) return null;
  // The units may read with the currency sign the label prints small before them; the cents with the
  // sign or ¢ printed after them.
  const u = /^[$£€]?(\d{1,3})$/.exec(whole.text.replace(/\s/g, ''));
  const c = /^(\d{2})[€¢cE]?$/.exec(part.text.replace(/\s/g, ''));
  if (!u || !c) return null;
  return (Number(u[1]) * 100 + Number(c[1])) / 100;
}

/** Otsu's threshold of a grey image: the level that best splits it into ink and paper. */
function otsu(grey: Uint8Array): number {
  const hist = new Array<number>(256).fill(0);
  for (const v of grey) hist[v]!++;
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * hist[i]!;
  let [sumBelow, below, best, threshold] = [0, 0, 0, 127];
  for (let t = 0; t < 256; t++) {
    below += hist[t]!;
    if (below === 0) continue;
    const above = grey.length - below;
    if (above === 0) break;
    sumBelow += t * hist[t]!;
    const between = below * above * (sumBelow / below - (sum - sumBelow) / above) ** 2;
    if (between > best) [best, threshold] = [between, t];
  }
  return threshold;
}
