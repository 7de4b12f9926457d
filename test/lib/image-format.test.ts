import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { otherImageFormat, sniffFormat } from '../../src/lib/image-format.js';

const plain = () => sharp({ create: { width: 16, height: 16, channels: 3, background: '#888' } });

describe('image formats from the bytes', () => {
  it('knows the photo formats libvips writes, and refuses the rest before any decoder sees them', async () => {
    assert.equal(sniffFormat(await plain().jpeg().toBuffer()), 'jpeg');
    assert.equal(sniffFormat(await plain().png().toBuffer()), 'png');
    assert.equal(sniffFormat(await plain().webp().toBuffer()), 'webp');
    assert.equal(sniffFormat(await plain().avif().toBuffer()), 'avif');
    for (const other of [await plain().tiff().toBuffer(), await plain().gif().toBuffer()]) {
      assert.equal(sniffFormat(other), null);
      assert.ok(otherImageFormat(other));
    }
  });

  it('tells an SVG (with or without a prologue), a HEIC and plain bytes apart', () => {
    for (const svg of [
      '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>',
      '<?xml version="1.0"?>\n<!-- drawn -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<svg width="9">',
    ]) {
      assert.equal(sniffFormat(Buffer.from(svg)), null);
      assert.ok(otherImageFormat(Buffer.from(svg)), svg);
    }
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic')]);
    assert.equal(sniffFormat(heic), 'heic');
    assert.equal(sniffFormat(Buffer.from('<html>not an image</html>')), null);
    assert.ok(!otherImageFormat(Buffer.from('<html>not an image</html>')));
    assert.equal(sniffFormat(Buffer.alloc(2)), null);
  });
});
