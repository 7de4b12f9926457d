/**
 * The PP-OCRv4 models as Paddle2ONNX exported them spell two things in element-wise nodes that
 * onnxruntime runs as a pass over the tensor each (and, around its blocked-layout convolutions, as
 * many layout reorders): on one thread those nodes were 35-40 % of both models' kernel time.
 *
 * - each hard-swish as `Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)`: fuseHardSwish makes it
 *   `Mul(x, HardSigmoid(x; 1/6, 0.5))`, the same function in two nodes;
 * - PP-LCNetV3's learnable affine after a convolution, `Add(Mul(Conv(x, W, B), s), t)` with s and t
 *   single numbers: foldConvAffine makes it `Conv(x, W·s, B·s + t)`.
 *
 * simplifyModel does both to a model's bytes before its session is made; the files on disk are not
 * touched. Only the protobuf wire format is read here (no ONNX library): the graph is taken apart
 * into its nodes, the matched ones replaced, the rest copied byte for byte. The outputs stay the same
 * up to float rounding (largest difference on the models' fixed test inputs under 1e-5).
 */

type Field = { field: number; wire: number; bytes: Uint8Array; value: number | Uint8Array };

function readVarint(b: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let p = at; ;) {
    const x = b[p++];
    if (x === undefined) throw new Error('hard-swish: truncated varint');
    value += (x & 127) * scale;
    scale *= 128;
    if (x < 128) return [value, p];
  }
}

/** The top-level fields of one protobuf message, each with its own encoded bytes. */
function fields(b: Uint8Array): Field[] {
  const out: Field[] = [];
  let p = 0;
  while (p < b.length) {
    const start = p;
    let tag: number;
    [tag, p] = readVarint(b, p);
    const wire = tag & 7;
    let value: number | Uint8Array;
    if (wire === 0) [value, p] = readVarint(b, p);
    else if (wire === 2) {
      let n: number;
      [n, p] = readVarint(b, p);
      value = b.subarray(p, p + n);
      p += n;
    } else if (wire === 5 || wire === 1) {
      const n = wire === 5 ? 4 : 8;
      value = b.subarray(p, p + n);
      p += n;
    } else throw new Error(`hard-swish: wire type ${wire} not expected in an ONNX model`);
    if (p > b.length) throw new Error('hard-swish: truncated message');
    out.push({ field: Math.floor(tag / 8), wire, bytes: b.subarray(start, p), value });
  }
  return out;
}

function varint(value: number): number[] {
  const out: number[] = [];
  while (value >= 128) {
    out.push((value % 128) | 128);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return out;
}

const text = new TextEncoder();
const words = new TextDecoder();

function lengthDelimited(field: number, payload: Uint8Array): Uint8Array {
  return concat([Uint8Array.from([...varint(field * 8 + 2), ...varint(payload.length)]), payload]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const str = (f: Field) => words.decode(f.value as Uint8Array);

// ModelProto.graph = 7; GraphProto.node = 1; NodeProto: input 1, output 2, name 3, op_type 4,
// attribute 5, domain 7; AttributeProto: name 1, f 2, type 20 (FLOAT = 1), t 5; TensorProto:
// data_type 2 (FLOAT = 1), float_data 4, raw_data 9.
type Node = { bytes: Uint8Array; op: string; domain: string; inputs: string[]; outputs: string[]; fields: Field[] };

function node(f: Field): Node {
  const fs = fields(f.value as Uint8Array);
  return {
    bytes: f.bytes,
    op: fs.filter((x) => x.field === 4).map(str)[0] ?? '',
    domain: fs.filter((x) => x.field === 7).map(str)[0] ?? '',
    inputs: fs.filter((x) => x.field === 1).map(str),
    outputs: fs.filter((x) => x.field === 2).map(str),
    fields: fs,
  };
}

/** The single float a Constant node (or a FLOAT attribute `name`) holds, or undefined. */
function scalarOf(n: Node): number | undefined {
  if (n.op !== 'Constant' || n.domain !== '') return undefined;
  const value = n.fields.find(
    (f) => f.field === 5 && fields(f.value as Uint8Array).some((a) => a.field === 1 && str(a) === 'value'),
  );
  if (!value) return undefined;
  const tensor = fields(value.value as Uint8Array).find((a) => a.field === 5);
  if (!tensor) return undefined;
  const t = fields(tensor.value as Uint8Array);
  if (t.find((x) => x.field === 2)?.value !== 1) return undefined;
  const raw = t.find((x) => x.field === 9)?.value ?? t.find((x) => x.field === 4 && x.wire === 2)?.value;
  if (raw instanceof Uint8Array && raw.length === 4)
    return new DataView(raw.buffer, raw.byteOffset, 4).getFloat32(0, true);
  const single = t.find((x) => x.field === 4 && x.wire === 5)?.value;
  if (single instanceof Uint8Array) return new DataView(single.buffer, single.byteOffset, 4).getFloat32(0, true);
  return undefined;
}

function floatAttribute(n: Node, name: string): number | undefined {
  for (const f of n.fields.filter((x) => x.field === 5)) {
    const a = fields(f.value as Uint8Array);
    if (a.some((x) => x.field === 1 && str(x) === name)) {
      const v = a.find((x) => x.field === 2)?.value;
      return v instanceof Uint8Array ? new DataView(v.buffer, v.byteOffset, 4).getFloat32(0, true) : undefined;
    }
  }
  return undefined;
}

function encodeNode(
  op: string,
  inputs: string[],
  outputs: string[],
  name: string,
  attributes: [string, number][],
): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const i of inputs) parts.push(lengthDelimited(1, text.encode(i)));
  for (const o of outputs) parts.push(lengthDelimited(2, text.encode(o)));
  parts.push(lengthDelimited(3, text.encode(name)));
  parts.push(lengthDelimited(4, text.encode(op)));
  for (const [key, value] of attributes) {
    const f = new Uint8Array(4);
    new DataView(f.buffer).setFloat32(0, value, true);
    parts.push(
      lengthDelimited(
        5,
        concat([
          lengthDelimited(1, text.encode(key)),
          Uint8Array.from([2 * 8 + 5]),
          f,
          Uint8Array.from([...varint(20 * 8), 1]),
        ]),
      ),
    );
  }
  return lengthDelimited(1, concat(parts));
}

/** The model's bytes with every four-node hard-swish made two nodes, and how many were. */
export function fuseHardSwish(model: Uint8Array): { model: Uint8Array; fused: number } {
  const top = fields(model);
  const graphField = top.find((f) => f.field === 7);
  if (!graphField) return { model, fused: 0 };
  const graph = fields(graphField.value as Uint8Array);
  const nodes = graph.filter((f) => f.field === 1).map(node);
  const producer = new Map<string, Node>();
  const uses = new Map<string, number>();
  for (const n of nodes) {
    for (const o of n.outputs) producer.set(o, n);
    for (const i of n.inputs) uses.set(i, (uses.get(i) ?? 0) + 1);
  }
  // Graph outputs count as uses: a matched node's output must feed only the next node of the group.
  const graphOutputs = new Set(
    graph
      .filter((x) => x.field === 12)
      .flatMap((f) =>
        fields(f.value as Uint8Array)
          .filter((x) => x.field === 1)
          .map(str),
      ),
  );
  for (const name of graphOutputs) uses.set(name, (uses.get(name) ?? 0) + 1);
  const taken = new Set<string>();
  const constant = (name: string | undefined) =>
    name === undefined ? undefined : scalarOf(producer.get(name) ?? ({} as Node));
  const single = (name: string) => uses.get(name) === 1;
  const replaced = new Map<Node, Uint8Array | null>();
  let fused = 0;
  for (const div of nodes) {
    if (div.op !== 'Div' || div.domain !== '' || div.inputs.length !== 2 || constant(div.inputs[1]) !== 6) continue;
    const mul = producer.get(div.inputs[0]!);
    if (!mul || mul.op !== 'Mul' || mul.domain !== '' || mul.inputs.length !== 2 || !single(mul.outputs[0]!)) continue;
    for (const [x, c] of [
      [mul.inputs[0]!, mul.inputs[1]!],
      [mul.inputs[1]!, mul.inputs[0]!],
    ]) {
      const clip = producer.get(c!);
      if (!clip || clip.op !== 'Clip' || clip.domain !== '' || !single(clip.outputs[0]!)) continue;
      // Clip's bounds: attributes up to opset 10, inputs from 11.
      const lo = clip.inputs.length > 1 ? constant(clip.inputs[1]) : floatAttribute(clip, 'min');
      const hi = clip.inputs.length > 2 ? constant(clip.inputs[2]) : floatAttribute(clip, 'max');
      if (lo !== 0 || hi !== 6) continue;
      const add = producer.get(clip.inputs[0]!);
      if (!add || add.op !== 'Add' || add.domain !== '' || !single(add.outputs[0]!)) continue;
      const three = add.inputs[0] === x ? add.inputs[1] : add.inputs[1] === x ? add.inputs[0] : undefined;
      if (three === undefined || constant(three) !== 3) continue;
      if (replaced.has(add) || replaced.has(clip) || replaced.has(mul) || replaced.has(div)) continue;
      for (const name of [three, div.inputs[1]!, ...clip.inputs.slice(1)]) taken.add(name);
      const gate = `${div.outputs[0]}.hard_sigmoid`;
      replaced.set(add, null);
      replaced.set(clip, null);
      replaced.set(
        mul,
        encodeNode('HardSigmoid', [x!], [gate], gate, [
          ['alpha', 1 / 6],
          ['beta', 0.5],
        ]),
      );
      replaced.set(div, encodeNode('Mul', [x!, gate], [div.outputs[0]!], `${div.outputs[0]}.hard_swish`, []));
      fused++;
      break;
    }
  }
  if (fused === 0) return { model, fused };
  // The constants (3, 0, 6 and 6) the groups read that nothing else reads go too.
  const left = new Map<string, number>();
  for (const n of nodes) if (!replaced.has(n)) for (const i of n.inputs) left.set(i, (left.get(i) ?? 0) + 1);
  for (const n of nodes)
    if (n.op === 'Constant' && n.outputs.every((o) => taken.has(o) && !left.has(o) && !graphOutputs.has(o)))
      replaced.set(n, null);
  // Nodes stay in their order (a topological one): the HardSigmoid takes the Mul's place, after x
  // is made, and the new Mul the Div's, after the HardSigmoid.
  const byBytes = new Map(nodes.map((n) => [n.bytes, n]));
  const newGraph = concat(
    graph.map((f) => {
      const n = f.field === 1 ? byBytes.get(f.bytes) : undefined;
      if (!n || !replaced.has(n)) return f.bytes;
      return replaced.get(n) ?? new Uint8Array(0);
    }),
  );
  const out = concat(top.map((f) => (f === graphField ? lengthDelimited(7, newGraph) : f.bytes)));
  return { model: out, fused };
}

/** The op type of each node of a model's graph, in order (for checking what fuseHardSwish left). */
export function modelOps(model: Uint8Array): string[] {
  const graph = fields(model).find((f) => f.field === 7);
  if (!graph) return [];
  return fields(graph.value as Uint8Array)
    .filter((f) => f.field === 1)
    .map((f) => node(f).op);
}

/** A float tensor held by a Constant node: its dims and values, or undefined. */
function constantTensor(n: Node): { dims: number[]; values: Float32Array } | undefined {
  if (n.op !== 'Constant' || n.domain !== '') return undefined;
  const value = n.fields.find(
    (f) => f.field === 5 && fields(f.value as Uint8Array).some((a) => a.field === 1 && str(a) === 'value'),
  );
  const tensor = value && fields(value.value as Uint8Array).find((a) => a.field === 5);
  if (!tensor) return undefined;
  const t = fields(tensor.value as Uint8Array);
  if (t.find((x) => x.field === 2)?.value !== 1) return undefined;
  const dims: number[] = [];
  for (const d of t.filter((x) => x.field === 1)) {
    if (typeof d.value === 'number') dims.push(d.value);
    else
      for (let p = 0; p < d.value.length;) {
        let v: number;
        [v, p] = readVarint(d.value, p);
        dims.push(v);
      }
  }
  const size = dims.reduce((a, b) => a * b, 1);
  const raw = t.find((x) => x.field === 9)?.value;
  const floats = (b: Uint8Array) => (b.length % 4 === 0 ? new Float32Array(new Uint8Array(b).buffer) : undefined);
  let values: Float32Array | undefined;
  if (raw instanceof Uint8Array) values = floats(raw);
  else {
    const packed = t.find((x) => x.field === 4 && x.wire === 2)?.value;
    if (packed instanceof Uint8Array) values = floats(packed);
    else {
      const singles = t.filter((x) => x.field === 4 && x.wire === 5).map((x) => x.value as Uint8Array);
      values = floats(concat(singles));
    }
  }
  return values?.length === size ? { dims, values } : undefined;
}

function encodeConstant(output: string, dims: number[], values: Float32Array): Uint8Array {
  const tensor = concat([
    ...dims.map((d) => Uint8Array.from([1 * 8, ...varint(d)])),
    Uint8Array.from([2 * 8, 1]),
    lengthDelimited(9, new Uint8Array(values.buffer, values.byteOffset, values.byteLength)),
  ]);
  const attribute = concat([
    lengthDelimited(1, text.encode('value')),
    lengthDelimited(5, tensor),
    Uint8Array.from([...varint(20 * 8), 4]),
  ]);
  return lengthDelimited(
    1,
    concat([
      lengthDelimited(2, text.encode(output)),
      lengthDelimited(3, text.encode(output)),
      lengthDelimited(4, text.encode('Constant')),
      lengthDelimited(5, attribute),
    ]),
  );
}

/**
 * `Add(Mul(Conv(x, W, B), s), t)` with s and t single numbers (PP-LCNetV3's learnable affine after a
 * convolution) made `Conv(x, W·s, B·s + t)`: two passes over the tensor fewer.
 */
export function foldConvAffine(model: Uint8Array): { model: Uint8Array; folded: number } {
  const top = fields(model);
  const graphField = top.find((f) => f.field === 7);
  if (!graphField) return { model, folded: 0 };
  const graph = fields(graphField.value as Uint8Array);
  const nodes = graph.filter((f) => f.field === 1).map(node);
  const producer = new Map<string, Node>();
  const users = new Map<string, Node[]>();
  for (const n of nodes) {
    for (const o of n.outputs) producer.set(o, n);
    for (const i of n.inputs) users.set(i, [...(users.get(i) ?? []), n]);
  }
  const graphOutputs = new Set(
    graph
      .filter((x) => x.field === 12)
      .flatMap((f) =>
        fields(f.value as Uint8Array)
          .filter((x) => x.field === 1)
          .map(str),
      ),
  );
  const only = (name: string, n: Node) =>
    users.get(name)?.length === 1 && users.get(name)![0] === n && !graphOutputs.has(name);
  const scalar = (name: string) => {
    const p = producer.get(name);
    const t = p && constantTensor(p);
    return t && t.values.length === 1 ? t.values[0]! : undefined;
  };
  const replaced = new Map<Node, Uint8Array | null>();
  const taken = new Set<string>();
  let folded = 0;
  for (const conv of nodes) {
    if (conv.op !== 'Conv' || conv.domain !== '' || conv.outputs.length !== 1 || replaced.has(conv)) continue;
    const y = conv.outputs[0]!;
    const mul = users.get(y)?.[0];
    if (!mul || !only(y, mul) || mul.op !== 'Mul' || mul.domain !== '') continue;
    const sName = mul.inputs[0] === y ? mul.inputs[1] : mul.inputs[0];
    const s = sName === undefined ? undefined : scalar(sName);
    if (s === undefined) continue;
    const add = users.get(mul.outputs[0]!)?.[0];
    if (!add || !only(mul.outputs[0]!, add) || add.op !== 'Add' || add.domain !== '') continue;
    const tName = add.inputs[0] === mul.outputs[0] ? add.inputs[1] : add.inputs[0];
    const t = tName === undefined ? undefined : scalar(tName);
    if (t === undefined) continue;
    const [x, wName, bName] = conv.inputs;
    const wNode = wName === undefined ? undefined : producer.get(wName);
    const w = wNode && constantTensor(wNode);
    if (!x || !w || !only(wName!, conv)) continue;
    const bNode = bName ? producer.get(bName) : undefined;
    const b = bNode ? constantTensor(bNode) : undefined;
    if (bName && (!b || !only(bName, conv))) continue;
    const out = w.dims[0]!;
    const weights = w.values.map((v) => v * s);
    const bias = new Float32Array(out).map((_, i) => (b ? b.values[i]! * s : 0) + t);
    const result = add.outputs[0]!;
    const wNew = `${result}.folded_w`;
    const bNew = `${result}.folded_b`;
    taken.add(sName!).add(tName!);
    replaced.set(wNode!, encodeConstant(wNew, w.dims, weights));
    if (bNode) replaced.set(bNode, null);
    replaced.set(mul, null);
    replaced.set(add, null);
    const rest = conv.fields.filter((f) => f.field !== 1 && f.field !== 2).map((f) => f.bytes);
    replaced.set(
      conv,
      lengthDelimited(
        1,
        concat([
          ...[x, wNew, bNew].map((i) => lengthDelimited(1, text.encode(i))),
          lengthDelimited(2, text.encode(result)),
          ...rest,
        ]),
      ),
    );
    // The bias constant comes right before the Conv, after the new weights' place.
    replaced.set(conv, concat([encodeConstant(bNew, [out], bias), replaced.get(conv)!]));
    folded++;
  }
  if (folded === 0) return { model, folded };
  // The scale and shift constants nothing else reads go too.
  const left = new Set(nodes.filter((n) => !replaced.has(n)).flatMap((n) => n.inputs));
  for (const n of nodes)
    if (n.op === 'Constant' && n.outputs.every((o) => taken.has(o) && !left.has(o) && !graphOutputs.has(o)))
      replaced.set(n, null);
  const byBytes = new Map(nodes.map((n) => [n.bytes, n]));
  const newGraph = concat(
    graph.map((f) => {
      const n = f.field === 1 ? byBytes.get(f.bytes) : undefined;
      if (!n || !replaced.has(n)) return f.bytes;
      return replaced.get(n) ?? new Uint8Array(0);
    }),
  );
  return { model: concat(top.map((f) => (f === graphField ? lengthDelimited(7, newGraph) : f.bytes))), folded };
}

/** Both rewrites (see the top of this file), and how many groups each changed. */
export function simplifyModel(model: Uint8Array): { model: Uint8Array; hardSwish: number; convAffine: number } {
  const swish = fuseHardSwish(model);
  const affine = foldConvAffine(swish.model);
  return { model: affine.model, hardSwish: swish.fused, convAffine: affine.folded };
}
