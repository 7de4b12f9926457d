/**
 * The PP-OCRv4 models as Paddle2ONNX exported them spell two things in element-wise nodes that
 * onnxruntime runs as a pass over the tensor each (and, around its blocked-layout convolutions, as
 * many layout reorders): on one thread those nodes were 35-40 % of both models' kernel time.
 *
 * - each hard-swish as `Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)`: fuseHardSwish makes it
 *   `Mul(x, HardSigmoid(x; 1/6, 0.5))`, the same function in two nodes;
 * - PP-LCNetV3's learnable affine after a convolution, `Add(Mul(Conv(x, W, B), s), t)` with s and t
 *   single numbers: foldConvAffine makes it `Conv(x, W·s, B·s + t)`;
 * - the same learnable affine after each hard-swish, `Add(Mul(x, s), t)`: foldActivationAffine folds
 *   it into the convolutions that read it where they pad nothing (`Conv(x, W·s, B + t·ΣW)`), and
 *   elsewhere makes it a depthwise 1x1 convolution. onnxruntime runs its convolutions (and the
 *   hard-swish, fused into them) in a blocked channel layout, and a Mul or Add with a single number
 *   in plain layout: each such affine cost a reorder out, the Mul, the Add and a reorder back in,
 *   four passes over the tensor, where the depthwise convolution is one, in the blocked layout;
 * - the detector's squeeze-and-excitation with its shortcut, `Add(x, Mul(x, g))`: foldGateResidual
 *   makes it `Mul(x, Add(g, 1))`, the Add on the gate's one number a channel;
 * - the detector head's two ConvTransposes (2 x 2, stride 2), each followed by a bias Add, the first
 *   by a BatchNormalization and a Relu: foldConvTranspose folds the Adds and the BatchNormalization
 *   into them and makes the pair a pointwise Conv (Relu fused) and one 4 x 4, stride 4 ConvTranspose,
 *   so the 24-channel map at half the photo's size between them is never written.
 *
 * simplifyModel does all five to a model's bytes before its session is made; the files on disk are not
 * touched. The model is decoded and encoded with `onnx-proto` (ONNX's protobuf definitions, on
 * protobufjs); the graph's node list is rewritten, the matched nodes replaced, the rest kept as
 * decoded. The outputs stay the same up to float rounding (largest difference on the models' fixed
 * test inputs under 1e-5).
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
type Model = onnxProto.onnx.ModelProto;
type Node = onnxProto.onnx.INodeProto;
type Tensor = onnxProto.onnx.ITensorProto;

const FLOAT = onnx.TensorProto.DataType.FLOAT;

function decode(model: Uint8Array): Model {
  return onnx.ModelProto.decode(model);
}

function encode(model: Model): Uint8Array {
  return onnx.ModelProto.encode(model).finish();
}

/** An int64 field as protobufjs gives it (a Long where `long` is installed, else a number). */
const int = (v: number | { toNumber(): number }) => (typeof v === 'number' ? v : v.toNumber());

const op = (n: Node) => n.opType ?? '';
const domain = (n: Node) => n.domain ?? '';
const inputs = (n: Node) => n.input ?? [];
const outputs = (n: Node) => n.output ?? [];
const nodesOf = (model: Model) => model.graph?.node ?? [];
const graphOutputs = (model: Model) => new Set((model.graph?.output ?? []).map((o) => o.name ?? ''));

/** The float values of a FLOAT tensor (raw_data or float_data), or undefined. */
function floatsOf(t: Tensor): Float32Array | undefined {
  if (t.dataType !== FLOAT) return undefined;
  const raw = t.rawData;
  if (raw && raw.length > 0) {
    if (raw.length % 4 !== 0) return undefined;
    return new Float32Array(new Uint8Array(raw).buffer);
  }
  return Float32Array.from(t.floatData ?? []);
}

/** A float tensor held by a Constant node: its dims and values, or undefined. */
function constantTensor(n: Node | undefined): { dims: number[]; values: Float32Array } | undefined {
  if (!n || op(n) !== 'Constant' || domain(n) !== '') return undefined;
  const t = n.attribute?.find((a) => a.name === 'value')?.t;
  if (!t) return undefined;
  const values = floatsOf(t);
  const dims = (t.dims ?? []).map(int);
  const size = dims.reduce((a, b) => a * b, 1);
  return values?.length === size ? { dims, values } : undefined;
}

/** The single float a Constant node holds, or undefined. */
function scalarOf(n: Node | undefined): number | undefined {
  const t = constantTensor(n);
  return t?.values.length === 1 ? t.values[0] : undefined;
}

function floatAttribute(n: Node, name: string): number | undefined {
  const a = n.attribute?.find((x) => x.name === name);
  return a && a.f !== null && a.f !== undefined ? Math.fround(a.f) : undefined;
}

function makeNode(opType: string, input: string[], output: string[], name: string, floats: [string, number][]): Node {
  return onnx.NodeProto.create({
    input,
    output,
    name,
    opType,
    attribute: floats.map(([key, f]) => ({ name: key, f, type: onnx.AttributeProto.AttributeType.FLOAT })),
  });
}

function makeConstant(output: string, dims: number[], values: Float32Array): Node {
  const rawData = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  return onnx.NodeProto.create({
    output: [output],
    name: output,
    opType: 'Constant',
    attribute: [
      { name: 'value', t: { dims, dataType: FLOAT, rawData }, type: onnx.AttributeProto.AttributeType.TENSOR },
    ],
  });
}

/**
 * The graph's nodes with each one in `replaced` swapped for its replacement (none, or the nodes
 * listed, in that place), and the Constant nodes whose outputs are all in `taken` and read by nothing
 * left dropped too. Nodes stay in their order (a topological one).
 */
function replaceNodes(model: Model, replaced: Map<Node, Node[]>, taken: Set<string>): void {
  const nodes = nodesOf(model);
  const outs = graphOutputs(model);
  const left = new Set(nodes.filter((n) => !replaced.has(n)).flatMap(inputs));
  for (const n of nodes)
    if (op(n) === 'Constant' && outputs(n).every((o) => taken.has(o) && !left.has(o) && !outs.has(o)))
      replaced.set(n, []);
  model.graph!.node = nodes.flatMap((n) => replaced.get(n) ?? [n]);
}

/** Which node writes each value, and which nodes read it (in graph order). */
function wiring(nodes: Node[]): { producer: Map<string, Node>; users: Map<string, Node[]> } {
  const producer = new Map<string, Node>();
  const users = new Map<string, Node[]>();
  for (const n of nodes) {
    for (const o of outputs(n)) producer.set(o, n);
    for (const i of inputs(n)) users.set(i, [...(users.get(i) ?? []), n]);
  }
  return { producer, users };
}

function fuseHardSwishIn(model: Model): number {
  const nodes = nodesOf(model);
  const producer = new Map<string, Node>();
  const uses = new Map<string, number>();
  for (const n of nodes) {
    for (const o of outputs(n)) producer.set(o, n);
    for (const i of inputs(n)) uses.set(i, (uses.get(i) ?? 0) + 1);
  }
  // Graph outputs count as uses: a matched node's output must feed only the next node of the group.
  for (const name of graphOutputs(model)) uses.set(name, (uses.get(name) ?? 0) + 1);
  const taken = new Set<string>();
  const constant = (name: string | undefined) => (name === undefined ? undefined : scalarOf(producer.get(name)));
  const single = (name: string) => uses.get(name) === 1;
  const replaced = new Map<Node, Node[]>();
  let fused = 0;
  for (const div of nodes) {
    const [divX, divC] = inputs(div);
    if (op(div) !== 'Div' || domain(div) !== '' || inputs(div).length !== 2 || constant(divC) !== 6) continue;
    const mul = producer.get(divX!);
    if (!mul || op(mul) !== 'Mul' || domain(mul) !== '' || inputs(mul).length !== 2 || !single(outputs(mul)[0]!))
      continue;
    const [m0, m1] = inputs(mul) as [string, string];
    for (const [x, c] of [
      [m0, m1],
      [m1, m0],
    ] as const) {
      const clip = producer.get(c);
      if (!clip || op(clip) !== 'Clip' || domain(clip) !== '' || !single(outputs(clip)[0]!)) continue;
      // Clip's bounds: attributes up to opset 10, inputs from 11.
      const clipIn = inputs(clip);
      const lo = clipIn.length > 1 ? constant(clipIn[1]) : floatAttribute(clip, 'min');
      const hi = clipIn.length > 2 ? constant(clipIn[2]) : floatAttribute(clip, 'max');
      if (lo !== 0 || hi !== 6) continue;
      const add = producer.get(clipIn[0]!);
      if (!add || op(add) !== 'Add' || domain(add) !== '' || !single(outputs(add)[0]!)) continue;
      const [a0, a1] = inputs(add);
      const three = a0 === x ? a1 : a1 === x ? a0 : undefined;
      if (three === undefined || constant(three) !== 3) continue;
      if (replaced.has(add) || replaced.has(clip) || replaced.has(mul) || replaced.has(div)) continue;
      for (const name of [three, divC!, ...clipIn.slice(1)]) taken.add(name);
      const y = outputs(div)[0]!;
      const gate = `${y}.hard_sigmoid`;
      replaced.set(add, []);
      replaced.set(clip, []);
      // The HardSigmoid takes the Mul's place, after x is made, and the new Mul the Div's.
      replaced.set(mul, [
        makeNode('HardSigmoid', [x], [gate], gate, [
          ['alpha', 1 / 6],
          ['beta', 0.5],
        ]),
      ]);
      replaced.set(div, [makeNode('Mul', [x, gate], [y], `${y}.hard_swish`, [])]);
      fused++;
      break;
    }
  }
  // The constants (3, 0, 6 and 6) the groups read that nothing else reads go too.
  if (fused > 0) replaceNodes(model, replaced, taken);
  return fused;
}

function foldConvAffineIn(model: Model): number {
  const nodes = nodesOf(model);
  const { producer, users } = wiring(nodes);
  const outs = graphOutputs(model);
  const only = (name: string, n: Node) => users.get(name)?.length === 1 && users.get(name)![0] === n && !outs.has(name);
  /** `n`'s operand other than `from`, and the single number it holds where a Constant gives one. */
  const otherOperand = (n: Node, from: string) => {
    const name = inputs(n)[0] === from ? inputs(n)[1] : inputs(n)[0];
    return { name: name!, value: name === undefined ? undefined : scalarOf(producer.get(name)) };
  };
  const replaced = new Map<Node, Node[]>();
  const taken = new Set<string>();
  let folded = 0;
  for (const conv of nodes) {
    if (op(conv) !== 'Conv' || domain(conv) !== '' || outputs(conv).length !== 1 || replaced.has(conv)) continue;
    const y = outputs(conv)[0]!;
    const mul = soleReader(y, ['Mul'], users, outs);
    if (!mul) continue;
    const { name: sName, value: s } = otherOperand(mul, y);
    if (s === undefined) continue;
    const scaled = outputs(mul)[0]!;
    const add = soleReader(scaled, ['Add'], users, outs);
    if (!add) continue;
    const { name: tName, value: t } = otherOperand(add, scaled);
    if (t === undefined) continue;
    const [x, wName, bName] = inputs(conv);
    const wNode = wName === undefined ? undefined : producer.get(wName);
    const w = constantTensor(wNode);
    if (!x || !w || !only(wName!, conv)) continue;
    const bNode = bName ? producer.get(bName) : undefined;
    const b = constantTensor(bNode);
    if (bName && (!b || !only(bName, conv))) continue;
    const out = w.dims[0]!;
    const weights = w.values.map((v) => v * s);
    const bias = new Float32Array(out).map((_, i) => (b ? b.values[i]! * s : 0) + t);
    const result = outputs(add)[0]!;
    const wNew = `${result}.folded_w`;
    const bNew = `${result}.folded_b`;
    taken.add(sName).add(tName);
    replaced.set(wNode!, [makeConstant(wNew, w.dims, weights)]);
    if (bNode) replaced.set(bNode, []);
    replaced.set(mul, []);
    replaced.set(add, []);
    // The Conv keeps its name, attributes and domain; the bias constant comes right before it.
    const newConv = onnx.NodeProto.create({ ...conv, input: [x, wNew, bNew], output: [result] });
    replaced.set(conv, [makeConstant(bNew, [out], bias), newConv]);
    folded++;
  }
  // The scale and shift constants nothing else reads go too.
  if (folded > 0) replaceNodes(model, replaced, taken);
  return folded;
}

/**
 * The channel count of a tensor made by a Conv with constant weights, or by a hard-swish
 * (`Mul(y, HardSigmoid(y))`) of one; undefined otherwise.
 */
function channelsOf(name: string, producer: Map<string, Node>): number | undefined {
  let n = producer.get(name);
  if (n && op(n) === 'Mul' && inputs(n).length === 2) {
    const [a, b] = inputs(n) as [string, string];
    const gate = producer.get(b);
    const gateA = producer.get(a);
    if (gate && op(gate) === 'HardSigmoid' && inputs(gate)[0] === a) n = producer.get(a);
    else if (gateA && op(gateA) === 'HardSigmoid' && inputs(gateA)[0] === b) n = producer.get(b);
    else return undefined;
  }
  if (!n || op(n) !== 'Conv' || domain(n) !== '') return undefined;
  return constantTensor(producer.get(inputs(n)[1] ?? ''))?.dims[0];
}

function intsAttribute(n: Node, name: string): number[] | undefined {
  const a = n.attribute?.find((x) => x.name === name);
  return a ? (a.ints ?? []).map(int) : undefined;
}

/** Whether a Conv reads no padding: its pads all 0 (or absent) and no automatic padding. */
function unpadded(conv: Node): boolean {
  const autoPad = conv.attribute?.find((a) => a.name === 'auto_pad');
  if (autoPad?.s && autoPad.s.length > 0 && Buffer.from(autoPad.s).toString() !== 'NOTSET') return false;
  return (intsAttribute(conv, 'pads') ?? []).every((p) => p === 0);
}

function foldActivationAffineIn(model: Model): { folded: number; depthwise: number } {
  const nodes = nodesOf(model);
  const { producer, users } = wiring(nodes);
  const outs = graphOutputs(model);
  const replaced = new Map<Node, Node[]>();
  const taken = new Set<string>();
  let folded = 0;
  let depthwise = 0;
  for (const add of nodes) {
    if (op(add) !== 'Add' || domain(add) !== '' || inputs(add).length !== 2 || replaced.has(add)) continue;
    const z = outputs(add)[0]!;
    if (outs.has(z)) continue;
    for (const [scaled, tName] of [
      [inputs(add)[0]!, inputs(add)[1]!],
      [inputs(add)[1]!, inputs(add)[0]!],
    ] as const) {
      const t = scalarOf(producer.get(tName));
      const mul = producer.get(scaled);
      if (t === undefined || !mul || op(mul) !== 'Mul' || domain(mul) !== '' || inputs(mul).length !== 2) continue;
      if (users.get(scaled)?.length !== 1 || outs.has(scaled) || replaced.has(mul)) continue;
      const [m0, m1] = inputs(mul) as [string, string];
      const s0 = scalarOf(producer.get(m0));
      const [x, sName, s] = s0 !== undefined ? [m1, m0, s0] : [m0, m1, scalarOf(producer.get(m1))];
      if (s === undefined) continue;
      // Every reader a convolution that pads nothing, with weights and bias of its own: then
      // Conv(s·x + t, W, B) = Conv(x, W·s, B + t·ΣW) exactly (a padded border would read 0, not t).
      const convs = users.get(z) ?? [];
      const ok = convs.every((c) => {
        if (op(c) !== 'Conv' || domain(c) !== '' || inputs(c)[0] !== z || !unpadded(c) || replaced.has(c)) return false;
        const [, wName, bName] = inputs(c);
        const w = constantTensor(producer.get(wName ?? ''));
        if (!w || w.dims.length < 3 || users.get(wName!)?.length !== 1) return false;
        return !bName || (constantTensor(producer.get(bName)) !== undefined && users.get(bName)?.length === 1);
      });
      if (convs.length === 0 || !ok) {
        // Elsewhere the affine becomes a depthwise 1x1 convolution: one pass over the tensor that
        // stays in onnxruntime's blocked layout, where Mul and Add with a single number leave it
        // (a reorder out and one back in around them: four passes).
        const channels = channelsOf(x, producer);
        if (channels === undefined) continue;
        const wDw = `${z}.affine_w`;
        const bDw = `${z}.affine_b`;
        replaced.set(mul, [
          makeConstant(wDw, [channels, 1, 1, 1], new Float32Array(channels).fill(s)),
          makeConstant(bDw, [channels], new Float32Array(channels).fill(t)),
        ]);
        replaced.set(add, [
          onnx.NodeProto.create({
            input: [x, wDw, bDw],
            output: [z],
            name: `${z}.affine`,
            opType: 'Conv',
            attribute: [
              { name: 'group', i: channels, type: onnx.AttributeProto.AttributeType.INT },
              { name: 'kernel_shape', ints: [1, 1], type: onnx.AttributeProto.AttributeType.INTS },
            ],
          }),
        ]);
        taken.add(sName).add(tName);
        depthwise++;
        break;
      }
      for (const c of convs) {
        const [, wName, bName] = inputs(c) as [string, string, string | undefined];
        const wNode = producer.get(wName)!;
        const w = constantTensor(wNode)!;
        const bNode = bName ? producer.get(bName) : undefined;
        const b = bNode ? constantTensor(bNode) : undefined;
        const out = w.dims[0]!;
        const per = w.values.length / out;
        const weights = w.values.map((v) => v * s);
        const bias = new Float32Array(out).map((_, o) => {
          let sum = 0;
          for (let k = o * per; k < (o + 1) * per; k++) sum += w.values[k]!;
          return (b ? b.values[o]! : 0) + t * sum;
        });
        const y = outputs(c)[0]!;
        const wNew = `${y}.pre_w`;
        const bNew = `${y}.pre_b`;
        replaced.set(wNode, [makeConstant(wNew, w.dims, weights)]);
        if (bNode) replaced.set(bNode, []);
        replaced.set(c, [makeConstant(bNew, [out], bias), onnx.NodeProto.create({ ...c, input: [x, wNew, bNew] })]);
      }
      taken.add(sName).add(tName);
      replaced.set(mul, []);
      replaced.set(add, []);
      folded++;
      break;
    }
  }
  if (folded + depthwise > 0) replaceNodes(model, replaced, taken);
  return { folded, depthwise };
}

/**
 * `Add(x, Mul(x, g))` with g a HardSigmoid gate (the detector's squeeze-and-excitation with its
 * shortcut, one number a channel) made `Mul(x, Add(g, 1))`: the Add moves from the feature map to
 * the gate's C numbers, one pass over the map fewer (a 96-channel map at a quarter of the photo's
 * size in the detector's neck).
 */
export function foldGateResidual(model: Uint8Array): { model: Uint8Array; folded: number } {
  const m = decode(model);
  const folded = foldGateResidualIn(m);
  return { model: folded === 0 ? model : encode(m), folded };
}

function foldGateResidualIn(model: Model): number {
  const nodes = nodesOf(model);
  const { producer, users } = wiring(nodes);
  const outs = graphOutputs(model);
  const replaced = new Map<Node, Node[]>();
  let folded = 0;
  for (const add of nodes) {
    if (op(add) !== 'Add' || domain(add) !== '' || inputs(add).length !== 2 || replaced.has(add)) continue;
    for (const [x, gated] of [
      [inputs(add)[0]!, inputs(add)[1]!],
      [inputs(add)[1]!, inputs(add)[0]!],
    ] as const) {
      const mul = producer.get(gated);
      if (!mul || op(mul) !== 'Mul' || domain(mul) !== '' || replaced.has(mul)) continue;
      if (users.get(gated)?.length !== 1 || outs.has(gated)) continue;
      const [m0, m1] = inputs(mul) as [string, string];
      const g = m0 === x ? m1 : m1 === x ? m0 : undefined;
      // The gate: a HardSigmoid of a squeeze-and-excitation branch, one number a channel.
      const gate = g === undefined ? undefined : producer.get(g);
      if (!gate || op(gate) !== 'HardSigmoid') continue;
      const one = `${outputs(add)[0]!}.one`;
      const lifted = `${outputs(add)[0]!}.gate_plus_one`;
      replaced.set(mul, [
        makeConstant(one, [], Float32Array.of(1)),
        onnx.NodeProto.create({ input: [g!, one], output: [lifted], name: lifted, opType: 'Add' }),
      ]);
      replaced.set(add, [
        onnx.NodeProto.create({
          input: [x, lifted],
          output: outputs(add),
          name: `${outputs(add)[0]!}.gated`,
          opType: 'Mul',
        }),
      ]);
      folded++;
      break;
    }
  }
  if (folded > 0) replaceNodes(model, replaced, new Set());
  return folded;
}

/** An int attribute of a node, or `fallback` where it has none. */
function intAttribute(n: Node, name: string, fallback: number): number {
  const a = n.attribute?.find((x) => x.name === name);
  return a && a.i !== null && a.i !== undefined ? int(a.i) : fallback;
}

/** A string attribute of a node, or undefined. */
function stringAttribute(n: Node, name: string): string | undefined {
  const s = n.attribute?.find((x) => x.name === name)?.s;
  return s && s.length > 0 ? Buffer.from(s).toString() : undefined;
}

/** The node of one of `opTypes` that alone reads `name` (not a graph output), or undefined. */
function soleReader(name: string, opTypes: string[], users: Map<string, Node[]>, outs: Set<string>): Node | undefined {
  const n = users.get(name)?.[0];
  return n && users.get(name)!.length === 1 && !outs.has(name) && opTypes.includes(op(n)) && domain(n) === ''
    ? n
    : undefined;
}

/**
 * A ConvTranspose whose kernel is its stride, k × k, with no padding, dilation, groups or output
 * padding (the detector head's two, k = 2), with constant weights [Cin, Cout, k, k] it alone reads:
 * its k, weights and bias (if constant and its own), or undefined.
 */
function blockTranspose(
  ct: Node,
  producer: Map<string, Node>,
  users: Map<string, Node[]>,
): { k: number; w: { dims: number[]; values: Float32Array }; b?: Float32Array } | undefined {
  if (op(ct) !== 'ConvTranspose' || domain(ct) !== '' || outputs(ct).length !== 1) return undefined;
  const [x, wName, bName] = inputs(ct);
  const own = (name: string) => users.get(name)?.length === 1;
  const w = wName ? constantTensor(producer.get(wName)) : undefined;
  if (!x || !w || !own(wName!) || w.dims.length !== 4) return undefined;
  const [, cout, k, kw] = w.dims as [number, number, number, number];
  const every = (name: string, value: number) => (intsAttribute(ct, name) ?? []).every((v) => v === value);
  const strides = intsAttribute(ct, 'strides') ?? [];
  const autoPad = stringAttribute(ct, 'auto_pad');
  if (kw !== k || k < 2 || strides.length !== 2 || strides.some((v) => v !== k)) return undefined;
  if ((intsAttribute(ct, 'kernel_shape') ?? [k, k]).some((v) => v !== k)) return undefined;
  if (!every('pads', 0) || !every('dilations', 1) || !every('output_padding', 0)) return undefined;
  if (intAttribute(ct, 'group', 1) !== 1 || intsAttribute(ct, 'output_shape') !== undefined) return undefined;
  if (autoPad !== undefined && autoPad !== 'NOTSET' && autoPad !== 'VALID') return undefined;
  if (!bName) return { k, w };
  const b = constantTensor(producer.get(bName));
  return b && own(bName) && b.values.length === cout ? { k, w, b: b.values } : undefined;
}

function blockTransposeNode(x: string, wName: string, bName: string, out: string, k: number, from?: Node): Node {
  return onnx.NodeProto.create({
    input: [x, wName, bName],
    output: [out],
    name: from?.name ?? out,
    opType: 'ConvTranspose',
    attribute: [
      { name: 'kernel_shape', ints: [k, k], type: onnx.AttributeProto.AttributeType.INTS },
      { name: 'strides', ints: [k, k], type: onnx.AttributeProto.AttributeType.INTS },
    ],
  });
}

/**
 * A bias `Add` (a constant with one number a channel, or one number) and then a BatchNormalization
 * (inference form) after such a ConvTranspose, each read by nothing else, folded into its weights
 * and bias: with `s = γ / √(σ² + ε)`, `W·s` and `(B − μ)·s + β`. onnxruntime runs each as a pass over
 * the ConvTranspose's output (24 channels at half the photo's size in the detector's head).
 */
function foldIntoConvTransposeIn(model: Model): number {
  const nodes = nodesOf(model);
  const { producer, users } = wiring(nodes);
  const outs = graphOutputs(model);
  const replaced = new Map<Node, Node[]>();
  let folded = 0;
  for (const ct of nodes) {
    const t = blockTranspose(ct, producer, users);
    if (!t || replaced.has(ct)) continue;
    const cout = t.w.dims[1]!;
    // y = acc·scale + shift, channel by channel, in double until the weights are written.
    const scale = new Float64Array(cout).fill(1);
    const shift = Float64Array.from({ length: cout }, (_, c) => t.b?.[c] ?? 0);
    const gone: Node[] = [];
    let y = outputs(ct)[0]!;
    const add = soleReader(y, ['Add'], users, outs);
    const other = add && inputs(add).length === 2 ? inputs(add).find((i) => i !== y) : undefined;
    const c = other === undefined ? undefined : constantTensor(producer.get(other));
    // One number, or one a channel shaped to broadcast over channels ([Cout, 1, 1] or [1, Cout, 1, 1]).
    if (c && users.get(other!)?.length === 1) {
      const one = c.values.length === 1;
      const perChannel = c.values.length === cout && c.dims.length >= 3 && c.dims.length <= 4 && c.dims.at(-3) === cout;
      if (one || perChannel) {
        for (let o = 0; o < cout; o++) shift[o]! += one ? c.values[0]! : c.values[o]!;
        gone.push(add!, producer.get(other!)!);
        y = outputs(add!)[0]!;
      }
    }
    const bn = soleReader(y, ['BatchNormalization'], users, outs);
    if (bn && outputs(bn).filter((o) => o !== '').length === 1 && intAttribute(bn, 'spatial', 1) === 1) {
      const params = inputs(bn).slice(1, 5);
      const [gamma, beta, mean, variance] = params.map((n) =>
        users.get(n)?.length === 1 ? constantTensor(producer.get(n)) : undefined,
      );
      const eps = floatAttribute(bn, 'epsilon') ?? 1e-5;
      if (params.length === 4 && [gamma, beta, mean, variance].every((v) => v?.values.length === cout)) {
        for (let o = 0; o < cout; o++) {
          const s = gamma!.values[o]! / Math.sqrt(variance!.values[o]! + eps);
          scale[o] = s;
          shift[o] = (shift[o]! - mean!.values[o]!) * s + beta!.values[o]!;
        }
        gone.push(bn, ...params.map((n) => producer.get(n)!));
        y = outputs(bn)[0]!;
      }
    }
    if (gone.length === 0) continue;
    const [x, wName, bName] = inputs(ct) as [string, string, string | undefined];
    const per = t.w.dims[2]! * t.w.dims[3]!;
    const weights = t.w.values.map((v, i) => v * scale[Math.floor(i / per) % cout]!);
    const wNew = `${y}.transpose_w`;
    const bNew = `${y}.transpose_b`;
    for (const n of [ct, producer.get(wName)!, ...(bName ? [producer.get(bName)!] : []), ...gone]) replaced.set(n, []);
    // The new nodes take the last folded node's place (all they read is made before it).
    replaced.set(gone.filter((n) => op(n) !== 'Constant').at(-1)!, [
      makeConstant(wNew, t.w.dims, weights),
      makeConstant(bNew, [cout], Float32Array.from(shift)),
      blockTransposeNode(x, wNew, bNew, y, t.k, ct),
    ]);
    folded++;
  }
  if (folded > 0) replaceNodes(model, replaced, new Set());
  return folded;
}

/**
 * Two such ConvTransposes in a row with an element-wise Relu or Sigmoid between them (the detector's
 * head: k1 = k2 = 2, 24 channels at half the photo's size between them), the first's output and the
 * activation's read by nothing else, made a pointwise Conv and one ConvTranspose of kernel and stride
 * K = k1·k2, which never writes the map between them:
 *
 * The first writes each input pixel's k1 × k1 block on its own,
 * `y1[c, k1·i + a, k1·j + b] = Σ_ci x[ci, i, j] · W1[ci, c, a, b] + B1[c]`: a pointwise Conv to
 * C·k1² channels, the one of (c, a, b) being `p = (c·k1 + a)·k1 + b` with weights `W1[ci, c, a, b]`
 * and bias `B1[c]`, then DepthToSpace (mode CRD) would place those channels. The activation commutes
 * with that placing, so it acts on the Conv's output (where onnxruntime fuses it into the Conv).
 * The second ConvTranspose reads pixel (k1·i + a, k1·j + b) of y1 to write its k2 × k2 block at
 * (K·i + k2·a + a2, K·j + k2·b + b2): one ConvTranspose (kernel K, stride K) from the pointwise
 * Conv's C·k1² channels, `W[p, co, k2·a + a2, k2·b + b2] = W2[c, co, a2, b2]`, 0 elsewhere, bias B2.
 * Exact up to rounding (the same products, summed in another order).
 *
 * Why not the DepthToSpace itself: onnxruntime 1.30 runs it at about 4 ns an element on one thread
 * (a general six-dimensional shuffle), so a pointwise Conv and DepthToSpace for each ConvTranspose
 * cost more than the ConvTransposes did (D336).
 */
function stackedTransposesIn(model: Model): number {
  const nodes = nodesOf(model);
  const { producer, users } = wiring(nodes);
  const outs = graphOutputs(model);
  const replaced = new Map<Node, Node[]>();
  let merged = 0;
  for (const first of nodes) {
    const t1 = blockTranspose(first, producer, users);
    if (!t1 || replaced.has(first)) continue;
    const activation = soleReader(outputs(first)[0]!, ['Relu', 'Sigmoid'], users, outs);
    const second = activation && soleReader(outputs(activation)[0]!, ['ConvTranspose'], users, outs);
    const t2 =
      second && inputs(second)[0] === outputs(activation)[0] ? blockTranspose(second, producer, users) : undefined;
    if (!t2 || replaced.has(second!)) continue;
    const [cin, c] = t1.w.dims as [number, number];
    const cout = t2.w.dims[1]!;
    const [k1, k2] = [t1.k, t2.k];
    if (t2.w.dims[0] !== c) continue;
    const K = k1 * k2;
    const channels = c * k1 * k1;
    const pwWeights = new Float32Array(channels * cin);
    const pwBias = new Float32Array(channels);
    const weights = new Float32Array(channels * cout * K * K);
    for (let ch = 0; ch < c; ch++)
      for (let a = 0; a < k1; a++)
        for (let b = 0; b < k1; b++) {
          const p = (ch * k1 + a) * k1 + b;
          pwBias[p] = t1.b?.[ch] ?? 0;
          for (let ci = 0; ci < cin; ci++) pwWeights[p * cin + ci] = t1.w.values[((ci * c + ch) * k1 + a) * k1 + b]!;
          for (let co = 0; co < cout; co++)
            for (let a2 = 0; a2 < k2; a2++)
              for (let b2 = 0; b2 < k2; b2++)
                weights[((p * cout + co) * K + k2 * a + a2) * K + k2 * b + b2] =
                  t2.w.values[((ch * cout + co) * k2 + a2) * k2 + b2]!;
        }
    const [x, w1, b1] = inputs(first) as [string, string, string | undefined];
    const [, w2, b2] = inputs(second!) as [string, string, string | undefined];
    const y = outputs(second!)[0]!;
    const pw = `${y}.pointwise`;
    const act = `${y}.pointwise_act`;
    const wPw = `${pw}_w`;
    const bPw = `${pw}_b`;
    const wNew = `${y}.stacked_w`;
    const bNew = `${y}.stacked_b`;
    for (const n of [first, activation!, producer.get(w1)!, producer.get(w2)!]) replaced.set(n, []);
    for (const b of [b1, b2]) if (b) replaced.set(producer.get(b)!, []);
    replaced.set(second!, [
      makeConstant(wPw, [channels, cin, 1, 1], pwWeights),
      makeConstant(bPw, [channels], pwBias),
      onnx.NodeProto.create({
        input: [x, wPw, bPw],
        output: [pw],
        name: pw,
        opType: 'Conv',
        attribute: [{ name: 'kernel_shape', ints: [1, 1], type: onnx.AttributeProto.AttributeType.INTS }],
      }),
      onnx.NodeProto.create({ ...activation!, input: [pw], output: [act] }),
      makeConstant(wNew, [channels, cout, K, K], weights),
      makeConstant(
        bNew,
        [cout],
        Float32Array.from({ length: cout }, (_, co) => t2.b?.[co] ?? 0),
      ),
      blockTransposeNode(act, wNew, bNew, y, K, second),
    ]);
    merged++;
  }
  if (merged > 0) replaceNodes(model, replaced, new Set());
  return merged;
}

function convTransposeIn(model: Model): { folded: number; stacked: number } {
  const folded = foldIntoConvTransposeIn(model);
  // After the folding: the first ConvTranspose is then read by its activation alone.
  const stacked = stackedTransposesIn(model);
  return { folded, stacked };
}

/**
 * The bias Add and BatchNormalization after each block ConvTranspose folded into it
 * (foldIntoConvTransposeIn), then each two in a row with an activation between made a pointwise Conv
 * and one ConvTranspose (stackedTransposesIn).
 */
export function foldConvTranspose(model: Uint8Array): { model: Uint8Array; folded: number; stacked: number } {
  const m = decode(model);
  const r = convTransposeIn(m);
  return { model: r.folded + r.stacked === 0 ? model : encode(m), ...r };
}

/** The model's bytes with every four-node hard-swish made two nodes, and how many were. */
export function fuseHardSwish(model: Uint8Array): { model: Uint8Array; fused: number } {
  const m = decode(model);
  const fused = fuseHardSwishIn(m);
  return { model: fused === 0 ? model : encode(m), fused };
}

/**
 * `Add(Mul(Conv(x, W, B), s), t)` with s and t single numbers (PP-LCNetV3's learnable affine after a
 * convolution) made `Conv(x, W·s, B·s + t)`: two passes over the tensor fewer.
 */
export function foldConvAffine(model: Uint8Array): { model: Uint8Array; folded: number } {
  const m = decode(model);
  const folded = foldConvAffineIn(m);
  return { model: folded === 0 ? model : encode(m), folded };
}

/**
 * `Add(Mul(x, s), t)` with s and t single numbers (PP-LCNetV3's learnable affine after a
 * hard-swish): where only convolutions that pad nothing read it (the pointwise ones), folded into
 * them, `Conv(x, W·s, B + t·ΣW)`; elsewhere, where x's channels are known, made a depthwise 1x1
 * convolution with weights s and bias t.
 */
export function foldActivationAffine(model: Uint8Array): { model: Uint8Array; folded: number; depthwise: number } {
  const m = decode(model);
  const { folded, depthwise } = foldActivationAffineIn(m);
  return { model: folded + depthwise === 0 ? model : encode(m), folded, depthwise };
}

/** The op type of each node of a model's graph, in order (for checking what fuseHardSwish left). */
export function modelOps(model: Uint8Array): string[] {
  return nodesOf(decode(model)).map(op);
}

/** The five rewrites (see the top of this file), and how many groups each changed; decoded once. */
export function simplifyModel(model: Uint8Array): {
  model: Uint8Array;
  hardSwish: number;
  convAffine: number;
  activationAffine: { folded: number; depthwise: number };
  gateResidual: number;
  convTranspose: { folded: number; stacked: number };
} {
  const m = decode(model);
  const hardSwish = fuseHardSwishIn(m);
  const convAffine = foldConvAffineIn(m);
  // After the hard-swish fusion: the affine's x is then recognisably a hard-swish of a convolution.
  const activationAffine = foldActivationAffineIn(m);
  const gateResidual = foldGateResidualIn(m);
  const convTranspose = convTransposeIn(m);
  const changed =
    hardSwish +
    convAffine +
    activationAffine.folded +
    activationAffine.depthwise +
    gateResidual +
    convTranspose.folded +
    convTranspose.stacked;
  return {
    model: changed === 0 ? model : encode(m),
    hardSwish,
    convAffine,
    activationAffine,
    gateResidual,
    convTranspose,
  };
}
