import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexCatalogue, tokens } from '../../../../src/modules/recognition/catalogue-matcher.js';
import {
  brandAndOwnWord,
  distinctName,
  nearlyEqual,
  showsOtherBrand,
  squash,
} from '../../../../src/modules/recognition/engines/local/catalogue-naming.js';
import { catalogueEntry } from '../../../helpers/catalogue-entries.js';

const entry = (sku: string, brand: string, name: string) => catalogueEntry(sku, brand, name, null, 'USD');

const entries = indexCatalogue([
  entry('conserve', 'Shopwise', 'Apricot Conserve 12 oz'),
  entry('jam-shopwise', 'Shopwise', 'Strawberry Jam 454g'),
  entry('jam-willow', 'Willow & Vance', 'Strawberry Jam 12 oz'),
  entry('tea-40', 'Tamstead Farm', 'Breakfast Tea 40 ct'),
  entry('tea-80', 'Tamstead Farm', 'Breakfast Tea 80 Bags'),
  entry('sauce', 'Heather Kitchen', 'Brown Sauce 17.6 oz'),
  entry('beer-everyday', 'Everyday Basics', 'Ginger Beer 8.5 fl oz'),
  entry('beer-fable', 'Fable Fizz', 'Ginger Beer 330ml'),
]);
const named = (text: string, how: typeof brandAndOwnWord) =>
  how(tokens(text), squash(text), entries)?.entry.sku ?? null;

describe("naming a catalogue entry from a pack's print", () => {
  it('names the one entry whose brand the print shows beside a word no other entry of that brand has (D381)', () => {
    // One letter misread ("conrserve"), the brand run together, or read whole.
    assert.equal(named('SHOPWISE conrserve', brandAndOwnWord), 'conserve');
    assert.equal(named('SHOPWISE Strawberry', brandAndOwnWord), 'jam-shopwise');
    assert.equal(named('WILLOW&VANCE Strawberry', brandAndOwnWord), 'jam-willow');
    // The brand's two teas share every word of their names but their sizes: neither.
    assert.equal(named('TAMSTEADFARM BREAKFAST TEA', brandAndOwnWord), null);
    // No brand, or only a short word beside it ("Jam" is on both jams): nothing.
    assert.equal(named('Strawberry Jam', brandAndOwnWord), null);
    assert.equal(named('SHOPWISE Jam', brandAndOwnWord), null);
  });

  it('names the one entry whose whole name the print shows, without its brand (D379)', () => {
    assert.equal(named('BROWN SAUCE', distinctName), 'sauce');
    // Two brands' Strawberry Jam: neither.
    assert.equal(named('STRAWBERRY JAM', distinctName), null);
    // Two brands' Ginger Beer, one brand's word read beside it (its other word misread): that one (D386).
    assert.equal(named('GINGER BEER EVERYDAY BARS', distinctName), 'beer-everyday');
    assert.equal(named('GINGER BEER', distinctName), null);
    assert.equal(named('GINGER BEER FABLE EVERYDAY', distinctName), null);
  });

  it('sees another brand in the print, read whole or run together (D383)', () => {
    const jam = entries.find((e) => e.entry.sku === 'jam-shopwise')!;
    const other = (text: string) => showsOtherBrand(tokens(text), squash(text), jam, entries);
    // Willow & Vance's, not Shopwise's, Strawberry Jam: its brand's word read whole, or the brand run
    // together as the learned recognizer reads a logo.
    assert.equal(other('Willow Strawberry Jam'), true);
    assert.equal(other('WILLOW&VANCE Strawberry Jam'), true);
    assert.equal(other('TAMSTEADFARM Strawberry Jam'), true);
    // Its own brand, or none.
    assert.equal(other('SHOPWISE Strawberry Jam'), false);
    assert.equal(other('Strawberry Jam'), false);
  });

  it('takes a word of eight letters or more misread by two letters, a shorter one by one (D385)', () => {
    // The learned recognizer's slips on print a few pixels tall: two letters dropped, two changed.
    assert.equal(nearlyEqual('ranulate', 'granulated'), true);
    assert.equal(nearlyEqual('edmatoes', 'tomatoes'), true);
    assert.equal(nearlyEqual('moutheash', 'mouthwash'), true);
    // Other words, however long, and short words two letters apart, are not.
    assert.equal(nearlyEqual('strawberry', 'raspberry'), false);
    assert.equal(nearlyEqual('shortbread', 'shortcrust'), false);
    assert.equal(nearlyEqual('sance', 'sauce'), true);
    assert.equal(nearlyEqual('salsa', 'sauce'), false);
    assert.equal(nearlyEqual('gingers', 'finger'), false);
  });
});
