import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseLabelPrices,
  priceForEntry,
  showsCurrencySign,
} from '../../../../src/modules/recognition/engines/local/price-parser.js';

describe('label price parser', () => {
  it('reads single prices in the common notations', () => {
    assert.deepEqual(parseLabelPrices('Orange Juice 1L 2.49'), {
      price: 2.49,
      discountedPrice: null,
      onSale: false,
      currency: null,
      multiBuy: null,
    });
    assert.equal(parseLabelPrices('$1.99')!.currency, 'USD');
    assert.equal(parseLabelPrices('$1.99')!.price, 1.99);
    assert.deepEqual(parseLabelPrices('Milch 1,99 €'), {
      price: 1.99,
      discountedPrice: null,
      onSale: false,
      currency: 'EUR',
      multiBuy: null,
    });
    assert.equal(parseLabelPrices('£12.00')!.price, 12);
    assert.equal(parseLabelPrices('99p')!.price, 0.99);
    // Cents, as US shelf labels print prices under a dollar (D354).
    // No currency of its own: OCR reads `0,79 €` as `79¢` too, and the shelf's currency decides.
    assert.deepEqual(parseLabelPrices('Hollybrook CHICKPEAS 400G 99¢'), {
      price: 0.99,
      discountedPrice: null,
      onSale: false,
      currency: null,
      multiBuy: null,
    });
    assert.equal(parseLabelPrices('COPPERLEAF MINT HUMBUGS 150G 99¢ 66¢ per 100g')!.price, 0.99);
    assert.equal(parseLabelPrices('PRICE DROP NATURAL YOGURT 500G NOW 79¢ WAS $1.29')!.discountedPrice, 0.79);
    assert.equal(parseLabelPrices('Brightwell Cola'), null);
  });

  it('treats two prices as regular and discounted', () => {
    assert.deepEqual(parseLabelPrices('WAS £3.00 NOW £2.00'), {
      price: 3,
      discountedPrice: 2,
      onSale: true,
      currency: 'GBP',
      multiBuy: null,
    });
    assert.deepEqual(parseLabelPrices('SAVE 33% £1.50 £2.25'), {
      price: 2.25,
      discountedPrice: 1.5,
      onSale: true,
      currency: 'GBP',
      multiBuy: null,
    });
  });

  it('takes a second price for an offer only where the label says one (D351)', () => {
    // A price by the measure whose "per 100g" OCR garbled: the label's price, no offer.
    for (const text of [
      '£1.50 £2.25',
      'Stonebay Oat Cookies 300g £2.19 £0.73 pr 1009',
      'Orchard Row 2,19 € 1009 = 0,88 €',
    ])
      assert.deepEqual([parseLabelPrices(text)?.discountedPrice, parseLabelPrices(text)?.onSale], [null, false], text);
    for (const text of [
      'NOW £0.95 WAS £1.59',
      'SPECIAL OFFER 300円 188円',
      'PRICE DROP ¥300 ¥198',
      'SAVE 20% €2.79 €3.49',
    ])
      assert.equal(parseLabelPrices(text)?.onSale, true, text);
    // A member's price is an offer too (D381); a word of a name is not ("CLUB SODA").
    for (const [text, price, offer] of [
      ['Fable Fizz Ginger Beer 330ml 1,59 € Loyalty Price 1,39 €', 1.59, 1.39],
      ['£2.50 Clubcard Price £2.00', 2.5, 2],
      ['$2.49 Rewards Price $2.29', 2.49, 2.29],
      ['Spaghetti 1kg ¥528 Card Price ¥408', 528, 408],
      ['CLUB SODA £1.29 £0.65', 1.29, null],
    ] as const)
      assert.deepEqual([parseLabelPrices(text)?.price, parseLabelPrices(text)?.discountedPrice], [price, offer], text);
  });

  it("leaves out a price by the measure, printed under the label's own (D310)", () => {
    // Tuning seeds' labels as tesseract reads them once their symbol is blanked (seeds 8642, 2468, 4711).
    const plain = (price: number, currency: string) => ({
      price,
      discountedPrice: null,
      onSale: false,
      currency,
      multiBuy: null,
    });
    assert.deepEqual(parseLabelPrices('Tortilla Chips 200g £1.65 £0.83 per 100g'), plain(1.65, 'GBP'));
    assert.deepEqual(parseLabelPrices('Mint Humbugs 150g 85p 57p per 100g'), plain(0.85, 'GBP'));
    assert.deepEqual(parseLabelPrices('MOORLAND TUNA CHUNKS 145G £1.25 86p per 100g'), plain(1.25, 'GBP'));
    assert.deepEqual(parseLabelPrices('Cloudy Lemonade 2L ¥348 ¥174 per 1L'), plain(348, 'JPY'));
    assert.deepEqual(parseLabelPrices('PINECREST CHOPPED TOMATOES 400G 0,79 € 100g = 0,20 €'), plain(0.79, 'EUR'));
    assert.deepEqual(parseLabelPrices('Basmati Rice 1kg 2,19 € 2,19 € / kg'), plain(2.19, 'EUR'));
    // Alone, it is no price of the product's: the label is read closer.
    assert.equal(parseLabelPrices('£0.83 per 100g'), null);
    // An offer's second price, and a multi-buy's price each, are still read.
    assert.equal(parseLabelPrices('SAVE 19% NOW £1.49 WAS £1.85')!.discountedPrice, 1.49);
    assert.equal(parseLabelPrices('MIX & MATCH 2 for £2.50 £1.50 each')!.discountedPrice, 1.25);
  });

  it('reads two-for offers', () => {
    assert.deepEqual(parseLabelPrices('£2.00 2 for £3.00'), {
      price: 2,
      discountedPrice: 1.5,
      onSale: true,
      currency: 'GBP',
      multiBuy: { quantity: 2, total: 3 },
    });
    assert.deepEqual(parseLabelPrices('3 FOR £5'), {
      price: null,
      discountedPrice: 1.67,
      onSale: true,
      currency: 'GBP',
      multiBuy: { quantity: 3, total: 5 },
    });
  });

  it('reads yen, which prints no decimals, and leaves bare integers alone', () => {
    assert.deepEqual(parseLabelPrices('Moorland Gummy Bears 180g ¥238'), {
      price: 238,
      discountedPrice: null,
      onSale: false,
      currency: 'JPY',
      multiBuy: null,
    });
    assert.deepEqual(parseLabelPrices('Amberfield Gummy Bears 180g WAS ¥198 NOW ¥138'), {
      price: 198,
      discountedPrice: 138,
      onSale: true,
      currency: 'JPY',
      multiBuy: null,
    });
    assert.equal(parseLabelPrices('Tidewater Granola Crunch 500g 568円')!.price, 568);
    assert.equal(parseLabelPrices('¥1,280')!.price, 1280);
    assert.deepEqual(parseLabelPrices('Porridge Oats 1kg 2 for ¥500 ¥358 each')!.multiBuy, { quantity: 2, total: 500 });
    assert.equal(parseLabelPrices('Soup 400g 12 pack'), null);
  });

  it("reads no price in a barcode's digits with a yen sign misread among them (D363)", () => {
    // Tesseract's readings of two tuning labels: the price itself lost, the barcode's digits read.
    assert.equal(parseLabelPrices('Hollybrook Tomato Ketchup 460g " 495687¥021078 Il 93F} per 100g'), null);
    assert.equal(parseLabelPrices('Bears 180g " 425156¥019269 I 178} 4'), null);
    assert.equal(parseLabelPrices('Gummy Bears ¥178 ¥99 per 100g')!.price, 178);
  });

  it('leaves out a price by the measure whose "per" OCR misread (D364)', () => {
    // Tesseract's closer reading of a tuning label "¥178 ¥99 per 100g", its price lost.
    assert.equal(parseLabelPrices('Bramblewood Gummy Bears 180g / _ ¥99 ner 1000 |'), null);
    assert.equal(parseLabelPrices('£1.65 £0.83 oer 100g')!.price, 1.65);
    assert.equal(parseLabelPrices('£2.49 Corner shop')!.price, 2.49);
  });

  it('reads the full-width yen sign the learned recognizer prints (D358)', () => {
    // The learned look at a navy yen label on tuning seed 9753's shelf-04.
    const read = parseLabelPrices('Peachlced \uffe5278  \uffe556per100ml')!;
    assert.deepEqual(
      [read.price, read.discountedPrice, read.onSale, read.currency, read.multiBuy],
      [278, null, false, 'JPY', null],
    );
    assert.equal(parseLabelPrices('2 for \uffe5540 \uffe5400 each')!.multiBuy?.total, 540);
    assert.equal(showsCurrencySign('\uffe5 258'), true);
  });

  it('reads a yen price whose 円 tesseract turned into F) F9 or 7) (D356)', () => {
    // First readings of yen labels on tuning seed 2468's shelf-09.
    assert.deepEqual(parseLabelPrices('PINECREST CLOUDY LEMONADE 2L 2987) | 14973 per 1b'), {
      price: 298,
      discountedPrice: null,
      onSale: false,
      currency: 'JPY',
      multiBuy: null,
    });
    assert.deepEqual(parseLabelPrices('Moorland Gummy Bears 180g 198F9 each 3 for 480F)')!.multiBuy, {
      quantity: 3,
      total: 480,
    });
    assert.equal(parseLabelPrices('Moorland Gummy Bears 180g 198F9 each 3 for 480F)')!.price, 198);
    // A lone F or 7 after a number is not taken: sizes, strengths and other prices end so too.
    for (const text of ['Vitamin B12 60F', 'Soup 300F', 'Cola 2L £1.97)'])
      assert.notEqual(parseLabelPrices(text)?.currency, 'JPY', text);
  });

  it('reads a price whose decimal point OCR lost, beside its sign, where no other price shows (D346)', () => {
    // First readings of second-generator tuning labels (seeds 2468, 9753).
    assert.deepEqual(parseLabelPrices('1 ve £4 Copperleaf Herbal Shar 400m! $3 49 | < } $a'), {
      price: 3.49,
      discountedPrice: null,
      onSale: false,
      currency: 'USD',
      multiBuy: null,
    });
    assert.equal(parseLabelPrices('Orchard Row Dried Apricots 250g | 1 99 €')!.currency, 'EUR');
    assert.equal(parseLabelPrices('Orchard Row Dried Apricots 250g | 1 99 €')!.price, 1.99);
    assert.equal(parseLabelPrices('Copperieaf Tortilla Chips 200g £ 1 49 . peewee 75p per 1009')!.price, 1.49);
    // Small print read as junk beside a price that was read: that price alone.
    assert.deepEqual(parseLabelPrices('ORCHARD ROW LAUNDRY GEL £3.75 | PYUPOIFFIIUC(E 4 £3.75 per IL £85 00'), {
      price: 3.75,
      discountedPrice: null,
      onSale: false,
      currency: 'GBP',
      multiBuy: null,
    });
    // Cents printed raised after the comma (`2,⁵⁹ €`): the learned recognizer, whose dictionary has
    // no €, reads them a space apart (seed 2468's shelf-20). The shelf's currency is theirs.
    assert.deepEqual(parseLabelPrices('NorthgateHerbal Shampoo400ml 3, 49  100ml=0.87'), {
      price: 3.49,
      discountedPrice: null,
      onSale: false,
      currency: null,
      multiBuy: null,
    });
    assert.equal(parseLabelPrices('TidewaterTunaChunks145g 1, 59    m  110')!.price, 1.59);
    // No sign, or a price by the measure: no price.
    assert.equal(parseLabelPrices('Soup 400g 12 50'), null);
    assert.equal(parseLabelPrices('Serves 4, 120 kcal'), null);
    assert.equal(parseLabelPrices('£0 30 per 100g'), null);
  });

  it('reads a multi-buy whose quantity OCR misread, by the price each (D362)', () => {
    // Tesseract's readings of tuning labels "3 for £3 £1.29 each" and "2 for $4 $2.99 each".
    const crisps = parseLabelPrices('Copperleaf Sea Salt Crisps i for£3 £1.29 each xi')!;
    assert.deepEqual([crisps.price, crisps.discountedPrice, crisps.onSale, crisps.currency], [1.29, 1, true, 'GBP']);
    assert.deepEqual(crisps.multiBuy, { quantity: 3, total: 3 });
    assert.deepEqual(parseLabelPrices('Hollybrook Oat Drink 1L ie for $4 $2.99 each')!.multiBuy, {
      quantity: 2,
      total: 4,
    });
    // No quantity makes the deal cheaper than each (the 円 read as a 0): no offer read into it.
    assert.equal(parseLabelPrices('Minestrone Soup 400g 208F) each Stor 4200]')!.discountedPrice, null);
    // A word ending in "e" before "for" is no misread quantity.
    assert.equal(parseLabelPrices('Made for sharing £2.49')!.multiBuy, null);
  });

  it('reads "for" as OCR misreads it in small print', () => {
    assert.deepEqual(parseLabelPrices('£2.87 2 tor £4.59')!.multiBuy, { quantity: 2, total: 4.59 });
    assert.equal(parseLabelPrices('£2.18 2 f0r £3.49')!.discountedPrice, 1.75);
  });

  it('tells a misread price by its currency sign, which a pack window does not show (D292)', () => {
    // Tilted labels of a tuning seed as tesseract read them: a sign, digits, no price.
    for (const text of [
      'BAe OAT | \u2018monn _\u00a32:32',
      'ee Nore \u2018runt \u00a3225',
      'HAZELNUT SPREAD 3,5 9 \u20ac',
      '$0 99',
      '\u00a5 1g8',
      '4 2 8円',
    ])
      assert.equal(showsCurrencySign(text), true, text);
    for (const text of [
      'Oat Drink 1L',
      'per 100g',
      '| @ vA',
      'Hair Clips 12 PACK',
      '\u00a3 off',
      'SAVE 22%',
      '\u20acuro',
    ])
      assert.equal(showsCurrencySign(text), false, text);
    // Where it parses, it is a price too.
    assert.equal(showsCurrencySign('\u00a31.49'), true);
    assert.ok(parseLabelPrices('\u00a31.49'));
  });

  it('takes the price without tax where a label prints the price with tax beside it', () => {
    for (const [text, price] of [
      ['Fruit Gums 200g \u00a5238 incl. tax \u00a5257', 238],
      ['\u00a5257 (tax incl.) \u00a5238', 238],
      ['\u7a0e\u8fbc \u00a5257 \u00a5238', 238],
      ['\u00a5238 \u00a5257 incl. tax', 238],
      // Only the price with tax read: it is still the label's price.
      ['incl. tax \u00a5257', 257],
    ] as const) {
      const read = parseLabelPrices(text);
      assert.equal(read?.price, price, text);
      assert.equal(read?.discountedPrice, null, text);
      assert.equal(read?.currency, 'JPY', text);
    }
  });

  it("puts back a decimal point the reading lost, only where the named entry's expected price says so", () => {
    const read = (price: number | null, discountedPrice: number | null = null) => ({
      price,
      discountedPrice,
      onSale: discountedPrice !== null,
      currency: null,
      multiBuy: null,
    });
    // "$2.49" printed with raised cents, read "249".
    assert.deepEqual(priceForEntry(read(249), { expectedPrice: 2.49, sizeValue: null }), {
      price: 2.49,
      discountedPrice: null,
    });
    assert.deepEqual(priceForEntry(read(249, 199), { expectedPrice: '2.49', sizeValue: null }), {
      price: 2.49,
      discountedPrice: 1.99,
    });
    assert.deepEqual(priceForEntry(read(249, 1.99), { expectedPrice: 2.49, sizeValue: null }), {
      price: 2.49,
      discountedPrice: 1.99,
    });
    // Yen has no decimals: 598 is 598 where the entry expects 598, and not 5.98 where it expects 5.
    assert.deepEqual(priceForEntry(read(598), { expectedPrice: 598, sizeValue: null }), {
      price: 598,
      discountedPrice: null,
    });
    assert.deepEqual(priceForEntry(read(598), { expectedPrice: 5, sizeValue: null }), {
      price: 598,
      discountedPrice: null,
    });
    // Not the entry's price by a point either way, or no entry: as read.
    assert.deepEqual(priceForEntry(read(249), { expectedPrice: 2.59, sizeValue: null }), {
      price: 249,
      discountedPrice: null,
    });
    assert.deepEqual(priceForEntry(read(249), { expectedPrice: null, sizeValue: null }), {
      price: 249,
      discountedPrice: null,
    });
    assert.deepEqual(priceForEntry(null, { expectedPrice: 2.49, sizeValue: null }), {
      price: null,
      discountedPrice: null,
    });
    assert.deepEqual(priceForEntry(read(249), null), { price: 249, discountedPrice: null });
  });

  it("leaves out a price that is the named entry's size, not its price (D381)", () => {
    const read = (price: number, discountedPrice: number | null = null) => ({
      price,
      discountedPrice,
      onSale: discountedPrice !== null,
      currency: null,
      multiBuy: null,
    });
    // "SALT & VINEGAR CHIPS 3.5 OZ ... $2.49": the size read, the price lost.
    assert.deepEqual(priceForEntry(read(3.5), { expectedPrice: 2.49, sizeValue: 3.5 }), {
      price: null,
      discountedPrice: null,
    });
    assert.deepEqual(priceForEntry(read(14.1, 0.99), { expectedPrice: '1.59', sizeValue: '14.1' }), {
      price: null,
      discountedPrice: 0.99,
    });
    // A price that is both (a 2-litre bottle at 2.00) is the price.
    assert.deepEqual(priceForEntry(read(2), { expectedPrice: 2, sizeValue: 2 }), { price: 2, discountedPrice: null });
    assert.deepEqual(priceForEntry(read(3.5), { expectedPrice: null, sizeValue: 500 }), {
      price: 3.5,
      discountedPrice: null,
    });
  });
  it('reads the offers of the third generator’s labels as printed in full (D399)', () => {
    const pair = (text: string) => {
      const r = parseLabelPrices(text);
      return [r?.price ?? null, r?.discountedPrice ?? null];
    };
    // A multi-buy written with a slash before its total's sign; a date's slashes are no deal.
    assert.deepEqual(pair('SHOPWISE SWEET CHILLI SAUCE 8.5 FL OZ 29.3¢/fl oz 17-5-2 3/$5 Reg. $2.49'), [2.49, 1.67]);
    assert.deepEqual(pair('MULTIBUY SHOPWISE APRICOT CONSERVE 12 OZ 21.6¢/oz 2-3-12 2/$4 Single $2.59'), [2.59, 2]);
    assert.deepEqual(pair('LINWELL PASTA SAUCE 250ML 21/07/26 0,79 €'), [0.79, null]);
    // What an offer saves is neither of its prices.
    assert.deepEqual(pair('SAVE 0,40 € Everyday Basics Penne Rigate 500g 15-1-9 WAS 1,19 € Now 0,79 €'), [1.19, 0.79]);
    // A yen deal's total keeps its thousands (it was read as ¥1.02).
    assert.deepEqual(
      pair('MIX & MATCH Heather Kitchen Fruit & Nut Muesli 375g ¥114/100g 3 FOR ¥1,020 Single ¥428'),
      [428, 340],
    );
    // A price by the metre.
    assert.deepEqual(pair('Everyday Basics Aluminium Foil 10m ¥21/m 9-1-12 ¥208 Loyalty Price ¥168'), [208, 168]);
    // Beside a deal, a price by the piece or by the measure is not the offer: the deal's price each is.
    assert.deepEqual(
      pair('MIX & MATCH VELHOLM LAUNDRY CAPSULES 38 PACK 0,27 € each 21/09/25 2 for 18 € 10,29 €'),
      [10.29, 9],
    );
    assert.deepEqual(
      pair('MIX & MATCH MEADOW & PLATT SWEET CHILLI SAUCE 500G 100g ¥78 Any 3 for ¥900 ¥388 each'),
      [388, 300],
    );
    // A deal in pence.
    assert.deepEqual(pair('Copperleaf Still Water 1.5L 50p each 2 for 60p'), [0.5, 0.3]);
  });
});
