// Text for SVG: the fonts this machine has, a width estimate from Helvetica-like advance widths (scaled
// per font), and helpers that shrink or squeeze a string until it fits its box. librsvg draws the text;
// the estimate only decides sizes, so it errs on the wide side.

export type FontKey =
  'dejavu' | 'dejavu-condensed' | 'dejavu-serif' | 'dejavu-mono' | 'lib' | 'lib-narrow' | 'lib-serif' | 'lib-mono';

interface FontInfo {
  family: string;
  stretch?: string;
  /** Width relative to Helvetica; for monospaced fonts, the advance in ems. */
  factor: number;
  mono: boolean;
  bold: number;
}

export const FONTS: Readonly<Record<FontKey, FontInfo>> = {
  dejavu: { family: 'DejaVu Sans', factor: 1.13, mono: false, bold: 1.1 },
  'dejavu-condensed': { family: 'DejaVu Sans', stretch: 'condensed', factor: 1.03, mono: false, bold: 1.1 },
  'dejavu-serif': { family: 'DejaVu Serif', factor: 1.16, mono: false, bold: 1.1 },
  'dejavu-mono': { family: 'DejaVu Sans Mono', factor: 0.602, mono: true, bold: 1 },
  lib: { family: 'Liberation Sans', factor: 1.0, mono: false, bold: 1.07 },
  'lib-narrow': { family: 'Liberation Sans Narrow', factor: 0.83, mono: false, bold: 1.07 },
  'lib-serif': { family: 'Liberation Serif', factor: 0.93, mono: false, bold: 1.08 },
  'lib-mono': { family: 'Liberation Mono', factor: 0.6, mono: true, bold: 1 },
};

export const SANS_FONTS: readonly FontKey[] = ['dejavu', 'dejavu-condensed', 'lib', 'lib-narrow'];
export const ALL_FONTS = Object.keys(FONTS) as FontKey[];

// Helvetica advance widths (1/1000 em) for ASCII 32..126.
const WIDTHS = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556,
  556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833,
  722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556,
  556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334,
  260, 334, 584,
];

export interface FontStyle {
  font: FontKey;
  bold?: boolean;
  italic?: boolean;
  /** Extra space between letters, in ems. */
  spacing?: number;
}

/** Estimated advance width of `text` at `size` px. */
export function textWidth(text: string, style: FontStyle, size: number): number {
  const info = FONTS[style.font];
  let units = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 32;
    if (info.mono) units += 1000;
    else units += code >= 32 && code <= 126 ? WIDTHS[code - 32] : 580;
  }
  const em = info.mono ? info.factor : info.factor / 1000;
  const perChar = info.mono ? units / 1000 : units;
  let w = perChar * em * size * (style.bold ? info.bold : 1);
  if (style.spacing) w += style.spacing * size * Math.max(0, [...text].length - 1);
  return w;
}

/** Largest size in [minSize, maxSize] at which `text` fits `maxWidth` (minSize when none does). */
export function fitSize(text: string, style: FontStyle, maxWidth: number, maxSize: number, minSize = 1): number {
  const w = textWidth(text, style, maxSize);
  if (w <= maxWidth) return maxSize;
  return Math.max(minSize, (maxSize * maxWidth) / w);
}

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function fontAttrs(style: FontStyle, size: number): string {
  const info = FONTS[style.font];
  let a = `font-family="${info.family}" font-size="${size.toFixed(2)}"`;
  if (info.stretch) a += ` font-stretch="${info.stretch}"`;
  if (style.bold) a += ' font-weight="bold"';
  if (style.italic) a += ' font-style="italic"';
  if (style.spacing) a += ` letter-spacing="${(style.spacing * size).toFixed(2)}"`;
  return a;
}

export interface TextSpec extends FontStyle {
  x: number;
  /** Baseline. */
  y: number;
  size: number;
  fill: string;
  anchor?: 'start' | 'middle' | 'end';
  /** Squeeze horizontally (never below 70 %) when the estimate is wider than this. */
  maxWidth?: number;
  opacity?: number;
}

/** One line of text; squeezed horizontally when it would overflow `maxWidth`. */
export function textSvg(text: string, t: TextSpec): string {
  if (text === '') return '';
  const width = textWidth(text, t, t.size);
  const sx = t.maxWidth !== undefined && width > t.maxWidth ? Math.max(0.7, t.maxWidth / width) : 1;
  const anchor = t.anchor && t.anchor !== 'start' ? ` text-anchor="${t.anchor}"` : '';
  const op = t.opacity !== undefined ? ` fill-opacity="${t.opacity.toFixed(2)}"` : '';
  const attrs = `${fontAttrs(t, t.size)} fill="${t.fill}"${anchor}${op}`;
  if (sx === 1) return `<text x="${t.x.toFixed(2)}" y="${t.y.toFixed(2)}" ${attrs}>${esc(text)}</text>`;
  return `<text transform="translate(${t.x.toFixed(2)} ${t.y.toFixed(2)}) scale(${sx.toFixed(3)} 1)" ${attrs}>${esc(text)}</text>`;
}

/** A run of text in parts of different sizes and heights, e.g. a price with raised pence. */
export interface Span {
  t: string;
  /** Size relative to the run's size. */
  rel: number;
  /** Raise above the baseline, in ems of the run's size. */
  raise: number;
}

export function spansWidth(spans: readonly Span[], style: FontStyle, size: number): number {
  return spans.reduce((sum, s) => sum + textWidth(s.t, style, size * s.rel), 0);
}

export function spansSvg(spans: readonly Span[], t: TextSpec): string {
  const width = spansWidth(spans, t, t.size);
  const sx = t.maxWidth !== undefined && width > t.maxWidth ? Math.max(0.7, t.maxWidth / width) : 1;
  const anchor = t.anchor && t.anchor !== 'start' ? ` text-anchor="${t.anchor}"` : '';
  let raised = 0;
  let inner = '';
  for (const s of spans) {
    const dy = -(s.raise - raised) * t.size;
    raised = s.raise;
    const dyAttr = Math.abs(dy) > 0.001 ? ` dy="${dy.toFixed(2)}"` : '';
    inner += `<tspan font-size="${(t.size * s.rel).toFixed(2)}"${dyAttr}>${esc(s.t)}</tspan>`;
  }
  const attrs = `${fontAttrs(t, t.size)} fill="${t.fill}"${anchor}`;
  const pos =
    sx === 1
      ? `x="${t.x.toFixed(2)}" y="${t.y.toFixed(2)}"`
      : `transform="translate(${t.x.toFixed(2)} ${t.y.toFixed(2)}) scale(${sx.toFixed(3)} 1)"`;
  return `<text ${pos} ${attrs}>${inner}</text>`;
}

/** Words of `text` broken greedily into lines no wider than `maxWidth` at `size`. */
export function wrap(text: string, style: FontStyle, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, style, size) > maxWidth) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * The biggest size (at most maxSize) at which `text`, wrapped into at most `maxLines` lines, fits a
 * box of maxWidth x maxHeight (lines spaced 1.15 em), and those lines.
 */
export function fitWrapped(
  text: string,
  style: FontStyle,
  maxWidth: number,
  maxHeight: number,
  maxSize: number,
  maxLines: number,
): { size: number; lines: string[] } {
  let size = Math.min(maxSize, maxHeight / 1.15);
  for (let i = 0; i < 40; i++) {
    const lines = wrap(text, style, size, maxWidth);
    const tooWide = lines.some((l) => textWidth(l, style, size) > maxWidth);
    if (lines.length <= maxLines && lines.length * size * 1.15 <= maxHeight && !tooWide) return { size, lines };
    size *= 0.92;
  }
  return { size, lines: wrap(text, style, size, maxWidth).slice(0, maxLines) };
}
