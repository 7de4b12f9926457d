import sharp from 'sharp';
import type { RecognizeInput } from '../../recognizer.js';

const WIDTH = 640;
const HEIGHT = 360;

/**
 * A small shelf drawn here (one price label on a grey shelf edge) that a recognition thread reads
 * once when it starts: its first real photo then does not pay for the OCR engine's start (the
 * helper process and its model, or the wasm worker), the first compiled paths and the barcode
 * reader's wasm, ~0.2–0.6 s on top of a photo's ~0.4 s. Without fonts the text draws as nothing and
 * the reading finds nothing, which warms all the same: what is read does not matter, only that it
 * goes through every stage.
 */
export async function warmUpInput(): Promise<RecognizeInput> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
    <rect width="100%" height="100%" fill="#5f5f5f"/>
    <rect x="170" y="120" width="300" height="110" fill="#f2f2f2"/>
    <text x="182" y="152" font-family="DejaVu Sans" font-size="20" fill="#111">Warm Cola 330ml</text>
    <text x="182" y="212" font-family="DejaVu Sans" font-size="40" font-weight="bold" fill="#111">£1.00</text>
  </svg>`;
  const image = await sharp(Buffer.from(svg)).jpeg().toBuffer();
  return { image, contentType: 'image/jpeg', width: WIDTH, height: HEIGHT, catalogue: [], runIndex: 0 };
}
