import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import {
  foldActivationAffine,
  foldConvAffine,
  foldConvTranspose,
  foldGateResidual,
  fuseHardSwish,
  modelOps,
  simplifyModel,
} from '../../../../src/modules/recognition/engines/local/paddle/model-rewrite.js';
import { paddleModelFiles } from '../../../../src/modules/recognition/engines/local/paddle/model-files.js';
import { resizeRgb, toRgb } from '../../../../src/modules/recognition/engines/local/paddle/raw-image.js';

const count = (ops: string[], op: string) => ops.filter((o) => o === op).length;

/** A fixed input of the given shape, values in [-2, 2) from a seeded generator. */
function input(shape: number[]): Tensor {
  let seed = 7;
  const data = new Float32Array(shape.reduce((a, b) => a * b)).map(
    () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 4,
  );
  return new Tensor('float32', data, shape);
}

async function run(model: Uint8Array, tensor: Tensor): Promise<Float32Array> {
  const session = await InferenceSession.create(model, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
  try {
    const out = await session.run({ [session.inputNames[0]!]: tensor });
    return out[session.outputNames[0]!]!.data as Float32Array;
  } finally {
    await session.release();
  }
}

describe('PP-OCRv4 models simplified for onnxruntime (model-rewrite.ts)', () => {
  const files = paddleModelFiles();
  for (const [name, path, groups, affines, activationAffines, gates, transposes, shape] of [
    [
      'detector',
      files.detectionPath,
      24,
      28,
      { folded: 10, depthwise: 14 },
      8,
      { folded: 2, stacked: 1 },
      [1, 3, 96, 128],
    ],
    [
      'recogniser',
      files.recognitionPath,
      28,
      28,
      { folded: 12, depthwise: 16 },
      0,
      { folded: 0, stacked: 0 },
      [1, 3, 48, 96],
    ],
  ] as const) {
    it(`makes each of the ${name}'s four-node hard-swishes two nodes, with the same outputs`, async () => {
      const original = readFileSync(path);
      const before = modelOps(original);
      const { model, fused } = fuseHardSwish(original);
      const after = modelOps(model);
      assert.equal(fused, groups);
      // Every Clip was a hard-swish's; each group's Add, Clip, Mul, Div (and its constants) went,
      // a HardSigmoid and a Mul came.
      assert.equal(count(before, 'Clip'), groups);
      assert.equal(count(after, 'Clip'), 0);
      assert.equal(count(after, 'HardSigmoid') - count(before, 'HardSigmoid'), groups);
      assert.equal(count(after, 'Div'), count(before, 'Div') - groups);
      assert.equal(count(after, 'Add'), count(before, 'Add') - groups);
      assert.equal(count(after, 'Mul'), count(before, 'Mul'));
      assert.ok(count(after, 'Constant') < count(before, 'Constant'));
      // Rewritten again, nothing is left to fuse.
      assert.equal(fuseHardSwish(model).fused, 0);
      const tensor = input([...shape]);
      const [a, b] = [await run(original, tensor), await run(model, tensor)];
      assert.equal(a.length, b.length);
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
      assert.ok(worst < 1e-4, `largest difference ${worst}`);
    });

    it(`folds the ${name}'s scalar affine after a convolution into it, with the same outputs`, async () => {
      const original = readFileSync(path);
      const { model, folded } = foldConvAffine(original);
      assert.equal(folded, affines);
      const before = modelOps(original);
      const after = modelOps(model);
      assert.equal(count(after, 'Conv'), count(before, 'Conv'));
      assert.equal(count(after, 'Mul'), count(before, 'Mul') - affines);
      assert.equal(count(after, 'Add'), count(before, 'Add') - affines);
      assert.equal(foldConvAffine(model).folded, 0);
    });

    it(`takes the ${name}'s scalar affine after each hard-swish out of Mul and Add, with the same outputs`, async () => {
      const original = readFileSync(path);
      // As simplifyModel orders them: the affines after a convolution are folded into it first.
      const hardSwished = foldConvAffine(fuseHardSwish(original).model).model;
      const { model, folded, depthwise } = foldActivationAffine(hardSwished);
      assert.deepEqual({ folded, depthwise }, activationAffines);
      const before = modelOps(hardSwished);
      const after = modelOps(model);
      // Folded ones leave no node; each of the others is one depthwise Conv in place of a Mul and an Add.
      assert.equal(count(after, 'Mul'), count(before, 'Mul') - folded - depthwise);
      assert.equal(count(after, 'Add'), count(before, 'Add') - folded - depthwise);
      assert.equal(count(after, 'Conv'), count(before, 'Conv') + depthwise);
      assert.deepEqual(foldActivationAffine(model).folded + foldActivationAffine(model).depthwise, 0);
      // All four rewrites, as PaddleOcr loads the models.
      const all = simplifyModel(original);
      assert.deepEqual(
        [all.hardSwish, all.convAffine, all.activationAffine, all.gateResidual, all.convTranspose],
        [groups, affines, activationAffines, gates, transposes],
      );
      const tensor = input([...shape]);
      const [a, b] = [await run(original, tensor), await run(all.model, tensor)];
      assert.equal(a.length, b.length);
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
      assert.ok(worst < 1e-4, `largest difference ${worst}`);
    });
  }

  it("moves the shortcut's Add of the detector's gated feature maps onto the gates", async () => {
    const original = readFileSync(files.detectionPath);
    const { model, folded } = foldGateResidual(original);
    assert.equal(folded, 8);
    // Each Add(x, Mul(x, g)) became Mul(x, Add(g, 1)): as many Adds and Muls, one Constant more each.
    assert.deepEqual(
      ['Add', 'Mul', 'Constant'].map((o) => count(modelOps(model), o) - count(modelOps(original), o)),
      [0, 0, folded],
    );
    assert.equal(foldGateResidual(model).folded, 0);
    const tensor = input([1, 3, 96, 128]);
    const [a, b] = [await run(original, tensor), await run(model, tensor)];
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
    assert.ok(worst < 1e-4, `largest difference ${worst}`);
  });

  it("makes the detector head's two ConvTransposes a pointwise Conv and one ConvTranspose, with the same map", async () => {
    const original = readFileSync(files.detectionPath);
    const { model, folded, stacked } = foldConvTranspose(original);
    // Each ConvTranspose's bias Add, and the first one's BatchNormalization, folded into it; then the
    // two (2 x 2, stride 2, a Relu between) made a pointwise Conv to 96 channels and one 4 x 4, stride 4.
    assert.deepEqual({ folded, stacked }, { folded: 2, stacked: 1 });
    const [before, after] = [modelOps(original), modelOps(model)];
    assert.deepEqual(
      ['ConvTranspose', 'Conv', 'Add', 'BatchNormalization', 'Relu', 'Sigmoid'].map(
        (o) => count(after, o) - count(before, o),
      ),
      [-1, 1, -2, -1, 0, 0],
    );
    assert.deepEqual(foldConvTranspose(model), { model, folded: 0, stacked: 0 });
    // A photo's probability map (random input leaves it near 0 everywhere, where a wrong layout of the
    // head's blocks would not show): a first-generator shelf at 640 x 480, fed as PaddleOcr feeds it.
    const small = await resizeRgb(await toRgb(readFileSync('test/fixtures/synthetic-shelves/shelf-01.jpg')), 640, 480);
    const plane = 640 * 480;
    const data = new Float32Array(3 * plane);
    const [mean, std] = [
      [0.485, 0.456, 0.406],
      [0.229, 0.224, 0.225],
    ];
    for (let i = 0; i < plane; i++)
      for (let c = 0; c < 3; c++) data[c * plane + i] = (small.data[i * 3 + 2 - c]! / 255 - mean[c]!) / std[c]!;
    const tensor = new Tensor('float32', data, [1, 3, 480, 640]);
    const [a, b] = [await run(original, tensor), await run(model, tensor)];
    assert.equal(a.length, b.length);
    assert.ok(a.filter((p) => p > 0.5).length > 1000, 'text found in the photo');
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
    assert.ok(worst < 1e-5, `largest difference ${worst}`);
  });

  it('hands back bytes with no graph as they are', () => {
    const bytes = Uint8Array.from([8, 7]); // ir_version 7 and nothing else
    assert.deepEqual(fuseHardSwish(bytes), { model: bytes, fused: 0 });
    assert.deepEqual(foldConvAffine(bytes), { model: bytes, folded: 0 });
    assert.deepEqual(foldActivationAffine(bytes), { model: bytes, folded: 0, depthwise: 0 });
    assert.deepEqual(foldGateResidual(bytes), { model: bytes, folded: 0 });
    assert.deepEqual(foldConvTranspose(bytes), { model: bytes, folded: 0, stacked: 0 });
  });
});
