// The third generator: synthetic shelf photos written apart from the recognizer and from the other two
// generators — no code, constants, word lists or ideas taken from src/modules/recognition,
// scripts/synth/*.ts, scripts/synth/second-generator, scripts/eval, test/fixtures or their docs, bar
// the second generator's stream of random numbers (random.ts) and the file formats' types. Its
// photos are for CHECKING a product recognizer on shelves it was never tuned on, never for tuning it:
// a threshold or rule changed until these photos pass spoils them as a check (make a fresh seed then).
//
//   npm run synth:third -- --out DIR [--count 12] [--seed N] [--min-width 1280] [--max-width 4032] [--max-kb N]
//
// Writes DIR/catalogue.json and DIR/shelf-NN.jpg + shelf-NN.json (format and rules: generator.ts).
// Deterministic: one seed (and the same options) gives byte-identical files. --max-kb lowers the JPEG
// quality in steps of 5, not below 55, until the file fits.
import sharp from 'sharp';
import { generate } from './generator.js';

function parse(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument: ${a}`);
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) throw new Error(`${a} needs a value`);
      out[a.slice(2)] = v;
      i++;
    }
  }
  return out;
}

const KNOWN = new Set(['out', 'count', 'seed', 'min-width', 'max-width', 'max-kb']);

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  for (const k of Object.keys(args)) if (!KNOWN.has(k)) throw new Error(`unknown option --${k}`);
  if (!args.out)
    throw new Error(
      'usage: generate.ts --out DIR [--count 12] [--seed N] [--min-width 1280] [--max-width 4032] [--max-kb N]',
    );
  const num = (k: string): number | undefined => {
    if (args[k] === undefined) return undefined;
    const v = Number(args[k]);
    if (!Number.isFinite(v)) throw new Error(`--${k} must be a number`);
    return v;
  };
  // Gentle on shared CPUs: one libvips thread.
  sharp.concurrency(1);
  await generate({
    out: args.out,
    count: num('count'),
    seed: num('seed'),
    minWidth: num('min-width'),
    maxWidth: num('max-width'),
    maxKb: num('max-kb') ?? null,
    log: (line) => console.log(line),
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
