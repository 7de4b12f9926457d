import sharp from 'sharp';
import { PSM } from 'tesseract.js';
import { indexCatalogue, tokens, type IndexedEntry } from '../../catalogue-matcher.js';
import type { CatalogueEntry, ProductBox, RecognizedProduct, RecognizeInput, Recognizer } from '../../recognizer.js';
import { readRegions, readShelf, type FoundBarcode } from './barcodes.js';
import { countPacks, packMask, placeInRow, shelfAbove } from './facings.js';
import { findPaper } from './label-finder.js';
import type { PaddleOcr } from './paddle/paddle-ocr.js';
import { readLabelInBox } from './paddle/paddle-tag-prices.js';
import { findTextLabels, type TextLabel } from './text-label-finder.js';
import { barRegions } from './bar-regions.js';
import { centreInside, cx, cy, h, overlapX, union, w } from './boxes.js';
import { labelsFromBars } from './bar-label-finder.js';
import { labelsOnShelfEdges } from './shelf-edge-labels.js';
import { colouredPaperBoxes } from './coloured-paper.js';
import { CLOSE_LOOK, FIRST_LOOK, readLabels, type LabelReading } from './label-reader.js';
import type { Box, OcrLine, OcrPool } from './ocr-pool.js';
import { decodePhoto, greenChannel, type GreyImage, type Photo } from './photo.js';
import { checkpoint } from './photo-stop.js';
import {
  parseLabelPrices,
  priceForEntry,
  samePrice,
  showsCurrencySign,
  showsExpectedPrice,
  type LabelPrice,
} from './price-parser.js';
import { readRaisedCents } from './raised-cents.js';
import {
  squash,
  containment,
  namesAWord,
  showsName,
  distinctName,
  brandAndOwnWord,
  showsOtherBrand,
  showsBrand,
  showsBrandWord,
} from './catalogue-naming.js';
import { readTagPrice } from './tag-price.js';
import { productRows, shelfRows } from './shelf-rows.js';
import { catalogueWords, facingRuns, inCatalogueSpelling } from './facing-reads.js';
import { count, mark, profileEnd, profileStart, profiling } from './stage-profile.js';

/** `currency`: the shelf's, for a label whose own price was not read (shelfCurrency). */
type Label = { box: Box; nameText: string; price: LabelPrice | null; lines: OcrLine[]; currency?: string };
type Entry = IndexedEntry;
/**
 * Where a label's product stands: its facings, its middle, the packs' extent when they were seen, and
 * the top of the space it stands in (the bottom of the shelf's labels above it), when known.
 */
type Placed = { units: number; centreX: number; extent?: Box | null; top?: number | null };

/**
 * The product on the photo, for drawing: from its label up to the shelf above (the labels above it),
 * as wide as the label and the packs counted on it. With no shelf above in the photo, the packs are
 * taken to stand about twice the label's height (the synthetic and real shelves' proportions). As
 * fractions of the photo (bounded to it later, boundBox).
 */
function productBox(label: Box, placed: Placed, width: number, height: number): ProductBox {
  const lh = label.y1 - label.y0;
  const top = Math.max(0, placed.top ?? label.y0 - 2.2 * lh);
  const x0 = Math.min(label.x0, placed.extent?.x0 ?? label.x0);
  const x1 = Math.max(label.x1, placed.extent?.x1 ?? label.x1);
  return { x: x0 / width, y: top / height, width: (x1 - x0) / width, height: (label.y1 - top) / height };
}

/**
 * The learned recognizer's look at a label: its crop scaled to this many pixels across. A shelf label
 * is three or more times wider than tall, so its price is still ~40 px tall at 320, and detection
 * costs half of 480's (the real tags' size), which read no more on the tuning sets.
 */
const LEARNED_LOOK_SIDE = 320;

/** How much of a label's offer a reading got: both prices beat one, one beats none. */
const completeness = (p: LabelPrice | null) => (p?.price != null ? 1 : 0) + (p?.discountedPrice != null ? 1 : 0);

/** A label's price read as a bare number (a tag's tallest row of digits): no offer, no currency shown. */
const barePrice = (value: number): LabelPrice => ({
  price: value,
  discountedPrice: null,
  onSale: false,
  currency: null,
  multiBuy: null,
});

/** What is left of a label's text once its prices and offer words are taken out: the product's name. */
const nameOf = (text: string) =>
  text
    .replace(/(?:[£$€¥])?\s?\d{1,4}[.,]\d{2}\s?(?:€)?|\b\d+\s*[ft][o0]r\b|\bWAS\b|\bNOW\b/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Bars were seen on the label's crop, whether or not they decode. */
const hasBars = (r: LabelReading) => r.barcodes.length + r.smallBarcodes.length > 0;

/**
 * A label under this many pixels tall prints its name some 8 px tall or less, under what either reader
 * reads: its packs' print is where its name is read (D387).
 */
const SMALL_LABEL = 64;

/**
 * The longest side the text detector sees when it looks for the packs' print: 1280 px (D383), or four
 * fifths of the photo's where that is more. A 2400 px photo's pack names of 10–12 px fell to 5–6 at
 * 1280, under what the detector sees (D391).
 */
const packPrintSide = (photo: Photo) => Math.max(1280, Math.round(0.8 * Math.max(photo.width, photo.height)));

/** The box's middle lies inside the label (with a quarter of its height to spare). */
const holds = (label: Box, b: Box) => centreInside(b, label, h(label) * 0.25);

/** The entry may be priced in `currency` (a label's): it is, or either is unknown. */
const pricedIn = (e: Entry, currency: string | null) => !currency || !e.entry.currency || e.entry.currency === currency;

/**
 * One shelf is priced in one currency. A catalogue spanning countries holds the same product once
 * per currency (the same brand and name), and a label whose price was not read would otherwise be
 * named as whichever came first: such labels take the shelf's currency. What each priced label says
 * of it: the currency of the entries its name and exact price fit, when they are all of one (the
 * same product may cost the same in two), else its price's sign. Signs alone were too few: yen
 * prices read as bare numbers by the learned look show none, and small `$` or `€` are often lost,
 * so a shelf whose names and prices fitted one currency took none. The shelf's currency is the one
 * two or more labels, and four in five of them, say.
 */
function shelfCurrency(labels: Label[], entries: Entry[]): string | null {
  const known = catalogueCurrencies(entries);
  // One currency or none in the catalogue: naming does not depend on it.
  if (known.size < 2) return null;
  const counts = new Map<string, number>();
  let said = 0;
  for (const label of labels) {
    const shown = label.price?.price ?? label.price?.discountedPrice ?? null;
    if (shown === null) continue;
    const text = tokens(label.nameText);
    const squashed = squash(label.nameText);
    const fitting = new Set<string>();
    for (const e of entries)
      if (
        e.entry.currency &&
        samePrice(shown, e.entry.expectedPrice) &&
        ((e.brand.size > 0 && containment(text, e.brand) === 1) ||
          namesAWord(text, e) ||
          containment(text, e.tokens, squashed) >= 0.5)
      )
        fitting.add(e.entry.currency);
    const sign = label.price?.currency;
    const says = fitting.size === 1 ? [...fitting][0]! : sign && known.has(sign) ? sign : null;
    if (!says) continue;
    said++;
    counts.set(says, (counts.get(says) ?? 0) + 1);
  }
  const [top] = [...counts].sort((a, b) => b[1] - a[1]);
  if (top && top[1] >= 2 && top[1] >= 0.8 * said) return top[0];
  // One label says it and none another (in a wide shot the rest name nothing and their signs are
  // lost): the shelf's when two or more other prices read have its form and none has another's,
  // cents where the currency has them ($1.59, 99¢), whole amounts of ten or more where it has none
  // (¥198). A yen shelf shows no cents; a dollar shelf mostly does.
  if (!top || counts.size > 1) return null;
  const cents = minorDigits(top[0]) > 0;
  const prices = labels.map((l) => l.price?.price ?? null).filter((p): p is number => p !== null);
  const fits = prices.filter((p) => (cents ? !Number.isInteger(p) : Number.isInteger(p) && p >= 10)).length;
  const against = cents ? 0 : prices.filter((p) => !Number.isInteger(p)).length;
  return fits >= 3 && against === 0 ? top[0] : null;
}

/** Digits after the point in the currency's amounts: 2 for dollars, 0 for yen. */
function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

const currenciesOf = new WeakMap<Entry[], Set<string>>();
/** The currencies the catalogue's entries are priced in, worked out once a catalogue. */
function catalogueCurrencies(entries: Entry[]): Set<string> {
  let seen = currenciesOf.get(entries);
  if (!seen)
    currenciesOf.set(entries, (seen = new Set(entries.map((e) => e.entry.currency).filter((c): c is string => !!c))));
  return seen;
}

/**
 * A product named without a price (its pack's print), and a label near it whose price was read but
 * not its name: where that price is exactly the named entry's expected price, and no other unpriced
 * product near the label has that price, the label is the product's (D382). The label gives its price
 * and is no product of its own (it named nothing). Near: the label's middle within the product's
 * columns (a facing either side) and not above the product's top. `priced` hears of each pair: the
 * product stands on that label's shelf edge (D398).
 */
export function pricedByUnnamedLabels(
  products: RecognizedProduct[],
  bySku: Map<string, CatalogueEntry>,
  priced: (product: RecognizedProduct, label: RecognizedProduct) => void = () => {},
): RecognizedProduct[] {
  const taken = new Set<RecognizedProduct>();
  for (const u of products) {
    if (u.sku !== null || u.price === null || !u.box) continue;
    const [ux, uy] = [u.box.x + u.box.width / 2, u.box.y + u.box.height / 2];
    const fits = products.filter(
      (p) =>
        p.sku !== null &&
        // Unpriced, or priced only with its size ("13.5 fl oz" read as 13.5, which the product would
        // report as unknown: priceForEntry, D389).
        priceForEntry(p, bySku.get(p.sku) ?? null).price === null &&
        !taken.has(p) &&
        p.box != null &&
        ux >= p.box.x - p.box.width &&
        ux <= p.box.x + 2 * p.box.width &&
        uy >= p.box.y &&
        showsExpectedPrice(u.price, bySku.get(p.sku)?.expectedPrice ?? null),
    );
    // One product: its print seen twice (two facings, or its name and its window) is still one, and
    // its first sighting takes the price (inRows then drops the other).
    if (new Set(fits.map((p) => p.sku)).size !== 1) continue;
    const p = fits[0]!;
    Object.assign(p, {
      price: u.price,
      discountedPrice: u.discountedPrice,
      onSale: u.onSale,
      currency: u.currency ?? p.currency,
    });
    taken.add(p);
    taken.add(u);
    priced(p, u);
  }
  return products.filter((p) => !(p.sku === null && taken.has(p)));
}

export type LocalRecognizerOptions = {
  ocr: OcrPool;
  barcodeTiles?: number;
  /** The learned text detector, a second source of labels (text-label-finder.ts); none: paper only. */
  text?: () => Promise<PaddleOcr>;
};

/**
 * The offline recognizer. A shelf label carries the product's name and price (its barcode is
 * usually too small to decode in a wide photo), so labels are the backbone: label paper is found
 * by its colour, each label is OCR'd enlarged (see label-reader.ts), the catalogue turns its name
 * into a SKU (a decoded barcode overrides), the packs standing above it count the facings, and
 * label rows and columns give the position on the shelf. A photo with no label paper in it is
 * read whole instead, labels assembled from price lines and the lines above them.
 */
export class LocalRecognizer implements Recognizer {
  readonly name = 'local';
  /** decodePhoto, the first thing read of every photo, refuses one that does not decode (D282). */
  readonly decodesEveryPhoto = true;
  /** The label each product was made from, for placing products in shelf rows once all are known. */
  private readonly labelBoxes = new WeakMap<RecognizedProduct, Box>();

  constructor(private readonly opts: LocalRecognizerOptions) {}

  async recognize(input: RecognizeInput): Promise<RecognizedProduct[]> {
    profileStart();
    try {
      return await this.recognizePhoto(input);
    } finally {
      profileEnd({ width: input.width, height: input.height });
    }
  }

  private async recognizePhoto(input: RecognizeInput): Promise<RecognizedProduct[]> {
    // checkpoint(): a photo the pool has stopped (photo-stop.ts) is left off between any two stages.
    // mark(): the opt-in stage profile (stage-profile.ts), nothing when it is off.
    const photo = await decodePhoto(input.image);
    mark('decode');
    checkpoint();
    const { paper, onStrips } = await findPaper(photo);
    mark('paper');
    checkpoint();
    const grey = greenChannel(photo);
    // Labels the paper finder missed: from their barcodes first (any paper colour, a few ms), then by
    // their print where bars are still unexplained (the text detector, ~0.2 s).
    const bars = barRegions(grey.data, grey.width, grey.height, { minCells: 3 });
    checkpoint();
    const byBars = await labelsFromBars(
      photo,
      bars.filter((b) => ![...paper, ...onStrips].some((k) => holds(k, b))),
    );
    mark('bars');
    checkpoint();
    const found = [...paper, ...byBars];
    // Labels on the shelf edges that neither found (white paper meeting a pale wall above it, dark
    // labels whose symbol was not seen): a few ms on the quarter-size copy (D379). An edge's box that
    // may be cut short (a label taller than its edge) gives way to the detector's print there.
    // White labels on a yellow edge (findPaper's onStrips) are such labels too, found whole.
    const known = [...found, ...onStrips];
    const edges = [
      ...onStrips.map((b) => ({ ...b, cut: false })),
      ...(await labelsOnShelfEdges(photo)).filter(
        (e) => !known.some((k) => centreInside(e, k, 0) || centreInside(k, e, 0)),
      ),
    ];
    const whole = edges.filter((e) => !e.cut);
    mark('edges');
    checkpoint();
    const byText = this.opts.text
      ? await findTextLabels(await this.opts.text(), photo, bars, [...found, ...whole])
      : [];
    mark('textDetect');
    const onEdges = [
      ...whole,
      ...edges.filter((e) => e.cut && !byText.some((k) => centreInside(e, k, 0) || centreInside(k, e, 0))),
    ];
    count('paper', paper.length);
    count('byBars', byBars.length);
    count('byText', byText.length);
    count('onEdges', onEdges.length);
    checkpoint();
    const boxes = [...found, ...onEdges, ...byText];
    // No label found (an unusual store, a close-up): read the whole photo instead.
    if (boxes.length === 0) return this.recognizeWholeImage(input);
    const entries = this.entries(input.catalogue);
    // Profiled, the two run in turn, so each one's time is its own.
    const packing = profiling() ? null : packMask(photo);
    const first = await this.readLabels(photo, grey, boxes, entries, found.length + onEdges.length, new Set(onEdges));
    const packs = await (packing ?? packMask(photo));
    mark('packs');
    checkpoint();
    const read = await this.darkLabels(photo, grey, first, paper.length, entries);
    const { readings } = read;
    const labels = this.withShelfCurrency(read.labels, entries);
    mark('darkLabels');
    checkpoint();
    const barcodes = await this.readBarcodes(grey, labels, readings, entries);
    mark('barcodes');
    checkpoint();
    await this.colouredLabels(photo, grey, labels, barcodes, entries);
    mark('colouredLabels');
    checkpoint();
    // Shelf positions are given once every product is known (inRows).
    const products: RecognizedProduct[] = [];
    const shelfBoxes = labels.map((l) => l.box);
    const texts = new Set<Box>(byText);
    // Print named by its facings read together (readFacingsTogether), which one reading alone does not name.
    let facings = new Set<Label>();
    const printRead = this.printOverLabels(
      labels.filter((l) => texts.has(l.box)),
      labels,
      texts,
      entries,
      grey.height,
    );
    // Most of the photo's labels read as no name (a wide shot: a label's name a few pixels tall), or
    // two or more whose price was read do: the packs' own print, larger, names their products (D378,
    // D383: a pack's white face taken for paper reads as its name, so a wide shot's paper was not
    // mostly nameless). Not without a catalogue to name them from: every label reads as no name
    // there, and the pass would cost ~0.3 s for nothing.
    if (this.opts.text && entries.length > 0) {
      const paperLabels = labels.filter((l) => !texts.has(l.box));
      const unnamed = paperLabels.filter((l) => (this.bestEntry(l, entries)?.score ?? 0) < 0.5);
      const pricedUnnamed = unnamed.filter((l) => l.price !== null).length;
      // Or most nameless ones are under SMALL_LABEL tall, whatever the named paper (pack faces) (D387).
      const small = unnamed.filter((l) => h(l.box) < SMALL_LABEL).length;
      if (
        (unnamed.length >= 3 && (unnamed.length >= 0.5 * paperLabels.length || small >= 0.5 * unnamed.length)) ||
        pricedUnnamed >= 2
      ) {
        count('packPrintLooks');
        // The detector's own finds that read as nothing (no name, no price) are print the learned
        // recognizer has not read yet: not labels to keep the pass's print out of.
        const prints = await this.packPrint(
          photo,
          labels.filter((l) => !texts.has(l.box) || l.price !== null || /[\p{L}\p{N}]{2}/u.test(l.nameText)),
        );
        mark('packPrint');
        // The print too is read in the shelf's currency, which it may settle itself (D392).
        this.withShelfCurrency([...labels, ...prints], entries);
        facings = this.readFacingsTogether(prints, entries);
        const given = this.printOverLabels(prints, labels, texts, entries, grey.height);
        // Print no label took that names its entry as surely as the detector's print on the labels'
        // own pass must (below): a pack whose label was not found. It goes last, so a label naming the
        // same entry gives the product (D379).
        for (const print of prints)
          if (!given.has(print) && (facings.has(print) || this.printNames(print, entries))) {
            labels.push(print);
            texts.add(print.box);
          }
      }
    }
    // Print over labels has named some labels since: what they say of the shelf's currency.
    this.withShelfCurrency(labels, entries);
    for (const label of labels) {
      if (printRead.has(label)) continue;
      const place = placeInRow(label.box, shelfBoxes, grey.width);
      const { units, extent } = countPacks(packs, label.box, place);
      const own = this.barcodeFor(label, barcodes, labels);
      const top = place.above;
      const product = this.toProduct(
        label,
        entries,
        own ? [own] : [],
        null,
        {
          units,
          centreX: (label.box.x0 + Math.max(label.box.x1, extent?.x1 ?? 0)) / 2,
          extent,
          top,
        },
        grey.width,
        grey.height,
      );
      // Paper with neither a price nor a known name on it is not a shelf label.
      if (!product.sku && !label.price) continue;
      // A label whose print names one entry outright (its brand and every word of its name) while the
      // symbol nearest it decodes as another: a crop over two labels, or the symbol of a neighbour
      // whose own label was not found. The symbol's product is on the shelf, and so is the named one.
      // (Looked for only where the label was named at all: an unnamed one cannot name two.)
      const printed = own?.gtin && product.sku !== null ? this.bestEntry(label, entries) : null;
      if (
        printed &&
        printed.score >= 1 &&
        printed.entry.sku !== product.sku &&
        !products.some((p) => p.sku === printed.entry.sku)
      )
        products.push(
          this.toProduct(
            label,
            entries,
            [],
            null,
            { units, centreX: cx(label.box), extent, top },
            grey.width,
            grey.height,
          ),
        );
      // Print found by the text detector may be a pack's (its brand and name, no price) above its own
      // label: one product, the label's. Without a price, it must name its entry outright.
      if (texts.has(label.box)) {
        if (!label.price && !facings.has(label) && !this.printNames(label, entries)) continue;
        const same = products.findIndex((p) => p.sku !== null && p.sku === product.sku);
        if (same >= 0) {
          if (products[same]!.price === null && product.price !== null) products[same] = product;
          continue;
        }
        count('byTextProducts');
      }
      products.push(product);
    }
    const bySku = new Map(entries.map((e) => [e.entry.sku, e.entry]));
    const all = this.inRows(
      pricedByUnnamedLabels(
        [...products, ...this.unlabelled(barcodes, labels, products, entries, grey.width, grey.height)],
        bySku,
        // Its row is the label's: the print that named it may stand high above (D398).
        (product, label) => {
          const box = this.labelBoxes.get(label);
          if (box) this.labelBoxes.set(product, box);
        },
      ),
    );
    // Each price as its entry says it can be read (a lost decimal point, a size read as a price),
    // once every product is placed: a sighting's price decides which sighting stands for a product
    // (inRows), and a size read as a price still marks the product's own label.
    return all.map((p) => (p.sku ? { ...p, ...priceForEntry(p, bySku.get(p.sku) ?? null) } : p));
  }

  /**
   * Print without a price that is a product on its own (a pack's): it names one entry (namesOne), by
   * three quarters of its words or more, or by its brand and its whole name (a pack prints no size in
   * large type: "SHOPWISE Bathroom Mousse" is 3 of 5 words of Shopwise Bathroom Mousse 500ml), or by a
   * whole name no other entry has (distinctName, D379) however many of its words that is (D396: "Rubber
   * Gloves Medium 3 pes" is 3 of 5 words of Selton Rubber Gloves Medium 3 pcs, which bestEntry takes
   * as its token share, 0.6, without looking for the name only it has).
   */
  private printNames(print: Label, entries: Entry[], best = this.bestEntry(print, entries)): boolean {
    if (!best || !this.namesOne(print, entries, best)) return false;
    if (best.score >= 0.75) return true;
    const text = tokens(print.nameText);
    const squashed = squash(print.nameText);
    return (
      (showsBrand(text, squashed, best) && showsName(text, squashed, best)) ||
      this.distinctlyNamed(print, entries, best)
    );
  }

  /**
   * The text shows a whole name no other entry of its currency has, that of `best`, and no word of
   * another brand (distinctName, D379), at whatever share of the entry's words.
   */
  private distinctlyNamed(l: Label, entries: Entry[], best: Entry): boolean {
    const text = tokens(l.nameText);
    const squashed = squash(l.nameText);
    const distinct = distinctName(text, squashed, this.inItsCurrency(l, entries));
    return distinct?.entry === best.entry && !showsOtherBrand(text, squashed, distinct, entries);
  }

  /** The entries priced in the label's currency (labelCurrency). */
  private inItsCurrency(l: Label, entries: Entry[]): Entry[] {
    const currency = this.labelCurrency(l, entries);
    return entries.filter((e) => pricedIn(e, currency));
  }

  /**
   * Print that names one entry, clearly before any other: print naming a product line many brands
   * sell ("Salted Peanuts"), or one the catalogue holds in two sizes ("Heather Kitchen Spaghetti",
   * 500 g and 1 kg), names none.
   */
  private namesOne(l: Label, entries: Entry[], best = this.bestEntry(l, entries)): boolean {
    if (!best || best.score < 0.5) return false;
    const next = this.bestEntry(
      l,
      entries.filter((e) => e.entry.sku !== best.entry.sku),
    );
    if ((next?.score ?? 0) > best.score - 0.1) return false;
    // Without its brand, print showing a name other entries have too names none of them: the
    // token share favours the entry with the shortest brand ("Salted Peanuts", D379).
    const text = tokens(l.nameText);
    const squashed = squash(l.nameText);
    const currency = this.labelCurrency(l, entries);
    // The price shown settles it between sizes of one product: exactly the best entry's expected price,
    // and not another's ("Spaghetti" over ¥528 is the 1 kg pack, not the 500 g at ¥298).
    const shown = l.price?.price ?? null;
    const priced = (e: Entry) => samePrice(shown, e.entry.expectedPrice);
    const settled = priced(best);
    const bestBrandWord = showsBrandWord(text, best);
    return (
      showsBrand(text, squashed, best) ||
      !entries.some(
        (e) =>
          e.entry.sku !== best.entry.sku &&
          pricedIn(e, currency) &&
          !(settled && !priced(e)) &&
          // A word of the best entry's brand read beside the name, and none of this one's: not this one
          // ("GINGER BEER" over "EVERYDAY BARS" is Everyday Basics', not Fable Fizz's; D386).
          !(bestBrandWord && !showsBrandWord(text, e)) &&
          showsName(text, squashed, e),
      )
    );
  }

  /**
   * Print on a pack that names its product in part (the text detector's find, unpriced: a brand, or
   * a name without its brand) over a label whose own print names nothing (too small to read in a
   * wide shot, D377): the label is named by both texts together, and the print gives no product of
   * its own. The label is the nearest one below the print (within one and a half of the print's
   * heights, or an eighth of the photo) whose columns meet the print's, and the two texts together
   * must name one entry clearly before the next (print that names a line many brands sell names
   * none). Returns the prints so given to a label.
   */
  private printOverLabels(
    prints: Label[],
    labels: Label[],
    texts: Set<Box>,
    entries: Entry[],
    height: number,
  ): Set<Label> {
    const given = new Set<Label>();
    const named = (l: Label) => (this.bestEntry(l, entries)?.score ?? 0) >= 0.5;
    const namesOne = (l: Label) => this.namesOne(l, entries);
    // Paper, or the detector's find that holds a price and names nothing: a label, its name too small
    // to read.
    const isLabel = (l: Label) => !texts.has(l.box) || (l.price !== null && !named(l));
    for (const print of prints) {
      // Print that names its entry only with the label's price beside it (a name the catalogue holds in two
      // sizes) is tried too: the two texts together must still name one entry.
      if (print.price || (this.bestEntry(print, entries)?.score ?? 0) < 0.25) continue;
      const p = print.box;
      const below = labels
        .filter(
          (l) =>
            isLabel(l) &&
            !given.has(l) &&
            l.box.y0 >= p.y1 - h(p) * 0.25 &&
            l.box.y0 - p.y1 <= Math.max(1.5 * h(p), 0.35 * height) &&
            overlapX(l.box, { ...p, x0: p.x0 - w(p) * 0.25, x1: p.x1 + w(p) * 0.25 }) > 0,
        )
        .sort((a, b) => a.box.y0 - b.box.y0 || Math.abs(cx(a.box) - cx(p)) - Math.abs(cx(b.box) - cx(p)))[0];
      if (!below || named(below)) continue;
      // The print may stand anywhere on its pack's face, up to a shelf's height above the label: the
      // label is its pack's only where no other label's row lies between them (a shelf edge).
      const near = { ...p, x0: p.x0 - 2 * w(p), x1: p.x1 + 2 * w(p) };
      if (
        below.box.y0 - p.y1 > Math.max(1.5 * h(p), 0.12 * height) &&
        labels.some(
          (l) => l !== below && isLabel(l) && cy(l.box) > p.y1 && l.box.y1 < below.box.y0 && overlapX(l.box, near) > 0,
        )
      )
        continue;
      let both = `${print.nameText} ${below.nameText}`.trim();
      if (!namesOne({ ...below, nameText: both })) {
        const spelt = inCatalogueSpelling(both, catalogueWords(entries));
        if (!namesOne({ ...below, nameText: spelt })) continue;
        both = spelt;
        count('printOverLabelSpelt');
      }
      below.nameText = both;
      given.add(print);
      count('printOverLabel');
    }
    return given;
  }

  /**
   * The print on the photo's packs, where the labels' own could not be read: the text detector over
   * the whole photo at packPrintSide (~0.35 s at 1280 px), its groups of lines outside the labels
   * read by the learned recognizer (~7 ms a line). Each group is a text to name the label below it,
   * never a product. At the label finder's 960 px, a 1440 px photo's pack names of 8–10 px fell under what
   * the detector sees (D383).
   */
  private async packPrint(photo: Photo, labels: Label[]): Promise<Label[]> {
    // Outside the labels; paper far taller than the photo's labels is a pack's face taken for paper,
    // whose print is what is looked for.
    const heights = labels.map((l) => h(l.box)).sort((a, b) => a - b);
    const tall = 2 * heights[Math.floor(heights.length / 2)]!;
    const groups = (await findTextLabels(await this.opts.text!(), photo, [], [], packPrintSide(photo))).filter(
      (g) => !labels.some((l) => h(l.box) <= tall && centreInside(g, l.box, 0)),
    );
    const read = await this.learnedLines(
      photo,
      groups.map((g) => g.lines),
    );
    return groups.map((g, i) => ({ box: g, nameText: nameOf(read[i]!.replace(/\n/g, ' ')), price: null, lines: [] }));
  }

  /**
   * Print on several facings of one pack, misread differently on each (D394): each reading that names
   * nothing is put in the catalogue's spelling (inCatalogueSpelling), and facings side by side whose
   * readings so spelt name one entry first (facingRuns) are read together. Where all their words
   * name that entry, they become each one's text, and the print is taken as that product's as print
   * naming it outright is (printNames). Two facings or more agreeing is what lets less than that name
   * it: the entry's whole brand and a word of its name no other entry of the brand has (D381), or a
   * whole name only it has (D379), which one pack's print gives only to the label under it.
   */
  private readFacingsTogether(prints: Label[], entries: Entry[]): Set<Label> {
    const read = new Set<Label>();
    const words = catalogueWords(entries);
    const candidates = prints
      .filter((p) => !p.price && !this.printNames(p, entries))
      .map((print) => {
        const spelt = { ...print, nameText: inCatalogueSpelling(print.nameText, words) };
        return { print, spelt, best: this.bestEntry(spelt, entries) };
      })
      .filter((c) => (c.best?.score ?? 0) >= 0.25);
    const runs = facingRuns(
      candidates,
      (c) => c.print.box,
      (a, b) => a.best!.entry.sku === b.best!.entry.sku,
    );
    for (const run of runs) {
      const together = { ...run[0]!.spelt, nameText: run.map((c) => c.spelt.nameText).join(' ') };
      const best = this.bestEntry(together, entries);
      if (best?.entry.sku !== run[0]!.best!.entry.sku) continue;
      // Beside printNames, which asks namesOne's margin over the next entry too, what two facings or
      // more may name by without it (D394).
      const own = brandAndOwnWord(
        tokens(together.nameText),
        squash(together.nameText),
        this.inItsCurrency(together, entries),
      );
      const named =
        this.printNames(together, entries, best) ||
        own?.entry === best.entry ||
        this.distinctlyNamed(together, entries, best);
      if (!named) continue;
      for (const c of run) {
        c.print.nameText = together.nameText;
        read.add(c.print);
      }
      count('facingsReadTogether', run.length);
    }
    return read;
  }

  /**
   * Shelf positions again, from the rows of the labels that gave a product. The rows taken before
   * (to place each product while it was made) counted every box read as a label, a pack's window and
   * print on a pack among them: such boxes made rows of their own between the shelf edges, and
   * a three-shelf photo's top shelf came out `middle` (the second generator's photos: 0.51 of their
   * positions right).
   */
  private inRows(all: RecognizedProduct[]): RecognizedProduct[] {
    // A product named without a price where another label of the photo shows the same product priced
    // is that product seen again: its name on a pack's window or print, above its own label. Kept, it
    // stood first for its product with no price, on the pack's row, with the pack's count.
    const priced = new Set(all.filter((p) => p.sku !== null && p.price !== null).map((p) => p.sku));
    // Named and unpriced more than once (a pack's print on each of its facings, where its label was
    // not read): one product, the first sighting (paper before print), with the most facings any
    // sighting counted (D354).
    const unpriced = new Map<string, RecognizedProduct>();
    for (const p of all)
      if (p.sku !== null && p.price === null && !priced.has(p.sku)) {
        const first = unpriced.get(p.sku);
        if (first) first.units = Math.max(first.units, p.units);
        else unpriced.set(p.sku, p);
      }
    const products = all.filter((p) => p.sku === null || p.price !== null || unpriced.get(p.sku) === p);
    const labelled = products.filter((p) => this.labelBoxes.has(p));
    const rows = productRows(labelled, (p) => this.labelBoxes.get(p)!);
    return products.map((p) => (rows.has(p) ? { ...p, shelfPosition: rows.get(p)! } : p));
  }

  /**
   * Dark labels (light print on navy, green or maroon paper) carry their barcode on a white patch,
   * and that patch is what the paper finder sees: read, it shows neither a name nor a price. Such
   * a blank patch is taken for a symbol and its label found around it as labelsFromBars finds one
   * (the patch's surroundings followed outwards), then read. Paid for only where paper read blank.
   */
  private async darkLabels(
    photo: Photo,
    grey: GreyImage,
    read: { labels: Label[]; readings: LabelReading[] },
    onPaper: number,
    entries: Entry[],
  ): Promise<{ labels: Label[]; readings: LabelReading[] }> {
    const blank = read.labels
      .map((label, i) => ({ label, i }))
      .filter(
        ({ label, i }) =>
          i < onPaper &&
          !label.price &&
          (this.bestEntry(label, entries)?.score ?? 0) < 0.5 &&
          // A symbol's patch: bars seen on it, or a symbol's shape (wide, and short beside the photo;
          // tilted bars may not be seen as bars). Larger blank paper is bare wall or a pack.
          (hasBars(read.readings[i]!) || (w(label.box) >= 2 * h(label.box) && h(label.box) <= photo.height * 0.08)),
      );
    if (blank.length === 0) return read;
    const blankLabels = new Set(blank.map((b) => b.label));
    const kept = read.labels.filter((l) => !blankLabels.has(l));
    // A patch is a good part of its label (a third of its width, a third of its height or more):
    // a fill that grows further is a pack or the shelf, not a label.
    const around = (
      await labelsFromBars(
        photo,
        blank.map((b) => b.label.box),
        { width: 3.5, height: 4 },
      )
    ).filter((box) => !kept.some((l) => centreInside(l.box, box, 0) || centreInside(box, l.box, 0)));
    if (around.length === 0) return read;
    const again = await this.readLabels(photo, grey, around, entries, around.length);
    const covered = (l: Label) => around.some((box) => centreInside(l.box, box, h(l.box) * 0.25));
    const keep = read.labels.map((l, i) => ({ l, i })).filter(({ l }) => !blankLabels.has(l) || !covered(l));
    return {
      labels: [...keep.map(({ l }) => l), ...again.labels],
      readings: [...keep.map(({ i }) => read.readings[i]!), ...again.readings],
    };
  }

  /**
   * The shelf's currency (shelfCurrency) given to its labels: a label without one takes it, and a
   * label whose sign says another is named in the shelf's, when that names an entry as well or
   * better: its sign misread (`€2.19` read `£2.19` by the first look on a shelf of euro prices),
   * which otherwise named a same-named product of another brand priced in pounds, or nothing.
   */
  private withShelfCurrency(labels: Label[], entries: Entry[]): Label[] {
    const shelf = shelfCurrency(labels, entries) ?? this.namedCurrency(labels, entries);
    if (!shelf) return labels;
    for (const label of labels) {
      if (!label.price?.currency) {
        label.currency = shelf;
        continue;
      }
      if (label.price.currency === shelf || !catalogueCurrencies(entries).has(label.price.currency)) continue;
      const own = this.bestEntry(label, entries)?.score ?? 0;
      const price = { ...label.price, currency: shelf };
      if ((this.bestEntry({ ...label, price }, entries)?.score ?? 0) >= own) label.price = price;
    }
    return labels;
  }

  /**
   * The shelf's currency from what its labels and packs' print name, where no price read says it: the
   * one currency of three or more entries named outright (printNames), none of another (D392). A wide
   * shot whose prices are all unread still sells in one currency, and a catalogue spanning countries
   * holds some products in two ("Evwick Diet Cola", 1.5 L in dollars and 2 L in yen): the shelf's
   * currency tells which is there.
   */
  private namedCurrency(labels: Label[], entries: Entry[]): string | null {
    if (catalogueCurrencies(entries).size < 2) return null;
    const named = new Map<string, string>();
    for (const label of labels) {
      if (label.price !== null) continue;
      const best = this.bestEntry(label, entries);
      if (best?.entry.currency && this.printNames(label, entries, best)) named.set(best.entry.sku, best.entry.currency);
    }
    const currencies = new Set(named.values());
    return named.size >= 3 && currencies.size === 1 ? [...currencies][0]! : null;
  }

  /**
   * Promotion labels printed white on red under a white strip ("SAVE 19%", "MIX & MATCH"), the name
   * and prices on the red: the paper finder sees the strip or the symbol's white patch, the text
   * detector pieces of print, and a crop of two papers, turned over whole or not at all, leaves half
   * its print light on dark; tesseract reads junk where the name is. So where a label that every
   * reading and its barcode left naming nothing lies on a label-shaped region of coloured dark paper
   * (colouredPaperBoxes), that region alone is read once more: one paper, turned over whole by its
   * median as every crop is, on a sheet of its own. The reading is taken only where it names an
   * entry that no other label of the photo already names with a price; its price too, when it reads
   * more of it. The label keeps its box. Turning every crop paper by paper in the first reading
   * (D325) lost recall on sets it was not tuned on; this costs a photo whose labels all name
   * something nothing, one without such paper a pass over its quarter-size copy, and touches no
   * other label's reading (D340).
   */
  private async colouredLabels(
    photo: Photo,
    grey: GreyImage,
    labels: Label[],
    barcodes: FoundBarcode[],
    entries: Entry[],
  ): Promise<void> {
    if (entries.length === 0) return;
    const gtins = new Set(entries.map((e) => e.gtin).filter(Boolean));
    const best = labels.map((label) => this.naming(label, barcodes, labels, entries, gtins));
    if (best.every((b) => b.named)) return;
    const regions = await colouredPaperBoxes(photo);
    mark('colouredPaper');
    // Each region read once, for the first unnamed label on it.
    const onRegion = regions
      .map((region) => ({
        region,
        i: labels.findIndex(
          (l, i) =>
            !best[i]!.named && (centreInside(l.box, region, h(region) * 0.25) || centreInside(region, l.box, 0)),
        ),
      }))
      .filter(({ i }) => i >= 0);
    if (onRegion.length === 0) return;
    count('colouredCrops', onRegion.length);
    const read = await readLabels(
      this.opts.ocr,
      grey,
      onRegion.map(({ region }) => region),
    );
    // Entries already found with a price: a reading of the same entry here is a second sighting.
    const namedSkus = new Set(
      best.filter((b, i) => b.named && b.entry && labels[i]!.price !== null).map((b) => b.entry!.entry.sku),
    );
    onRegion.forEach(({ i }, k) => {
      const label = labels[i]!;
      const again: Label = {
        ...this.asLabel(read[k]!),
        currency: label.currency,
      };
      const entry = this.bestEntry(again, entries);
      if (!entry || entry.score < 0.5 || namedSkus.has(entry.entry.sku)) return;
      namedSkus.add(entry.entry.sku);
      count('colouredGain');
      labels[i] = {
        ...label,
        nameText: again.nameText,
        price: completeness(again.price) > completeness(label.price) ? again.price : label.price,
      };
    });
  }

  /**
   * What a label names: the entry its symbol's GTIN is (any decoded symbol names it when the catalogue
   * holds no GTINs), else the entry its print names best, named at a score of 0.5 or more. `gtins`: the
   * catalogue's, worked out once by the caller.
   */
  private naming(
    label: Label,
    barcodes: FoundBarcode[],
    labels: Label[],
    entries: Entry[],
    gtins: ReadonlySet<string | null>,
  ): { entry: Entry | null; named: boolean } {
    const gtin = this.barcodeFor(label, barcodes, labels)?.gtin;
    if (gtin && (gtins.size === 0 || gtins.has(gtin)))
      return { entry: entries.find((e) => e.gtin === gtin) ?? null, named: true };
    const entry = this.bestEntry(label, entries);
    return { entry, named: (entry?.score ?? 0) >= 0.5 };
  }

  /**
   * The labels' barcodes, looked for as closely as the labels need. Every symbol wide enough for the
   * usual decode is decoded; then, only for labels whose text and barcode still name nothing, their
   * small symbols (down to about a pixel a module) closer; and if labels cannot be read at all (a
   * third or more still name nothing), the whole photo, where a symbol outside the label's paper or
   * a label the finder cut short is found too. On photos whose labels read, this costs nothing.
   */
  private async readBarcodes(
    grey: GreyImage,
    labels: Label[],
    readings: LabelReading[],
    entries: Entry[],
  ): Promise<FoundBarcode[]> {
    const barcodes = await readRegions(
      grey,
      readings.flatMap((r) => r.barcodes),
    );
    const gtins = new Set(entries.map((e) => e.gtin).filter(Boolean));
    const unnamed = () =>
      labels
        .map((label, i) => ({ label, reading: readings[i]! }))
        .filter(({ label }) => !this.naming(label, barcodes, labels, entries, gtins).named);
    const small = unnamed().flatMap(({ reading }) => reading.smallBarcodes);
    if (small.length > 0) barcodes.push(...(await readRegions(grey, small, true)));
    const left = unnamed();
    if (left.length > 0 && left.length >= labels.length / 3)
      barcodes.push(...(await readShelf(grey, grey.width, grey.height, 0)));
    return barcodes;
  }

  /**
   * Catalogue items whose barcode was decoded where no label was found (a label style the paper
   * finder does not see, a symbol on a hanging tag): a decoded GTIN of the catalogue is on the shelf.
   */
  private unlabelled(
    barcodes: FoundBarcode[],
    labels: Label[],
    products: RecognizedProduct[],
    entries: Entry[],
    width: number,
    height: number,
  ): RecognizedProduct[] {
    const seen = new Set(products.map((p) => p.sku).filter(Boolean));
    const out: RecognizedProduct[] = [];
    const shelfBoxes = labels.map((l) => l.box);
    for (const barcode of barcodes) {
      const entry = barcode.gtin ? entries.find((e) => e.gtin === barcode.gtin) : undefined;
      if (!entry || seen.has(entry.entry.sku)) continue;
      if (labels.some((l) => this.barcodeFor(l, [barcode]))) continue;
      seen.add(entry.entry.sku);
      // Its row among the rows of the labels that gave products: inRows.
      const label: Label = { box: barcode.box, nameText: '', price: null, lines: [] };
      out.push(
        this.toProduct(
          label,
          entries,
          [barcode],
          null,
          { units: 1, centreX: cx(barcode.box), top: shelfAbove(label.box, shelfBoxes) },
          width,
          height,
        ),
      );
    }
    return out;
  }

  /**
   * The labels, read at the usual size, then once more, closer, those whose reading names nothing
   * in the catalogue, shows no price, or announces an offer without its second price. Each part
   * of a label is taken from the reading that makes more of it.
   */
  private async readLabels(
    photo: Photo,
    grey: GreyImage,
    boxes: Box[],
    entries: Entry[],
    onPaper: number,
    onEdges: ReadonlySet<Box> = new Set(),
  ): Promise<{ labels: Label[]; readings: LabelReading[] }> {
    // Paper's and bars' labels on one sheet, the edges' on a second, the text detector's on a third.
    mark('prepare');
    // The edges' labels on a sheet of their own (they come last of the paper): how tesseract lays a
    // sheet out depends on all its crops, and a crop of wall among them must not change the others'.
    const edgesFrom = boxes.findIndex((b) => onEdges.has(b));
    const readings = await readLabels(this.opts.ocr, grey, boxes, FIRST_LOOK, [
      ...(edgesFrom >= 0 ? [edgesFrom] : []),
      onPaper,
    ]);
    mark('firstRead');
    checkpoint();
    const labels = readings.map((r) => this.asLabel(r));
    // How well each first reading names a catalogue entry: a pass over the whole catalogue a label,
    // taken once for both choices below.
    const best = labels.map((label) => this.bestEntry(label, entries));
    const namedFirst = best.map((b) => b?.score ?? 0);
    // Entries a first reading already names with a price beside it: that product is found, priced.
    const pricedSkus = new Set(
      best.filter((b, i) => b !== null && b.score >= 0.5 && labels[i]!.price?.price != null).map((b) => b!.entry.sku),
    );
    const unsure = labels
      .map((label, i) => {
        const named = namedFirst[i]!;
        const offer = /WAS|NOW|\d\s?[ft][o0]r\b/i.test(readings[i]!.text);
        const priced = label.price?.price != null && (!offer || label.price.discountedPrice != null);
        return { i, named, priced };
      })
      // An empty catalogue (a new organisation's) can name nothing however closely a label is read,
      // and a closer reading's name is only taken when it names more: only the price can gain there.
      // Without this, such a photo read every label twice, ~2× the OCR time for the same products.
      .filter((u) => (entries.length > 0 && u.named < 0.5) || !u.priced)
      // Paper that names an entry another label of the photo shows named and priced, with no price of
      // its own: a second sighting of a product already found (a pack's window showing its name).
      .filter((u) => !(u.named >= 0.5 && !labels[u.i]!.price && pricedSkus.has(best[u.i]!.entry.sku)))
      // Print the text detector found is looked at again only where its first reading shows a price:
      // most of it is a pack's (a name and no price), which a closer look would only read again, at
      // 2-4× the cost of the first.
      .filter((u) => u.i < onPaper || labels[u.i]!.price !== null)
      // Nor is a crop whose first reading shows no two letters or digits together and no bars: a
      // pack's window or bare shelf. Read closer on a sheet of their own, such crops gave not one
      // product more on any set (first generator, second generator's sample and tuning seed); beside
      // labels, they cost the closer sheet its time and can spoil how tesseract lays it out.
      .filter(
        (u) => /[\p{L}\p{N}]{2}/u.test(readings[u.i]!.text) || hasBars(readings[u.i]!) || onEdges.has(boxes[u.i]!),
      )
      // The edges' last, on a closer sheet of their own (as above).
      .sort((a, b) => Number(onEdges.has(boxes[a.i]!)) - Number(onEdges.has(boxes[b.i]!)));
    const closeEdgesFrom = unsure.findIndex((u) => onEdges.has(boxes[u.i]!));
    // Print the text detector found that tesseract made nothing of (no name, no price, yet letters):
    // light print on red or green paper whose crop, padded with shelf edge, was not turned over, or
    // small print. The learned recognizer reads such crops in colour. Not a closer tesseract look
    // first: its time goes on the same misreading. A pack's print mostly names its entry (brand and
    // name), so it is not paid for here.
    const garbled = this.opts.text
      ? labels
          .map((_, i) => ({ i, named: namedFirst[i]! }))
          .filter(
            ({ i, named }) =>
              i >= onPaper &&
              entries.length > 0 &&
              named < 0.5 &&
              labels[i]!.price === null &&
              /[\p{L}\p{N}]{2}/u.test(readings[i]!.text),
          )
      : [];
    const lined = garbled.filter((g) => (labels[g.i]!.box as Partial<TextLabel>).lines);
    const seen = await this.learnedLines(
      photo,
      lined.map((g) => (labels[g.i]!.box as TextLabel).lines),
    );
    mark('learnedLines');
    if (profiling())
      count(
        'learnedLines',
        lined.reduce((n, g) => n + (labels[g.i]!.box as TextLabel).lines.length, 0),
      );
    lined.forEach((g, k) => {
      const label = labels[g.i]!;
      const learned = this.asLabel({ ...readings[g.i]!, text: seen[k]! });
      const betterName = (this.bestEntry(learned, entries)?.score ?? 0) > g.named;
      const betterPrice = completeness(learned.price) > completeness(label.price);
      if (betterName || betterPrice) count('learnedLinesGain');
      labels[g.i] = {
        ...label,
        nameText: betterName ? learned.nameText : label.nameText,
        price: betterPrice ? learned.price : label.price,
      };
    });
    checkpoint();
    if (unsure.length === 0) return { labels, readings };
    // Print found by the text detector that shows a price and names nothing is often the price
    // alone: the name above it, in smaller print, was too small for the detector at its size. A
    // label's name stands above its price and to its left, so the closer look takes in that much more.
    const looked = unsure.map((u) => {
      const box = boxes[u.i]!;
      if (u.i < onPaper || u.named >= 0.5 || labels[u.i]!.price === null) return box;
      return {
        x0: Math.max(0, box.x0 - 0.8 * w(box)),
        y0: Math.max(0, box.y0 - 0.35 * h(box)),
        x1: box.x1,
        y1: box.y1,
      };
    });
    mark('matchFirst');
    const closer = await readLabels(
      this.opts.ocr,
      grey,
      looked,
      CLOSE_LOOK,
      closeEdgesFrom >= 0 ? [closeEdgesFrom] : [],
    );
    mark('closeRead');
    for (const [k, u] of unsure.entries()) {
      checkpoint();
      const label = labels[u.i]!;
      const again = this.asLabel(closer[k]!);
      const againNamed = this.bestEntry(again, entries)?.score ?? 0;
      const named = Math.max(u.named, againNamed);
      let nameText = againNamed > u.named ? again.nameText : label.nameText;
      let price = u.priced
        ? label.price
        : completeness(again.price) > completeness(label.price)
          ? again.price
          : label.price;
      // Only on what is a label by its name, its symbol or its price: paper that names nothing and
      // carries no bars is mostly a pack's white window, and a reading here costs a detection each.
      // A currency sign read where no price parses is a label's price misread (print tilted by
      // the camera's angle, whose bars were not seen as bars either): a pack's window shows none.
      const labelLike =
        named >= 0.5 ||
        hasBars(readings[u.i]!) ||
        entries.length === 0 ||
        // A label by where it is: clipped to a shelf edge, its print too small for tesseract (D379).
        onEdges.has(boxes[u.i]!) ||
        showsCurrencySign(readings[u.i]!.text + ' ' + closer[k]!.text);
      if (profiling() && (againNamed > u.named || completeness(price) > completeness(label.price)))
        count(u.i < onPaper ? 'closeGainPaper' : 'closeGainText');
      count(u.i < onPaper ? 'closePaper' : 'closeText');
      const stillUnsure = (entries.length > 0 && named < 0.5) || completeness(price) === 0;
      if (this.opts.text && stillUnsure && (labelLike || price !== null)) {
        mark('matchClose');
        const had = profiling() ? { nameText, price } : null;
        ({ nameText, price } = await this.learnedLook(
          photo,
          { ...label, box: looked[k]!, nameText },
          readings[u.i]!,
          entries,
          named,
          price,
          u.i < onPaper,
        ));
        mark('learnedLook');
        count('learnedLooks');
        if (had && (had.nameText !== nameText || completeness(price) > completeness(had.price)))
          count('learnedLookGain');
      } else if (!this.opts.text && completeness(price) === 0 && u.i < onPaper && labelLike) {
        const tag = await readTagPrice(
          this.opts.ocr,
          sharp(grey.data, { raw: { width: grey.width, height: grey.height, channels: 1 } }),
          label.box,
        );
        if (tag) price = barePrice(tag.value);
        mark('tagPrice');
      }
      labels[u.i] = { ...label, nameText, price };
    }
    mark('matchClose');
    return { labels, readings };
  }

  /**
   * The learned recognizer on the lines the text detector already found on labels (~7 ms a line,
   * all labels' lines in one call; a look of its own, detection included, ~85 ms a label): each
   * label's text, its lines in reading order.
   */
  private async learnedLines(photo: Photo, labelsLines: Box[][]): Promise<string[]> {
    if (labelsLines.length === 0) return [];
    const ordered = labelsLines.map((lines) =>
      [...lines].sort((p, q) => (Math.abs(cy(p) - cy(q)) < Math.min(h(p), h(q)) / 2 ? p.x0 - q.x0 : p.y0 - q.y0)),
    );
    const read = await (
      await this.opts.text!()
    ).recognizeBoxes({ data: photo.rgb, width: photo.width, height: photo.height, channels: 3 }, ordered.flat());
    let k = 0;
    return ordered.map((lines) => lines.map(() => read[k++]!.text).join('\n'));
  }

  /**
   * The learned recognizer's look at a label tesseract could not make out: inside the real tags'
   * labelled boxes it read 143 of 144 prices, tesseract's vote 132, and it reads print tesseract
   * loses (small serif capitals, light print on dark or red paper). Its name is taken when it names
   * more, its price when it is more complete.
   */
  private async learnedLook(
    photo: Photo,
    label: Label,
    reading: LabelReading,
    entries: Entry[],
    named: number,
    price: LabelPrice | null,
    onPaper: boolean,
  ): Promise<{ nameText: string; price: LabelPrice | null }> {
    const seen = await readLabelInBox(
      await this.opts.text!(),
      // The photo's own colour pixels: a grey copy would be made of the whole photo for each label.
      { data: photo.rgb, width: photo.width, height: photo.height, channels: 3 },
      label.box,
      { cropSide: LEARNED_LOOK_SIDE, maxAspect: 30 },
    );
    const learned = this.asLabel({ ...reading, text: seen.text });
    const learnedNamed = this.bestEntry(learned, entries)?.score ?? 0;
    let out = { nameText: learnedNamed > named ? learned.nameText : label.nameText, price };
    if (completeness(learned.price) > completeness(price)) out = { ...out, price: learned.price };
    // Still none: a price with raised cents ($1⁵⁹, 5³⁹ €), read as two lines of their own sizes (D381),
    // before the tallest row's bare integer, which reads such a price without its point (`539`, or
    // `7496` with the € read as a 6). Not where the catalogue prices only in yen, which has no cents.
    const currencies = catalogueCurrencies(entries);
    if (completeness(out.price) === 0 && !(currencies.size === 1 && currencies.has('JPY'))) {
      const raised = await readRaisedCents(
        await this.opts.text!(),
        { data: photo.rgb, width: photo.width, height: photo.height, channels: 3 },
        label.box,
      );
      if (raised !== null) {
        count('raisedCents');
        out = { ...out, price: barePrice(raised) };
      }
    }
    // Still no price: tags that print a bare integer (198, as yen tags do) show it as their tallest
    // row of digits.
    if (completeness(out.price) === 0 && onPaper && seen.price !== null) out = { ...out, price: barePrice(seen.price) };
    return out;
  }

  private asLabel(reading: LabelReading): Label {
    return { box: reading.box, nameText: nameOf(reading.text), price: parseLabelPrices(reading.text), lines: [] };
  }

  /** The fallback: OCR over the whole photo, labels assembled from price lines and the lines above them. */
  private async recognizeWholeImage(input: RecognizeInput): Promise<RecognizedProduct[]> {
    const { width, height } = input;
    // Grey and contrast-stretched, upright from EXIF. Not sharpened as well: on a flat background
    // that turns JPEG ringing into strokes and tesseract loses whole words.
    const prepared = await sharp(input.image).rotate().greyscale().normalise().png({ compressionLevel: 1 }).toBuffer();
    checkpoint();
    const [lines, barcodes] = await Promise.all([
      this.opts.ocr.lines(prepared),
      readShelf(prepared, width, height, this.opts.barcodeTiles ?? 3),
    ]);
    checkpoint();
    const labels = this.findLabels(lines, height);
    const entries = this.entries(input.catalogue);
    labels.push(
      ...(await this.secondLook(
        prepared,
        lines,
        labels,
        entries.map((e) => e.tokens),
        width,
        height,
      )),
    );
    const rows = this.rows(labels);
    const shelfBoxes = labels.map((l) => l.box);
    return labels.map((label) =>
      this.toProduct(
        label,
        entries,
        barcodes,
        rows.get(label)!,
        (known) => ({
          units: known ? this.countFacings(label, lines, labels, known.brand, known.tokens) : 1,
          centreX: cx(label.box),
          top: shelfAbove(label.box, shelfBoxes),
        }),
        width,
        height,
      ),
    );
  }

  private entries(catalogue: CatalogueEntry[]): Entry[] {
    return indexCatalogue(catalogue);
  }

  /**
   * The catalogue entry whose brand and name the label's text contains best. Ties, and labels
   * whose name is half hidden, are settled by the price: a label showing an entry's brand and
   * exactly its expected price names that entry.
   */
  private bestEntry(label: Label, entries: Entry[]): (Entry & { score: number }) | null {
    const text = tokens(label.nameText);
    const squashed = squash(label.nameText);
    const shown = label.price?.price ?? null;
    let best: (Entry & { score: number }) | null = null;
    const currency = this.labelCurrency(label, entries);
    for (const e of entries) {
      // A label priced in another currency is not this entry's (a catalogue spanning countries).
      if (!pricedIn(e, currency)) continue;
      let score = containment(text, e.tokens, squashed);
      const itsPrice = samePrice(shown, e.entry.expectedPrice);
      // Its brand, or one of its name's own words, beside exactly its expected price: the rest of the
      // label hidden or misread (a pack in front of it, print too small to read whole).
      if (itsPrice && ((e.brand.size > 0 && containment(text, e.brand) === 1) || namesAWord(text, e)))
        score = Math.max(score, 0.5) + 0.01;
      else if (itsPrice) score += 0.005;
      if (!best || score > best.score) best = { ...e, score };
    }
    // Print that names nothing by brand and name together may still show one entry's whole name, which
    // no other entry has: a pack's print, its brand small or in a logo (D379). Never over a naming
    // the text already gives: a label's words hold other entries' shorter names too.
    if ((best?.score ?? 0) >= 0.5) return best;
    // Among the entries of the label's currency only: the same product sold in two countries is not
    // two names.
    const inCurrency = currency ? entries.filter((e) => pricedIn(e, currency)) : entries;
    const distinct = distinctName(text, squashed, inCurrency);
    if (distinct && !showsOtherBrand(text, squashed, distinct, entries)) best = { ...distinct, score: 0.75 };
    else {
      // Or its whole brand beside a word of its name no other entry of that brand has (D381): print
      // reading "SHOPWISE conrserve" names Shopwise's one Apricot Conserve, though it shows too few of
      // the entry's words for the token share.
      const own = brandAndOwnWord(text, squashed, inCurrency);
      if (own) best = { ...own, score: 0.6 };
    }
    return best;
  }

  /** The label's currency, read or the shelf's; null where it rules nothing out. */
  private labelCurrency(label: Label, entries: Entry[]): string | null {
    const read = label.price?.currency ?? label.currency ?? null;
    // A currency no entry of the catalogue is priced in is a misread sign (`£4.74` read as `€4.74`):
    // it rules nothing out.
    return read && catalogueCurrencies(entries).has(read) ? read : null;
  }

  /** A label as a product: barcode first, then the catalogue entry its name contains best. */
  private toProduct(
    label: Label,
    entries: Entry[],
    barcodes: FoundBarcode[],
    row: RecognizedProduct['shelfPosition'],
    place: Placed | ((known: Entry | null) => Placed),
    width: number,
    height: number,
  ): RecognizedProduct {
    const barcode = this.barcodeFor(label, barcodes);
    const byBarcode = barcode?.gtin ? entries.find((e) => e.gtin === barcode.gtin) : undefined;
    const best = byBarcode ? { ...byBarcode, score: 1 } : this.bestEntry(label, entries);
    const known = best && best.score >= 0.5 ? best : null;
    const placed = typeof place === 'function' ? place(known) : place;
    const { units, centreX } = placed;
    const product: RecognizedProduct = {
      brand: known?.entry.brand ?? null,
      description: known?.entry.name ?? (label.nameText || null),
      units,
      upc: barcode?.gtin ? barcode.text : null,
      sku: known?.entry.sku ?? null,
      category: known?.entry.category ?? null,
      subcategory: known?.entry.subcategory ?? null,
      price: label.price?.price ?? null,
      discountedPrice: label.price?.discountedPrice ?? null,
      currency: label.price?.currency ?? known?.entry.currency ?? null,
      onSale: label.price?.onSale ?? false,
      confidenceScore: byBarcode ? 0.95 : known ? Math.round((0.5 + 0.45 * known.score) * 100) / 100 : 0.3,
      shelfPosition: row,
      shelfSection: centreX < width / 3 ? 'left' : centreX < (2 * width) / 3 ? 'center' : 'right',
      fixtureType: null,
      sizeValue: known?.entry.sizeValue ?? null,
      sizeUnit: known?.entry.sizeUnit ?? null,
      box: productBox(label.box, placed, width, height),
    };
    this.labelBoxes.set(product, label.box);
    return product;
  }

  /** A label is a line with a price plus the lines just above it that it shares a column with. */
  private findLabels(lines: OcrLine[], imageHeight: number): Label[] {
    const priced = lines.map((line) => ({ line, price: parseLabelPrices(line.text) })).filter((p) => p.price);
    const used = new Set<OcrLine>();
    const labels: Label[] = [];
    for (const { line, price } of priced) {
      if (used.has(line)) continue;
      used.add(line);
      let box = line.bbox;
      const members = [line];
      let merged = price!;
      // Walk upwards through the lines stacked just above (the label's name lines), within a label's height.
      for (;;) {
        const above = lines
          .filter(
            (l) =>
              !used.has(l) &&
              l.bbox.y1 <= box.y0 + h(line.bbox) * 0.3 &&
              box.y0 - l.bbox.y1 < Math.max(h(line.bbox) * 2.8, imageHeight * 0.06),
          )
          .filter((l) => overlapX(l.bbox, box) > Math.min(l.bbox.x1 - l.bbox.x0, box.x1 - box.x0) * 0.3)
          .sort((a, b) => b.bbox.y1 - a.bbox.y1)[0];
        if (!above || members.length >= 4) break;
        used.add(above);
        members.unshift(above);
        box = union(box, above.bbox);
      }
      // A second price line just below (promo labels print NOW under WAS).
      const below = priced.find(
        (p) =>
          !used.has(p.line) &&
          p.line.bbox.y0 >= line.bbox.y1 - 2 &&
          p.line.bbox.y0 - line.bbox.y1 < h(line.bbox) * 1.2 &&
          overlapX(p.line.bbox, line.bbox) > 0,
      );
      if (below) {
        used.add(below.line);
        members.push(below.line);
        box = union(box, below.line.bbox);
      }
      const text = members.map((m) => m.text).join(' ');
      merged = parseLabelPrices(text) ?? merged;
      const nameText = nameOf(text);
      labels.push({ box, nameText, price: merged, lines: members });
    }
    return labels;
  }

  /**
   * A label whose name OCR read but whose price it did not (blur, small print): read the area under
   * the name again, enlarged, as one block of text.
   */
  private async secondLook(
    image: Buffer,
    lines: OcrLine[],
    labels: Label[],
    catalogue: Set<string>[],
    width: number,
    height: number,
  ): Promise<Label[]> {
    const used = new Set(labels.flatMap((l) => l.lines));
    const names = lines.filter(
      (l) => !used.has(l) && catalogue.some((entry) => containment(tokens(l.text), entry) >= 0.6),
    );
    const found: Label[] = [];
    for (const name of names) {
      checkpoint();
      const x0 = Math.max(0, Math.floor(name.bbox.x0 - 10));
      const y0 = Math.max(0, Math.floor(name.bbox.y1));
      const x1 = Math.min(width, Math.ceil(name.bbox.x0 + Math.max(name.bbox.x1 - name.bbox.x0, 200) * 1.1));
      const y1 = Math.min(height, Math.ceil(name.bbox.y1 + height * 0.07));
      if (x1 - x0 < 20 || y1 - y0 < 10) continue;
      const crop = await sharp(image)
        .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
        .resize({ width: (x1 - x0) * 2 })
        .png()
        .toBuffer();
      const text = (await this.opts.ocr.lines(crop, PSM.SINGLE_BLOCK)).map((l) => l.text).join(' ');
      const price = parseLabelPrices(text);
      if (!price) continue;
      found.push({ box: union(name.bbox, { x0, y0, x1, y1 }), nameText: name.text, price, lines: [name] });
    }
    return found;
  }

  /** Rows of labels (shelf edges), top to bottom, mapped to the spec's shelf positions. */
  private rows(labels: Label[]): Map<Label, RecognizedProduct['shelfPosition']> {
    return shelfRows(labels, (l) => l.box);
  }

  /**
   * The label's barcode: the nearest symbol within reach of it (a label's height and a half around
   * it) that no other label of the photo stands nearer to. The first in reach was taken before: a
   * neighbour's symbol, or one of the row below's, then named the label's product over its own
   * printed name (a second generator's tuning seed: 4 of its 36 misses).
   */
  private barcodeFor(label: Label, barcodes: FoundBarcode[], labels: Label[] = [label]): FoundBarcode | undefined {
    const reach = h(label.box) * 1.5;
    const away = (l: Label, b: FoundBarcode) =>
      Math.hypot(
        Math.max(l.box.x0 - cx(b.box), 0, cx(b.box) - l.box.x1),
        Math.max(l.box.y0 - cy(b.box), 0, cy(b.box) - l.box.y1),
      );
    let nearest: FoundBarcode | undefined;
    let nearestAway = Number.POSITIVE_INFINITY;
    for (const b of barcodes) {
      if (
        cx(b.box) <= label.box.x0 - reach ||
        cx(b.box) >= label.box.x1 + reach ||
        cy(b.box) <= label.box.y0 - reach ||
        cy(b.box) >= label.box.y1 + reach
      )
        continue;
      const d = away(label, b);
      if (d >= nearestAway || labels.some((o) => o !== label && away(o, b) < d)) continue;
      nearest = b;
      nearestAway = d;
    }
    return nearest;
  }

  /**
   * Facings: separate sightings of the product's pack text in the band above its label, between
   * the neighbouring labels of the same row.
   */
  private countFacings(label: Label, lines: OcrLine[], labels: Label[], brand: Set<string>, name: Set<string>): number {
    const sameRow = labels.filter((l) => l !== label && Math.abs(cy(l.box) - cy(label.box)) < h(label.box) * 2);
    const leftEdge = Math.max(0, ...sameRow.filter((l) => cx(l.box) < cx(label.box)).map((l) => l.box.x1));
    const rightEdge = Math.min(
      Number.POSITIVE_INFINITY,
      ...sameRow.filter((l) => cx(l.box) > cx(label.box)).map((l) => l.box.x0),
    );
    const rowAbove = labels.filter((l) => cy(l.box) < label.box.y0 - h(label.box) * 2).map((l) => l.box.y1);
    const top = rowAbove.length ? Math.max(...rowAbove) : 0;
    // Word level: OCR often joins the same brand printed on neighbouring packs into one line.
    const first = [...brand][0] ?? [...name][0];
    const sightings = lines
      .filter((l) => !label.lines.includes(l) && l.bbox.y1 <= label.box.y0 && l.bbox.y0 >= top)
      .flatMap((l) => l.words)
      .filter(
        (w) => cx(w.bbox) >= leftEdge && cx(w.bbox) <= rightEdge && first !== undefined && tokens(w.text).has(first),
      )
      .map((w) => w.bbox)
      .sort((a, b) => cx(a) - cx(b));
    let count = 0;
    let lastX = Number.NEGATIVE_INFINITY;
    for (const b of sightings) {
      if (cx(b) - lastX > (b.x1 - b.x0) * 0.6) {
        count++;
        lastX = cx(b);
      }
    }
    return Math.max(1, count);
  }
}
