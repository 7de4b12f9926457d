// The flat shelf: a gondola bay between two uprights with 2-6 rows. A row is a shelf (packs standing
// on it, labels clipped into the shelf-edge strip below them) or a peg-hook row (packs hanging from a
// rail, a punched tag on each product's hooks, or a label strip under them). Each product is one
// group: 1-10 facings side by side and one label; some facings are left empty (bare shelf, no label)
// and some labels are partly hidden (a pack pushed over the shelf edge, a wobbler, a clip strip).
// All of it is laid out in scene pixels; the camera maps it to the photo afterwards.
import sharp, { type OverlayOptions } from 'sharp';
import { type Product } from './catalogue.js';
import {
  type LabelArt,
  type LabelStyle,
  type Rect,
  type Theme,
  PROMO_STYLES,
  layoutLabel,
  randomTheme,
  renderLabel,
} from './labels.js';
import { PACK_ASPECT, PACK_DEFS, PACK_HEIGHT, drawPack } from './packs.js';
import { type PriceStyle, type ShelfPrice, choosePrice, choosePriceStyle } from './prices.js';
import { type Rng } from './random.js';
import { FONTS, svgText } from './text.js';

export type RowKind = 'shelf' | 'peg-tags-above' | 'peg-strip-below';

export type Occluder = {
  kind: 'pack-overhang' | 'wobbler' | 'clip-strip';
  /** Share of the label's area hidden (<= 0.3; the price is never touched). */
  fraction: number;
};

export type PlacedProduct = {
  product: Product;
  price: ShelfPrice;
  art: LabelArt;
  row: number;
  units: number;
  stacked: boolean;
  /** Every drawn pack of the product (scene pixels). */
  packs: Rect[];
  /** The label's corners in the scene (a peg tag may hang slightly turned). */
  labelCorners: [number, number][];
  labelAngle: number;
  occluder: Occluder | null;
};

export type Scene = {
  width: number;
  height: number;
  rowKinds: RowKind[];
  products: PlacedProduct[];
  emptyFacings: Rect[];
  priceStyle: PriceStyle;
  houseStyles: LabelStyle[];
  labelScale: number;
  /** The back panel's colour and, for pegboard, one SVG tile of its holes. */
  panel: string;
  holeTile: string | null;
  background: string;
  foreground: string;
  labelLayers: { input: Buffer; left: number; top: number }[];
};

type Shape = { kind: 'rect'; r: Rect } | { kind: 'circle'; cx: number; cy: number; radius: number };

const inShape = (s: Shape, x: number, y: number) =>
  s.kind === 'rect'
    ? x >= s.r.x0 && x <= s.r.x1 && y >= s.r.y0 && y <= s.r.y1
    : (x - s.cx) ** 2 + (y - s.cy) ** 2 <= s.radius ** 2;

/** Share of `r` covered by the shapes, by sampling a grid (exact enough for a 30% cap). */
function coverage(r: Rect, shapes: Shape[], nx = 48, ny = 24): number {
  let hit = 0;
  for (let i = 0; i < nx; i++)
    for (let j = 0; j < ny; j++) {
      const x = r.x0 + ((i + 0.5) / nx) * (r.x1 - r.x0);
      const y = r.y0 + ((j + 0.5) / ny) * (r.y1 - r.y0);
      if (shapes.some((s) => inShape(s, x, y))) hit++;
    }
  return hit / (nx * ny);
}

const f = (v: number) => v.toFixed(1);
const shift = (r: Rect, dx: number, dy: number): Rect => ({
  x0: r.x0 + dx,
  y0: r.y0 + dy,
  x1: r.x1 + dx,
  y1: r.y1 + dy,
});

type Group = {
  product: Product;
  price: ShelfPrice;
  style: LabelStyle;
  art: LabelArt;
  packW: number;
  packH: number;
  gap: number;
  units: number;
  x: number;
  width: number;
};

type Row = {
  kind: RowKind;
  top: number;
  bottom: number;
  /** Shelf rows and label strips: the strip's top edge and height. */
  stripTop: number;
  stripH: number;
  lip: number;
  /** Where packs may be: they stand on zoneBottom (shelves) or hang from zoneTop (pegs). */
  zoneTop: number;
  zoneBottom: number;
  railY: number;
  groups: Group[];
  empties: Rect[];
};

const HOUSE_STYLES: [LabelStyle, number][] = [
  ['shelf-white', 2],
  ['big-price', 1.5],
  ['barcode-side', 1.5],
  ['serif-caps', 1.2],
  ['esl', 1.5],
  ['dark', 1.2],
];

function chooseStyle(
  price: ShelfPrice,
  house: LabelStyle[],
  promoStyle: LabelStyle,
  peg: boolean,
  rng: Rng,
): LabelStyle {
  if (peg) return 'peg-tag';
  if (price.promo.kind !== 'none') {
    const own = house.find((s) => PROMO_STYLES.includes(s));
    return own && rng.chance(0.6) ? own : promoStyle;
  }
  // Now and then a regular price on a coloured "low price" ticket.
  if (rng.chance(0.07)) return promoStyle;
  return rng.pick(house);
}

export async function buildScene(
  width: number,
  height: number,
  safe: Rect,
  items: Product[],
  rng: Rng,
): Promise<Scene> {
  const theme = randomTheme(rng);
  const currency = items[0].currency;
  const priceStyle = choosePriceStyle(currency, rng);
  const firstHouse = rng.weighted(HOUSE_STYLES);
  const houseStyles = [firstHouse];
  if (rng.chance(0.45)) {
    const second = rng.weighted(HOUSE_STYLES.filter(([s]) => s !== firstHouse));
    houseStyles.push(second);
  }
  const promoStyle: LabelStyle = rng.pick(['promo-yellow', 'promo-red']);
  const promoRate = rng.float(0.1, 0.4);
  const alignLeft = rng.chance(0.6);
  const uMin = 0.95;

  const safeW = safe.x1 - safe.x0;
  const safeH = safe.y1 - safe.y0;
  // Rows and products per row. A photo has an average number of facings per product; a row holds
  // as many products as its width allows at that, so a photo with many rows (packs small in the
  // frame) would need more than 20 products: then it gets fewer rows.
  const edge = 10;
  const rowW = safeW - 2 * edge;
  const maxRows = Math.max(2, Math.min(6, Math.floor(safeH / 240)));
  // Most shelf photos take in three or more shelves; some are close-ups of two.
  let n = rng.chance(0.25) ? 2 : rng.int(Math.min(3, maxRows), maxRows);
  const standing = Math.min(20, items.filter((p) => p.kind !== 'blister').length);
  let facingsPerProduct = rng.float(1.8, 4.5);
  for (; ; n--) {
    // A typical pack is about a quarter of the row height wide.
    const need = (rowW * n) / (standing * 0.24 * (safeH / n));
    // Now and then a tall bay keeps its rows anyway and is sparsely stocked (wide empty facings).
    if (need <= 11.5 || n === 2 || (n >= 5 && rng.chance(0.3))) {
      facingsPerProduct = Math.max(facingsPerProduct, Math.min(need, 10) * 1.05);
      break;
    }
  }
  const labelRoom = Math.max(1, Math.floor(rowW / 240));
  const perRow = (height: number) =>
    Math.max(1, Math.min(labelRoom, Math.round(rowW / (0.24 * height * facingsPerProduct))));
  const rowH = safeH / n;
  const pegItems = rng.shuffle(items.filter((p) => p.kind === 'pouch' || p.kind === 'blister'));
  const kinds: RowKind[] = Array.from({ length: n }, () => 'shelf');
  if (n >= 3 && pegItems.length >= 3 && rng.chance(0.4)) {
    kinds[rng.int(0, n - 2)] = rng.chance(0.6) ? 'peg-tags-above' : 'peg-strip-below';
  }
  // Standing pouches may sit on shelves, unless this bay hangs them on pegs.
  const hasPeg = kinds.some((k) => k !== 'shelf');
  const shelfItems = rng.shuffle(items.filter((p) => p.kind !== 'blister' && !(hasPeg && pegItems.includes(p))));
  const counts = kinds.map((k) => {
    const c = Math.max(1, perRow(rowH) + rng.int(-1, 1));
    return k === 'shelf' ? Math.min(c, labelRoom) : Math.min(c, pegItems.length, Math.floor(rowW / 165));
  });
  const sum = (k: 'shelf' | 'peg') =>
    counts.reduce((a, c, i) => a + ((kinds[i] === 'shelf') === (k === 'shelf') ? c : 0), 0);
  const trim = (k: 'shelf' | 'peg') => {
    // One fewer in the fullest row of that kind.
    let best = -1;
    counts.forEach((c, i) => {
      if ((kinds[i] === 'shelf') === (k === 'shelf') && c > 1 && (best < 0 || c > counts[best])) best = i;
    });
    if (best >= 0) counts[best]--;
    return best >= 0;
  };
  while (sum('shelf') > shelfItems.length && trim('shelf'));
  while (sum('peg') > pegItems.length && trim('peg'));
  while (sum('shelf') + sum('peg') > 20 && (trim('shelf') || trim('peg')));
  // At least six products where the rows and the catalogue allow.
  for (let guard = 0; sum('shelf') + sum('peg') < 6 && guard < 50; guard++) {
    const r = rng.int(0, n - 1);
    const peg = kinds[r] !== 'shelf';
    const pool = peg ? pegItems.length : shelfItems.length;
    if (sum(peg ? 'peg' : 'shelf') < pool && counts[r] < (peg ? Math.floor(rowW / 165) : labelRoom)) counts[r]++;
  }
  let nextShelf = 0,
    nextPeg = 0;
  const rowProducts = kinds.map((k, r) =>
    Array.from({ length: counts[r] }, () => (k === 'shelf' ? shelfItems[nextShelf++] : pegItems[nextPeg++])),
  );

  const prices = new Map<string, ShelfPrice>();
  const styles = new Map<string, LabelStyle>();
  for (const [r, list] of rowProducts.entries()) {
    for (const p of list) {
      const pr = rng.fork(`price-${p.sku}`);
      const price = choosePrice(p, pr, promoRate);
      prices.set(p.sku, price);
      styles.set(p.sku, chooseStyle(price, houseStyles, promoStyle, kinds[r] === 'peg-tags-above', pr));
    }
  }

  // The label scale: from the row height and the room per product, never below readable.
  let u = Math.max(
    uMin,
    Math.min(
      3.6,
      ...rowProducts.map((list, r) =>
        Math.min(
          (rowH * rng.float(0.22, 0.3)) / 105,
          ((rowW / list.length) * 0.78) / (kinds[r] === 'shelf' ? 260 : 160),
        ),
      ),
    ),
  );
  let arts = new Map<string, LabelArt>();
  for (let attempt = 0; ; attempt++) {
    arts = new Map();
    for (const list of rowProducts)
      for (const p of list) {
        arts.set(
          p.sku,
          await layoutLabel(styles.get(p.sku)!, {
            product: p,
            price: prices.get(p.sku)!,
            priceStyle,
            u,
            theme,
            rng: rng.fork(`label-${p.sku}`),
          }),
        );
      }
    // Labels must fit side by side, and leave most of the row to the packs.
    let worst = -1;
    for (const [r, list] of rowProducts.entries()) {
      const widths = list.map((p) => arts.get(p.sku)!.width);
      const tall = Math.max(...list.map((p) => arts.get(p.sku)!.height));
      if (widths.reduce((a, b) => a + b, 0) + (list.length + 1) * 8 * u > rowW || tall > rowH * 0.48) worst = r;
    }
    if (worst < 0) break;
    if (u > uMin && attempt < 30) {
      u = Math.max(uMin, u * 0.9);
      continue;
    }
    // Already at the smallest readable size: this row holds one product fewer.
    const list = rowProducts[worst];
    if (list.length <= 1) break;
    list.sort((a, b) => arts.get(a.sku)!.width - arts.get(b.sku)!.width);
    list.pop();
  }

  // Row geometry.
  const rows: Row[] = rowProducts.map((list, r) => {
    const top = safe.y0 + r * rowH;
    const bottom = top + rowH;
    const kind = kinds[r];
    const tallest = Math.max(...list.map((p) => arts.get(p.sku)!.height));
    const lip = Math.max(3, 4 * u);
    const stripH = kind === 'peg-tags-above' ? 0 : tallest + 2 * lip;
    const stripTop = bottom - stripH;
    const railY = top + rowH * 0.05;
    let zoneTop: number, zoneBottom: number;
    if (kind === 'shelf') {
      zoneTop = top + rowH * 0.04;
      zoneBottom = stripTop - Math.max(2, rowH * 0.012);
    } else if (kind === 'peg-tags-above') {
      zoneTop = railY + rowH * 0.04 + tallest * 0.6;
      zoneBottom = bottom - rowH * 0.03;
    } else {
      zoneTop = railY + rowH * 0.05;
      zoneBottom = stripTop - rowH * 0.04;
    }
    return { kind, top, bottom, stripTop, stripH, lip, zoneTop, zoneBottom, railY, groups: [], empties: [] };
  });

  // Groups across each row: packs sized to the free height, facings to the free width.
  let emptiesLeft: number = rng.weighted([
    [0, 2],
    [1, 3],
    [2, 2],
    [3, 1],
  ] as const);
  for (const [r, row] of rows.entries()) {
    const zoneH = row.zoneBottom - row.zoneTop;
    const peg = row.kind !== 'shelf';
    const groups: Group[] = rowProducts[r].map((p) => {
      const [h0, h1] = PACK_HEIGHT[p.kind];
      const [a0, a1] = PACK_ASPECT[p.kind];
      const packH = zoneH * rng.float(h0, h1) * (peg ? 0.95 : 1);
      const packW = packH * rng.float(a0, a1);
      return {
        product: p,
        price: prices.get(p.sku)!,
        style: styles.get(p.sku)!,
        art: arts.get(p.sku)!,
        packW,
        packH,
        gap: packW * (peg ? rng.float(0.12, 0.3) : rng.float(0.02, 0.1)),
        units: 1,
        x: 0,
        width: 0,
      };
    });
    const spacing = Math.max(6, 8 * u);
    const minWidth = (g: Group) => Math.max(g.art.width, g.packW);
    let free = rowW - groups.reduce((s, g) => s + minWidth(g) + spacing, 0);
    // Packs wider than their share shrink (a big box on a crowded shelf is drawn smaller).
    while (free < 0) {
      const widest = groups.reduce((a, b) => (b.packW - b.art.width > a.packW - a.art.width ? b : a));
      if (widest.packW <= widest.art.width * 0.5) break;
      widest.packW *= 0.9;
      widest.packH *= 0.9;
      widest.gap *= 0.9;
      free = rowW - groups.reduce((s, g) => s + minWidth(g) + spacing, 0);
    }
    const avgPack = groups.reduce((s, g) => s + g.packW, 0) / groups.length;
    const empties: number[] = [];
    while (emptiesLeft > 0 && free > avgPack * 2.5 && rng.chance(0.6)) {
      const w = avgPack * rng.float(1.1, 2.2);
      empties.push(w);
      free -= w + spacing;
      emptiesLeft--;
    }
    // Share the free width out; each group turns its share into facings.
    const weights = groups.map(() => rng.float(0.3, 1.5));
    const wsum = weights.reduce((a, b) => a + b, 0) + rng.float(0.1, 0.6);
    for (const [i, g] of groups.entries()) {
      const room = minWidth(g) + (Math.max(0, free) * weights[i]) / wsum;
      const fit = Math.floor((room + g.gap) / (g.packW + g.gap));
      g.units = Math.max(1, Math.min(10, fit, fit > 2 && rng.chance(0.3) ? fit - 1 : fit));
      g.width = Math.max(g.art.width, g.units * g.packW + (g.units - 1) * g.gap);
    }
    // Shelves are stocked: add facings while they fit, leaving a little air (and the empty facings).
    const widthWith = (g: Group, units: number) => Math.max(g.art.width, units * g.packW + (units - 1) * g.gap);
    let slackNow =
      rowW -
      groups.reduce((s, g) => s + g.width, 0) -
      empties.reduce((s, w) => s + w, 0) -
      spacing * (groups.length + empties.length);
    const air = rowW * rng.float(0, 0.05);
    for (;;) {
      const grow = groups.filter((g) => {
        const delta = widthWith(g, g.units + 1) - g.width;
        // Free when the packs still fit under a label wider than them.
        return g.units < 10 && (delta <= 0.5 || delta <= slackNow - air);
      });
      if (grow.length === 0) break;
      const g = rng.pick(grow);
      slackNow -= widthWith(g, g.units + 1) - g.width;
      g.units++;
      g.width = widthWith(g, g.units);
    }
    // Width still left over (a sparse shelf) becomes a gap of bare shelf: an empty facing too.
    if (slackNow > avgPack * 2) {
      const w = slackNow * rng.float(0.55, 0.85);
      empties.push(w);
      slackNow -= w + spacing;
    }
    // Order along the shelf, empty facings in between, the remaining width as uneven spacing.
    const order: (Group | number)[] = rng.shuffle([...groups, ...empties]);
    const used = order.reduce<number>((s, it) => s + (typeof it === 'number' ? it : it.width), 0);
    const slack = Math.max(0, rowW - used - spacing * (order.length - 1));
    const cuts = order.map(() => rng.float(0.2, 1));
    const csum = cuts.reduce((a, b) => a + b, 0) + rng.float(0.2, 1);
    let x = safe.x0 + edge + slack * (rng.float(0.1, 1) / csum) * 0.5;
    for (const [i, it] of order.entries()) {
      if (typeof it === 'number') {
        row.empties.push({ x0: x, y0: row.zoneTop, x1: x + it, y1: row.zoneBottom });
        x += it;
      } else {
        it.x = x;
        x += it.width;
        row.groups.push(it);
      }
      x += spacing + (slack * cuts[i]) / csum;
    }
  }

  // Place packs and labels; collect SVG for the background (behind labels) and foreground (in front).
  const products: PlacedProduct[] = [];
  const bgPacks: string[] = [];
  const fg: string[] = [];
  const labelShadows: string[] = [];
  const labelLayers: Scene['labelLayers'] = [];
  const hooks: string[] = [];
  const hooksBehind: string[] = [];
  for (const [r, row] of rows.entries()) {
    const peg = row.kind !== 'shelf';
    // Every label's place in the row first, so an occluder can be kept off the neighbours.
    const labelRects = row.groups.map((g) => {
      const lr = rng.fork(`label-place-${g.product.sku}`);
      const x = alignLeft && !peg ? g.x : g.x + (g.width - g.art.width) / 2;
      const y =
        row.kind === 'peg-tags-above'
          ? row.railY + (row.zoneTop - row.railY) * 0.25
          : row.stripTop + row.lip + lr.float(-0.6, 0.6) * u;
      return { x0: x, y0: y, x1: x + g.art.width, y1: y + g.art.height };
    });
    for (const [gi, g] of row.groups.entries()) {
      const pr = rng.fork(`place-${g.product.sku}`);
      const art = g.art;
      const packsW = g.units * g.packW + (g.units - 1) * g.gap;
      const packsX = alignLeft ? g.x + Math.min(g.width - packsW, pr.float(0, 4 * u)) : g.x + (g.width - packsW) / 2;
      const labelRect = labelRects[gi];
      const labelX = labelRect.x0;
      const labelY = labelRect.y0;
      const others = labelRects.filter((_, i) => i !== gi);
      // A stack two high where packs are short enough (cans, tubs, small boxes).
      const stacked =
        !peg &&
        ['can', 'tub', 'jar', 'box'].includes(g.product.kind) &&
        g.packH * 2.05 < row.zoneBottom - row.zoneTop &&
        pr.chance(0.5);
      const packs: { x: number; bottom: number }[] = [];
      for (let i = 0; i < g.units; i++) {
        const px = packsX + i * (g.packW + g.gap) + pr.float(-0.25, 0.25) * g.gap;
        if (peg) packs.push({ x: px, bottom: row.zoneTop + g.packH + pr.float(0, 2 * u) });
        else {
          packs.push({ x: px, bottom: row.zoneBottom - pr.float(0, 1.5 * u) });
          if (stacked) packs.push({ x: px, bottom: row.zoneBottom - g.packH - 1 });
        }
      }
      // A tag hanging from its hook swings a little.
      const angle = row.kind === 'peg-tags-above' ? pr.float(-4, 4) : 0;

      // Occlusion (shelf strips only), never over the price.
      let occluder: Occluder | null = null;
      let overhang = -1;
      let overhangDrop = 0;
      if (!peg && pr.chance(0.14)) {
        const protect = art.protect.map((p) => shift(p, labelX, labelY));
        const priceX = protect.reduce((s, p) => s + (p.x0 + p.x1) / 2, 0) / Math.max(1, protect.length);
        const freeLeft = priceX > (labelRect.x0 + labelRect.x1) / 2;
        const ok = (shapes: Shape[]) =>
          protect.every((p) => coverage(p, shapes, 12, 6) === 0) &&
          coverage(labelRect, shapes) <= 0.3 &&
          others.every(
            (o) => coverage({ x0: o.x0 - 2, y0: o.y0 - 2, x1: o.x1 + 2, y1: o.y1 + 2 }, shapes, 24, 12) === 0,
          );
        const kind = pr.weighted([
          ['pack-overhang', stacked ? 0 : 2],
          ['wobbler', 2],
          ['clip-strip', 1],
        ] as const);
        const lw = art.width,
          lh = art.height;
        for (let tries = 0; tries < 6 && !occluder; tries++) {
          const k = 1 - tries * 0.13;
          if (kind === 'pack-overhang') {
            // The end pack on the free side slid forward over the shelf edge.
            const idx = freeLeft ? 0 : g.units - 1;
            const pk = packs[stacked ? idx * 2 : idx];
            const drop = labelRect.y0 - pk.bottom + lh * pr.float(0.25, 0.45) * k;
            const rect: Rect = { x0: pk.x, y0: pk.bottom + drop - g.packH, x1: pk.x + g.packW, y1: pk.bottom + drop };
            const shapes: Shape[] = [{ kind: 'rect', r: rect }];
            const c = coverage(labelRect, shapes);
            if (c >= 0.05 && ok(shapes)) {
              occluder = { kind, fraction: Math.round(c * 100) / 100 };
              overhang = stacked ? idx * 2 : idx;
              overhangDrop = drop;
            }
          } else if (kind === 'wobbler') {
            const radius = lh * pr.float(0.3, 0.42) * k;
            const cx = freeLeft ? labelRect.x0 + radius * 0.35 : labelRect.x1 - radius * 0.35;
            const cy = labelRect.y0 + lh * pr.float(0.05, 0.3);
            // The disc and its clear stalk down to the shelf edge.
            const stalk: Rect = { x0: cx - 1.5 * u, y0: cy, x1: cx + 1.5 * u, y1: row.bottom };
            const shapes: Shape[] = [
              { kind: 'circle', cx, cy, radius },
              { kind: 'rect', r: stalk },
            ];
            const c = coverage(labelRect, shapes);
            if (c >= 0.05 && ok(shapes)) {
              occluder = { kind, fraction: Math.round(c * 100) / 100 };
              const text = pr.pick(['NEW', 'TRY ME', 'LOCAL', 'VEGAN', 'HOT']);
              const colour = pr.pick(['#e4002b', '#00843d', '#ff6f00', '#6d2077', '#0072ce']);
              fg.push(
                `<rect x="${f(cx - 1.5 * u)}" y="${f(cy)}" width="${f(3 * u)}" height="${f(row.bottom - cy)}" fill="#dfe8ee" fill-opacity="0.55"/>` +
                  `<circle cx="${f(cx + u)}" cy="${f(cy + 1.5 * u)}" r="${f(radius)}" fill="#000" fill-opacity="0.25"/>` +
                  `<circle cx="${f(cx)}" cy="${f(cy)}" r="${f(radius)}" fill="${colour}" stroke="#ffffff" stroke-width="${f(Math.max(1.5, 2 * u))}"/>` +
                  svgText({
                    x: cx,
                    y: cy + radius * 0.14,
                    text,
                    font: FONTS.sansBold,
                    size: (radius * 1.3) / Math.max(2.4, text.length * 0.62),
                    fill: '#ffffff',
                    anchor: 'middle',
                  }),
              );
            }
          } else {
            // A clip strip of sachets hanging from the shelf above, over the label's free end.
            const sw = lw * pr.float(0.16, 0.26) * k;
            const sx = freeLeft ? labelRect.x0 - sw * 0.15 : labelRect.x1 - sw * 0.85;
            const stripRect: Rect = { x0: sx, y0: row.top, x1: sx + sw, y1: labelRect.y1 + lh * 0.6 };
            const shapes: Shape[] = [{ kind: 'rect', r: stripRect }];
            const c = coverage(labelRect, shapes);
            if (c >= 0.05 && ok(shapes)) {
              occluder = { kind, fraction: Math.round(c * 100) / 100 };
              const colour = pr.pick(['#ffb300', '#8e24aa', '#43a047', '#e53935']);
              let clip = `<rect x="${f(sx + sw * 0.42)}" y="${f(row.top)}" width="${f(sw * 0.16)}" height="${f(stripRect.y1 - row.top)}" fill="#cfd8dc" fill-opacity="0.8"/>`;
              for (let y = row.top + sw * 0.2; y + sw * 0.9 < stripRect.y1; y += sw * 1.05) {
                clip += `<rect x="${f(sx)}" y="${f(y)}" width="${f(sw)}" height="${f(sw * 0.95)}" rx="${f(sw * 0.08)}" fill="${colour}"/>`;
                clip += `<rect x="${f(sx + sw * 0.15)}" y="${f(y + sw * 0.3)}" width="${f(sw * 0.7)}" height="${f(sw * 0.3)}" fill="#ffffff" fill-opacity="0.8"/>`;
              }
              clip += `<rect x="${f(sx)}" y="${f(stripRect.y1 - sw * 0.9)}" width="${f(sw)}" height="${f(sw * 0.9)}" rx="${f(sw * 0.08)}" fill="${colour}"/>`;
              fg.push(clip);
            }
          }
        }
      }

      // Draw the packs (the overhanging one in front of the label).
      const packRects: Rect[] = [];
      for (const [i, pk] of packs.entries()) {
        const bottom = i === overhang ? pk.bottom + overhangDrop : pk.bottom;
        const svg = drawPack(g.product, { x: pk.x, bottom, w: g.packW, h: g.packH });
        if (i === overhang) fg.unshift(`<g>${svg}</g>`);
        else bgPacks.push(svg);
        packRects.push({ x0: pk.x, y0: bottom - g.packH, x1: pk.x + g.packW, y1: bottom });
        if (peg) {
          // The hook wire goes through the pack's hang hole, in front of it.
          const hy = bottom - g.packH + g.packH * 0.07;
          const hx = pk.x + g.packW / 2;
          // Behind the tags where tags hang in front of the packs, so no wire crosses a price.
          (row.kind === 'peg-tags-above' ? hooksBehind : hooks).push(
            `<line x1="${f(hx)}" y1="${f(row.railY)}" x2="${f(hx)}" y2="${f(hy)}" stroke="#b0b6ba" stroke-width="${f(Math.max(2, 2.2 * u))}" stroke-linecap="round"/>`,
          );
        }
      }

      // The label image, turned for a swinging peg tag.
      let input = await renderLabel(art);
      let left = Math.round(labelX);
      let top = Math.round(labelY);
      const cx = labelX + art.width / 2,
        cy = labelY + art.height / 2;
      // Where the (possibly turned) label's centre lands after rounding to whole pixels.
      let centre: [number, number] = [left + art.width / 2, top + art.height / 2];
      if (angle !== 0) {
        const turned = await sharp(input)
          .rotate(angle, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
          .png()
          .toBuffer({ resolveWithObject: true });
        input = turned.data;
        left = Math.round(cx - turned.info.width / 2);
        top = Math.round(cy - turned.info.height / 2);
        centre = [left + turned.info.width / 2, top + turned.info.height / 2];
        if (art.hole) {
          // The tag's own hook, from the rail to its hole.
          const a = (angle * Math.PI) / 180;
          const hx0 = labelX + art.hole.cx - cx,
            hy0 = labelY + art.hole.cy - cy;
          const hx = cx + hx0 * Math.cos(a) - hy0 * Math.sin(a);
          const hy = cy + hx0 * Math.sin(a) + hy0 * Math.cos(a);
          hooks.push(
            `<line x1="${f(hx)}" y1="${f(row.railY)}" x2="${f(hx)}" y2="${f(hy)}" stroke="#9aa1a6" stroke-width="${f(Math.max(2, 2.4 * u))}" stroke-linecap="round"/>`,
          );
        }
      }
      labelLayers.push({ input, left, top });
      labelShadows.push(
        // A soft-edged drop shadow from two offset rectangles (an SVG blur filter costs seconds).
        `<rect x="${f(centre[0] - art.width / 2 + 0.6 * u)}" y="${f(centre[1] - art.height / 2 + 1 * u)}" width="${art.width + u}" height="${art.height + u}" fill="#000" fill-opacity="0.12"/>` +
          `<rect x="${f(centre[0] - art.width / 2 + 1.2 * u)}" y="${f(centre[1] - art.height / 2 + 1.8 * u)}" width="${art.width}" height="${art.height}" fill="#000" fill-opacity="0.16"/>`,
      );
      const a = (angle * Math.PI) / 180;
      const corners: [number, number][] = [
        [-art.width / 2, -art.height / 2],
        [art.width / 2, -art.height / 2],
        [art.width / 2, art.height / 2],
        [-art.width / 2, art.height / 2],
      ].map(([dx, dy]) => [
        centre[0] + dx * Math.cos(a) - dy * Math.sin(a),
        centre[1] + dx * Math.sin(a) + dy * Math.cos(a),
      ]);
      products.push({
        product: g.product,
        price: g.price,
        art,
        row: r,
        units: g.units,
        stacked,
        packs: packRects,
        labelCorners: corners,
        labelAngle: Math.round(angle * 10) / 10,
        occluder,
      });
    }
  }

  const background = drawBackground(width, height, safe, rows, theme, u, rng);
  const bgSvg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<defs>${PACK_DEFS}` +
    `<linearGradient id="under" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0.45"/><stop offset="1" stop-color="#000" stop-opacity="0"/></linearGradient></defs>` +
    background.behind +
    bgPacks.join('') +
    hooksBehind.join('') +
    background.front +
    labelShadows.join('') +
    `</svg>`;
  // Clear plastic rail covers catch a faint highlight across the labels.
  const rails = rows
    .filter((row) => row.stripH > 0)
    .map(
      (row) =>
        `<rect x="0" y="${f(row.stripTop + row.lip * 0.4)}" width="${width}" height="${f(row.stripH * 0.22)}" fill="#ffffff" fill-opacity="${rng.float(0.03, 0.1).toFixed(2)}"/>`,
    )
    .join('');
  const fgSvg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs>${PACK_DEFS}</defs>` +
    rails +
    hooks.join('') +
    fg.join('') +
    `</svg>`;
  return {
    width,
    height,
    rowKinds: kinds,
    products,
    emptyFacings: rows.flatMap((row) => row.empties),
    priceStyle,
    houseStyles,
    labelScale: Math.round(u * 100) / 100,
    panel: background.panel,
    holeTile: background.holeTile,
    background: bgSvg,
    foreground: fgSvg,
    labelLayers,
  };
}

/** Back panel, uprights, shelves and strips: `behind` goes under the packs, `front` over them. */
function drawBackground(
  width: number,
  height: number,
  safe: Rect,
  rows: Row[],
  theme: Theme,
  u: number,
  rng: Rng,
): { behind: string; front: string; panel: string; holeTile: string | null } {
  const panel = rng.pick(['#e9e9e6', '#f4f4f2', '#d8d4cc', '#c9ced3', '#3a3d40', '#efe7da']);
  const darkPanel = panel === '#3a3d40';
  const holes = rng.chance(0.6);
  const pitch = Math.max(10, 16 * u);
  // The shelf-edge strip stands out from the panel behind it, as real ones do.
  const luma = (hex: string) => {
    const v = parseInt(hex.slice(1), 16);
    return 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  };
  const strips = ['#d0d3d6', '#f5f5f5', '#2b2b2b', theme.accent, '#b9bec4', '#8d949a'];
  const strip = rng.pick(strips.filter((c) => Math.abs(luma(c) - luma(panel)) > 28));
  const shelfTop = rng.pick(['#c8cbce', '#e6e6e6', '#a7a9ab']);
  const post = rng.pick(['#9ea3a8', '#6f757a', '#dcdcdc']);
  const postW = Math.max(14, 22 * u);
  // Pegboard holes are one small tile that sharp repeats (librsvg patterns take a minute at 4032 px).
  const tile = Math.round(pitch * 4);
  const holeTile = holes
    ? `<svg xmlns="http://www.w3.org/2000/svg" width="${tile}" height="${tile}">` +
      Array.from({ length: 16 }, (_, i) => {
        const hx = ((i % 4) + 0.5) * (tile / 4);
        const hy = (Math.floor(i / 4) + 0.5) * (tile / 4);
        return `<circle cx="${f(hx)}" cy="${f(hy)}" r="${f(Math.max(1.2, pitch * 0.09))}" fill="${darkPanel ? '#1c1e20' : '#8c8c8c'}" fill-opacity="0.55"/>`;
      }).join('') +
      `</svg>`
    : null;
  let behind = '';
  // Neighbouring bays a shade darker, beyond the uprights.
  behind += `<rect x="0" y="0" width="${f(safe.x0 - postW)}" height="${height}" fill="#000" fill-opacity="0.12"/>`;
  behind += `<rect x="${f(safe.x1 + postW)}" y="0" width="${f(width - safe.x1 - postW)}" height="${height}" fill="#000" fill-opacity="0.12"/>`;
  for (const x of [safe.x0 - postW, safe.x1]) {
    behind += `<rect x="${f(x)}" y="0" width="${f(postW)}" height="${height}" fill="${post}"/>`;
    // The upright's slot column.
    for (let y = postW * 0.2; y < height; y += postW * 1.2) {
      behind += `<rect x="${f(x + postW * 0.4)}" y="${f(y)}" width="${f(postW * 0.2)}" height="${f(postW * 0.6)}" fill="#333" fill-opacity="0.6"/>`;
    }
  }
  let front = '';
  // The shelf above the first row (its labels are out of the frame) and the base under the last.
  const first = rows[0];
  const topStripH = first.stripH > 0 ? first.stripH : 30 * u;
  front += `<rect x="0" y="${f(first.top - topStripH)}" width="${width}" height="${f(topStripH)}" fill="${strip}"/>`;
  behind += `<rect x="0" y="${f(first.top)}" width="${width}" height="${f((first.bottom - first.top) * 0.14)}" fill="url(#under)"/>`;
  const last = rows[rows.length - 1];
  front += `<rect x="0" y="${f(last.bottom)}" width="${width}" height="${f(height - last.bottom)}" fill="#4a4d50"/>`;
  for (const [i, row] of rows.entries()) {
    const rowH = row.bottom - row.top;
    if (i > 0)
      behind += `<rect x="0" y="${f(row.top)}" width="${width}" height="${f(rowH * 0.14)}" fill="url(#under)"/>`;
    if (row.kind === 'shelf') {
      const surface = Math.max(3, rowH * 0.02);
      behind += `<rect x="0" y="${f(row.stripTop - surface)}" width="${width}" height="${f(surface)}" fill="${shelfTop}"/>`;
    }
    if (row.kind !== 'shelf') {
      // The peg rail across the bay.
      behind += `<rect x="${f(safe.x0 - postW)}" y="${f(row.railY - 3 * u)}" width="${f(safe.x1 - safe.x0 + 2 * postW)}" height="${f(Math.max(5, 7 * u))}" fill="url(#metal)"/>`;
    }
    if (row.stripH > 0) {
      const lipH = Math.max(1.5, row.lip * 0.45);
      front += `<rect x="0" y="${f(row.stripTop)}" width="${width}" height="${f(row.stripH)}" fill="${strip}"/>`;
      front += `<rect x="0" y="${f(row.stripTop)}" width="${width}" height="${f(lipH)}" fill="#ffffff" fill-opacity="0.35"/>`;
      front += `<rect x="0" y="${f(row.stripTop + row.stripH - lipH)}" width="${width}" height="${f(lipH)}" fill="#000" fill-opacity="0.25"/>`;
    }
  }
  return { behind, front, panel, holeTile };
}

/** The flat scene as raw RGB: background and packs, the labels, then what hangs in front. */
export async function renderScene(scene: Scene): Promise<Buffer> {
  const layers: OverlayOptions[] = [];
  if (scene.holeTile) {
    const tile = await sharp(Buffer.from(scene.holeTile)).png().toBuffer();
    layers.push({ input: tile, tile: true, left: 0, top: 0 });
  }
  // Composited in one pass; flattened to a plain RGB image for the camera.
  const flat = await sharp({
    create: { width: scene.width, height: scene.height, channels: 3, background: scene.panel },
  })
    .composite([
      ...layers,
      { input: Buffer.from(scene.background), left: 0, top: 0 },
      ...scene.labelLayers,
      { input: Buffer.from(scene.foreground), left: 0, top: 0 },
    ])
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (flat.info.channels === 3) return flat.data;
  // Composite leaves an alpha channel: drop it (the panel below is opaque).
  const n = scene.width * scene.height;
  const rgb = Buffer.alloc(n * 3);
  const step = flat.info.channels;
  for (let i = 0, j = 0; i < n; i++, j += step) {
    rgb[i * 3] = flat.data[j];
    rgb[i * 3 + 1] = flat.data[j + 1];
    rgb[i * 3 + 2] = flat.data[j + 2];
  }
  return rgb;
}
