// Fonts and text for SVG layers. librsvg (inside sharp) draws the text with the machine's fonts, but
// laying out a label needs text widths before drawing: we read the advance widths straight from the
// TrueType file fontconfig picks for each face (the same file librsvg will use), so text is fitted,
// wrapped and measured without a canvas. No fonts are downloaded; if fc-match or a file is missing,
// a deliberately wide estimate is used so text still fits (just a little smaller).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type Font = {
  /** The SVG font-family list, installed faces first, generic family last. */
  family: string;
  weight: 'normal' | 'bold';
  stretch: 'normal' | 'condensed';
  style: 'normal' | 'italic';
  /** The fontconfig pattern used to find the file for metrics. */
  pattern: string;
};

const font = (
  family: string,
  pattern: string,
  weight: Font['weight'],
  stretch: Font['stretch'],
  style: Font['style'],
) => ({ family, pattern, weight, stretch, style }) satisfies Font;

const SANS = "'DejaVu Sans', 'Liberation Sans', sans-serif";
const SANS_COND = "'DejaVu Sans Condensed', 'DejaVu Sans', 'Liberation Sans Narrow', sans-serif";
const SERIF = "'DejaVu Serif', 'Liberation Serif', serif";
const SERIF_COND = "'DejaVu Serif Condensed', 'DejaVu Serif', serif";
const MONO = "'DejaVu Sans Mono', 'Liberation Mono', monospace";

export const FONTS = {
  sans: font(SANS, 'DejaVu Sans', 'normal', 'normal', 'normal'),
  sansBold: font(SANS, 'DejaVu Sans:bold', 'bold', 'normal', 'normal'),
  sansCond: font(SANS_COND, 'DejaVu Sans:width=75', 'normal', 'condensed', 'normal'),
  sansCondBold: font(SANS_COND, 'DejaVu Sans:bold:width=75', 'bold', 'condensed', 'normal'),
  sansItalic: font(SANS, 'DejaVu Sans:oblique', 'normal', 'normal', 'italic'),
  serif: font(SERIF, 'DejaVu Serif', 'normal', 'normal', 'normal'),
  serifBold: font(SERIF, 'DejaVu Serif:bold', 'bold', 'normal', 'normal'),
  serifItalic: font(SERIF, 'DejaVu Serif:italic', 'normal', 'normal', 'italic'),
  serifCondBold: font(SERIF_COND, 'DejaVu Serif:bold:width=75', 'bold', 'condensed', 'normal'),
  mono: font(MONO, 'DejaVu Sans Mono', 'normal', 'normal', 'normal'),
  monoBold: font(MONO, 'DejaVu Sans Mono:bold', 'bold', 'normal', 'normal'),
} as const;

type Metrics = { unitsPerEm: number; advances: Map<number, number>; fallback: number };

const metricsCache = new Map<string, Metrics>();

/** Advance widths from a TrueType file: head (units per em), hhea + hmtx (advances), cmap format 4. */
function parseTtf(bytes: Buffer): Metrics {
  const tables = new Map<string, number>();
  const numTables = bytes.readUInt16BE(4);
  for (let i = 0; i < numTables; i++) {
    const rec = 12 + i * 16;
    tables.set(bytes.toString('latin1', rec, rec + 4), bytes.readUInt32BE(rec + 8));
  }
  const head = tables.get('head')!;
  const hhea = tables.get('hhea')!;
  const hmtx = tables.get('hmtx')!;
  const cmap = tables.get('cmap')!;
  const unitsPerEm = bytes.readUInt16BE(head + 18);
  const numberOfHMetrics = bytes.readUInt16BE(hhea + 34);
  const advanceOf = (glyph: number) => bytes.readUInt16BE(hmtx + 4 * Math.min(glyph, numberOfHMetrics - 1));
  // Find the Unicode BMP subtable (platform 3 encoding 1, or platform 0).
  let sub = -1;
  const n = bytes.readUInt16BE(cmap + 2);
  for (let i = 0; i < n; i++) {
    const platform = bytes.readUInt16BE(cmap + 4 + i * 8);
    const encoding = bytes.readUInt16BE(cmap + 6 + i * 8);
    const offset = bytes.readUInt32BE(cmap + 8 + i * 8);
    if (bytes.readUInt16BE(cmap + offset) !== 4) continue;
    if ((platform === 3 && encoding === 1) || platform === 0) sub = cmap + offset;
  }
  const advances = new Map<number, number>();
  if (sub >= 0) {
    const segX2 = bytes.readUInt16BE(sub + 6);
    const ends = sub + 14;
    const starts = ends + segX2 + 2;
    const deltas = starts + segX2;
    const rangeOffsets = deltas + segX2;
    for (let s = 0; s < segX2 / 2; s++) {
      const end = bytes.readUInt16BE(ends + 2 * s);
      const start = bytes.readUInt16BE(starts + 2 * s);
      const delta = bytes.readInt16BE(deltas + 2 * s);
      const rangeOffset = bytes.readUInt16BE(rangeOffsets + 2 * s);
      // Only the characters labels and packs use: Latin-1 and a few symbols.
      for (let c = start; c <= Math.min(end, 0x20ff); c++) {
        let glyph: number;
        if (rangeOffset === 0) glyph = (c + delta) & 0xffff;
        else {
          const at = rangeOffsets + 2 * s + rangeOffset + 2 * (c - start);
          glyph = bytes.readUInt16BE(at);
          if (glyph !== 0) glyph = (glyph + delta) & 0xffff;
        }
        if (glyph !== 0) advances.set(c, advanceOf(glyph));
      }
    }
  }
  return { unitsPerEm, advances, fallback: unitsPerEm * 0.75 };
}

function metricsFor(f: Font): Metrics {
  const cached = metricsCache.get(f.pattern);
  if (cached) return cached;
  let metrics: Metrics;
  try {
    const file = execFileSync('fc-match', ['-f', '%{file}', f.pattern], { encoding: 'utf8' }).trim();
    metrics = parseTtf(readFileSync(file));
  } catch {
    // No fontconfig or an odd file: an over-estimate keeps text inside its box.
    metrics = { unitsPerEm: 1000, advances: new Map(), fallback: f.pattern.includes('Mono') ? 620 : 760 };
  }
  metricsCache.set(f.pattern, metrics);
  return metrics;
}

/** The drawn width of a string in pixels (kerning ignored: it only makes the real text narrower). */
export function textWidth(text: string, f: Font, size: number, letterSpacing = 0): number {
  const m = metricsFor(f);
  let units = 0;
  for (const ch of text) {
    // The yen kanji is drawn as a path one em wide (no CJK font is assumed).
    units += ch === '円' ? m.unitsPerEm : (m.advances.get(ch.codePointAt(0)!) ?? m.fallback);
  }
  return (units / m.unitsPerEm) * size + letterSpacing * Math.max(0, [...text].length - 1);
}

/** Height of capitals and digits above the baseline, as a share of the font size (DejaVu: 0.73). */
export const CAP_HEIGHT = 0.73;

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export type TextOptions = {
  x: number;
  y: number;
  text: string;
  font: Font;
  size: number;
  fill: string;
  anchor?: 'start' | 'middle' | 'end';
  letterSpacing?: number;
  opacity?: number;
};

/** The 円 sign as strokes, sized like a capital at `size` (the machine has no CJK font). */
function yenKanji(x: number, baseline: number, size: number, fill: string, bold: boolean): string {
  const w = size * 0.86;
  const top = baseline - size * 0.8;
  const bottom = baseline + size * 0.06;
  const sw = size * (bold ? 0.1 : 0.07);
  const l = x + size * 0.08;
  const r = l + w - size * 0.12;
  const mid = top + (bottom - top) * 0.52;
  const cx = (l + r) / 2;
  const d = [
    `M${l},${bottom} L${l},${top} L${r},${top} L${r},${bottom - size * 0.06} L${r - size * 0.12},${bottom}`,
    `M${cx},${top} L${cx},${mid}`,
    `M${l},${mid} L${r},${mid}`,
  ].join(' ');
  return `<path d="${d}" fill="none" stroke="${fill}" stroke-width="${sw.toFixed(2)}" stroke-linejoin="miter"/>`;
}

/** One line of SVG text; handles the 円 sign by drawing it as a path after the digits. */
export function svgText(o: TextOptions): string {
  const anchor = o.anchor ?? 'start';
  const spacing = o.letterSpacing ?? 0;
  const attrs = (text: string, x: number, a: string) =>
    `<text x="${x.toFixed(1)}" y="${o.y.toFixed(1)}" font-family="${o.font.family}" font-size="${o.size.toFixed(1)}" ` +
    `font-weight="${o.font.weight}" font-stretch="${o.font.stretch}" font-style="${o.font.style}" fill="${o.fill}" ` +
    `text-anchor="${a}" xml:space="preserve"${spacing ? ` letter-spacing="${spacing.toFixed(2)}"` : ''}` +
    `${o.opacity !== undefined ? ` fill-opacity="${o.opacity}"` : ''}>${escapeXml(text)}</text>`;
  if (!o.text.includes('円')) return attrs(o.text, o.x, anchor);
  const total = textWidth(o.text, o.font, o.size, spacing);
  let x = anchor === 'start' ? o.x : anchor === 'middle' ? o.x - total / 2 : o.x - total;
  let out = '';
  for (const part of o.text.split(/(円)/)) {
    if (!part) continue;
    if (part === '円') {
      out += yenKanji(x, o.y, o.size, o.fill, o.font.weight === 'bold');
      x += o.size;
    } else {
      out += attrs(part, x, 'start');
      x += textWidth(part, o.font, o.size, spacing) + spacing;
    }
  }
  return out;
}

/**
 * Greedy word wrap into at most `maxLines` lines no wider than `maxWidth`; null if it cannot fit
 * (a single word too wide, or too many lines).
 */
export function wrap(text: string, f: Font, size: number, maxWidth: number, maxLines: number): string[] | null {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const candidate = line ? `${line} ${word}` : word;
    if (textWidth(candidate, f, size) <= maxWidth) line = candidate;
    else {
      if (!line) return null;
      lines.push(line);
      line = word;
      if (textWidth(line, f, size) > maxWidth) return null;
    }
  }
  if (line) lines.push(line);
  return lines.length <= maxLines ? lines : null;
}

/**
 * The largest size in [min, max] at which `text` wraps into `maxLines` within `maxWidth`. When even
 * the minimum does not fit, returns the minimum and the width the text needs (the caller widens).
 */
export function fitText(
  text: string,
  f: Font,
  maxSize: number,
  minSize: number,
  maxWidth: number,
  maxLines: number,
): { size: number; lines: string[]; width: number } {
  for (let size = maxSize; size >= minSize; size -= 0.5) {
    const lines = wrap(text, f, size, maxWidth, maxLines);
    if (lines) return { size, lines, width: Math.max(...lines.map((l) => textWidth(l, f, size))) };
  }
  // Balanced split into maxLines at the minimum size; the widest line sets the width needed.
  const words = text.split(/\s+/).filter(Boolean);
  const per = Math.ceil(words.length / maxLines);
  const lines: string[] = [];
  for (let i = 0; i < words.length; i += per) lines.push(words.slice(i, i + per).join(' '));
  return { size: minSize, lines, width: Math.max(...lines.map((l) => textWidth(l, f, minSize))) };
}
