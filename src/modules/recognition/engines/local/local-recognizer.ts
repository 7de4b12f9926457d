import sharp from 'sharp';
import { PSM } from 'tesseract.js';
import { normalizeGtin, tokens } from '../../catalogue-matcher.js';
import type { CatalogueEntry, RecognizedProduct, RecognizeInput, Recognizer } from '../../recognizer.js';
import { readShelf, type FoundBarcode } from './barcodes.js';
import type { Box, OcrLine, OcrPool } from './ocr-pool.js';
import { parseLabelPrices, type LabelPrice } from './price-parser.js';

type Label = { box: Box; nameText: string; price: LabelPrice; lines: OcrLine[] };

const cx = (b: Box) => (b.x0 + b.x1) / 2;
const cy = (b: Box) => (b.y0 + b.y1) / 2;
const h = (b: Box) => b.y1 - b.y0;
const union = (a: Box, b: Box): Box => ({ x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) });
const overlapX = (a: Box, b: Box) => Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0));

/** Share of the entry's tokens found in the text: labels abbreviate, rarely add. */
function containment(text: Set<string>, entry: Set<string>): number {
  if (entry.size === 0) return 0;
  let hit = 0;
  for (const t of entry) if (text.has(t)) hit++;
  return hit / entry.size;
}

export type LocalRecognizerOptions = { ocr: OcrPool; barcodeTiles?: number };

/**
 * The offline recognizer. A shelf label carries the product's name and price (its barcode is
 * usually too small to decode in a wide photo), so labels are the backbone: OCR finds price lines,
 * the text above each price names the product, the catalogue turns the name into a SKU, decoded
 * barcodes confirm it, pack text above the label counts the facings, and label rows and columns
 * give the position on the shelf.
 */
export class LocalRecognizer implements Recognizer {
  readonly name = 'local';

  constructor(private readonly opts: LocalRecognizerOptions) {}

  async recognize(input: RecognizeInput): Promise<RecognizedProduct[]> {
    const { width, height } = input;
    // Grey, contrast-stretched and sharpened: what tesseract reads best. Upright orientation from EXIF.
    const prepared = await sharp(input.image).rotate().greyscale().normalise().sharpen().png({ compressionLevel: 1 }).toBuffer();
    const [lines, barcodes] = await Promise.all([this.opts.ocr.lines(prepared), readShelf(prepared, width, height, this.opts.barcodeTiles ?? 3)]);
    const labels = this.findLabels(lines, height);
    const entries = input.catalogue.map((entry) => ({ entry, tokens: tokens(`${entry.brand} ${entry.name}`), brand: tokens(entry.brand), gtin: normalizeGtin(entry.upc) }));
    labels.push(...(await this.secondLook(prepared, lines, labels, entries.map((e) => e.tokens), width, height)));
    const rows = this.rows(labels, height);

    const products: RecognizedProduct[] = [];
    for (const label of labels) {
      const barcode = this.barcodeFor(label, barcodes);
      const labelTokens = tokens(label.nameText);
      let best: { entry: CatalogueEntry; score: number; brand: Set<string>; tokens: Set<string> } | null = null;
      const byBarcode = barcode?.gtin ? entries.find((e) => e.gtin === barcode.gtin) : undefined;
      if (byBarcode) best = { ...byBarcode, score: 1 };
      else {
        for (const e of entries) {
          const score = containment(labelTokens, e.tokens);
          if (!best || score > best.score) best = { ...e, score };
        }
      }
      const known = best && best.score >= 0.5 ? best : null;
      const units = known ? this.countFacings(label, lines, labels, known.brand, known.tokens) : 1;
      const row = rows.get(label)!;
      products.push({
        brand: known?.entry.brand ?? null,
        description: known?.entry.name ?? (label.nameText || null),
        units,
        upc: barcode?.gtin ? barcode.text : null,
        sku: known?.entry.sku ?? null,
        category: known?.entry.category ?? null,
        subcategory: known?.entry.subcategory ?? null,
        price: label.price.price,
        discountedPrice: label.price.discountedPrice,
        currency: label.price.currency ?? known?.entry.currency ?? null,
        onSale: label.price.onSale,
        confidenceScore: byBarcode ? 0.95 : known ? Math.round((0.5 + 0.45 * known.score) * 100) / 100 : 0.3,
        shelfPosition: row,
        shelfSection: cx(label.box) < width / 3 ? 'left' : cx(label.box) < (2 * width) / 3 ? 'center' : 'right',
        fixtureType: null,
        sizeValue: known?.entry.sizeValue ?? null,
        sizeUnit: known?.entry.sizeUnit ?? null,
      });
    }
    return products;
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
          .filter((l) => !used.has(l) && l.bbox.y1 <= box.y0 + h(line.bbox) * 0.3 && box.y0 - l.bbox.y1 < Math.max(h(line.bbox) * 2.8, imageHeight * 0.06))
          .filter((l) => overlapX(l.bbox, box) > Math.min(l.bbox.x1 - l.bbox.x0, box.x1 - box.x0) * 0.3)
          .sort((a, b) => b.bbox.y1 - a.bbox.y1)[0];
        if (!above || members.length >= 4) break;
        used.add(above);
        members.unshift(above);
        box = union(box, above.bbox);
      }
      // A second price line just below (promo labels print NOW under WAS).
      const below = priced.find((p) => !used.has(p.line) && p.line.bbox.y0 >= line.bbox.y1 - 2 && p.line.bbox.y0 - line.bbox.y1 < h(line.bbox) * 1.2 && overlapX(p.line.bbox, line.bbox) > 0);
      if (below) {
        used.add(below.line);
        members.push(below.line);
        box = union(box, below.line.bbox);
      }
      const text = members.map((m) => m.text).join(' ');
      merged = parseLabelPrices(text) ?? merged;
      const nameText = members
        .map((m) => m.text)
        .join(' ')
        .replace(/(?:[£$€¥])?\s?\d{1,4}[.,]\d{2}\s?(?:€)?|\b\d+\s*for\b|\bWAS\b|\bNOW\b/gi, ' ')
        .trim();
      labels.push({ box, nameText, price: merged, lines: members });
    }
    return labels;
  }

  /**
   * A label whose name OCR read but whose price it did not (blur, small print): read the area under
   * the name again, enlarged, as one block of text.
   */
  private async secondLook(image: Buffer, lines: OcrLine[], labels: Label[], catalogue: Set<string>[], width: number, height: number): Promise<Label[]> {
    const used = new Set(labels.flatMap((l) => l.lines));
    const names = lines.filter((l) => !used.has(l) && catalogue.some((entry) => containment(tokens(l.text), entry) >= 0.6));
    const found: Label[] = [];
    for (const name of names) {
      const x0 = Math.max(0, Math.floor(name.bbox.x0 - 10));
      const y0 = Math.max(0, Math.floor(name.bbox.y1));
      const x1 = Math.min(width, Math.ceil(name.bbox.x0 + Math.max(name.bbox.x1 - name.bbox.x0, 200) * 1.1));
      const y1 = Math.min(height, Math.ceil(name.bbox.y1 + height * 0.07));
      if (x1 - x0 < 20 || y1 - y0 < 10) continue;
      const crop = await sharp(image).extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 }).resize({ width: (x1 - x0) * 2 }).png().toBuffer();
      const text = (await this.opts.ocr.lines(crop, PSM.SINGLE_BLOCK)).map((l) => l.text).join(' ');
      const price = parseLabelPrices(text);
      if (!price) continue;
      found.push({ box: union(name.bbox, { x0, y0, x1, y1 }), nameText: name.text, price, lines: [name] });
    }
    return found;
  }

  /** Rows of labels (shelf edges), top to bottom, mapped to the spec's shelf positions. */
  private rows(labels: Label[], height: number): Map<Label, RecognizedProduct['shelfPosition']> {
    const sorted = [...labels].sort((a, b) => cy(a.box) - cy(b.box));
    const groups: Label[][] = [];
    for (const label of sorted) {
      const last = groups.at(-1);
      if (last && cy(label.box) - cy(last.at(-1)!.box) < height * 0.06) last.push(label);
      else groups.push([label]);
    }
    const names = (n: number, i: number): RecognizedProduct['shelfPosition'] => {
      if (n === 1) return 'eye-level';
      if (i === 0) return 'top';
      if (i === n - 1) return 'bottom';
      return i === 1 ? 'eye-level' : 'middle';
    };
    const out = new Map<Label, RecognizedProduct['shelfPosition']>();
    groups.forEach((g, i) => g.forEach((l) => out.set(l, names(groups.length, i))));
    return out;
  }

  private barcodeFor(label: Label, barcodes: FoundBarcode[]): FoundBarcode | undefined {
    const reach = h(label.box) * 1.5;
    return barcodes.find((b) => cx(b.box) > label.box.x0 - reach && cx(b.box) < label.box.x1 + reach && cy(b.box) > label.box.y0 - reach && cy(b.box) < label.box.y1 + reach);
  }

  /**
   * Facings: separate sightings of the product's pack text in the band above its label, between
   * the neighbouring labels of the same row.
   */
  private countFacings(label: Label, lines: OcrLine[], labels: Label[], brand: Set<string>, name: Set<string>): number {
    const sameRow = labels.filter((l) => l !== label && Math.abs(cy(l.box) - cy(label.box)) < h(label.box) * 2);
    const leftEdge = Math.max(0, ...sameRow.filter((l) => cx(l.box) < cx(label.box)).map((l) => l.box.x1));
    const rightEdge = Math.min(Number.POSITIVE_INFINITY, ...sameRow.filter((l) => cx(l.box) > cx(label.box)).map((l) => l.box.x0));
    const rowAbove = labels.filter((l) => cy(l.box) < label.box.y0 - h(label.box) * 2).map((l) => l.box.y1);
    const top = rowAbove.length ? Math.max(...rowAbove) : 0;
    // Word level: OCR often joins the same brand printed on neighbouring packs into one line.
    const first = [...brand][0] ?? [...name][0];
    const sightings = lines
      .filter((l) => !label.lines.includes(l) && l.bbox.y1 <= label.box.y0 && l.bbox.y0 >= top)
      .flatMap((l) => l.words)
      .filter((w) => cx(w.bbox) >= leftEdge && cx(w.bbox) <= rightEdge && first !== undefined && tokens(w.text).has(first))
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
