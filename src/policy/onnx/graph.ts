// A small builder of ONNX graphs on top of onnx-proto's generated classes: inputs, constants,
// nodes and outputs by name, serialized to the bytes ONNX Runtime (Node, Python, C#, web) loads.
// Every value is named by the builder; `op` returns the name of its single output.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export type DType = 'float32' | 'float64';
const ELEM = { float32: onnx.TensorProto.DataType.FLOAT, float64: onnx.TensorProto.DataType.DOUBLE, int64: onnx.TensorProto.DataType.INT64 };
/** Opset 17: the last one where ReduceMean takes its axes as an attribute. */
const OPSET = 17;

type Attr = number | number[] | string;

export interface GraphBuilder {
  dtype: DType;
  /** A graph input; dims are numbers or symbolic names ('N' for the batch). */
  input(name: string, dims: (number | string)[], elem?: DType | 'int64'): string;
  /** A constant tensor of the graph's float type (or int64). */
  constant(values: ArrayLike<number>, dims: number[], elem?: DType | 'int64', name?: string): string;
  scalar(x: number): string;
  ints(values: number[]): string;
  /** A node; returns the name of its output (`name` when given). */
  op(type: string, inputs: string[], attrs?: Record<string, Attr>, name?: string): string;
  /** A node with `count` outputs; returns their names. */
  ops(type: string, inputs: string[], count: number, attrs?: Record<string, Attr>): string[];
  output(value: string, name: string, dims: (number | string)[], elem?: DType): void;
  /** The serialized ModelProto. */
  bytes(meta?: Record<string, string>): Uint8Array;
}

function attribute(name: string, v: Attr) {
  const { AttributeType } = onnx.AttributeProto;
  if (typeof v === 'string') return { name, type: AttributeType.STRING, s: new TextEncoder().encode(v) };
  if (Array.isArray(v)) return { name, type: AttributeType.INTS, ints: v };
  return Number.isInteger(v) ? { name, type: AttributeType.INT, i: v } : { name, type: AttributeType.FLOAT, f: v };
}

function valueInfo(name: string, dims: (number | string)[], elem: number) {
  return {
    name,
    type: { tensorType: { elemType: elem, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
  };
}

export function graphBuilder(dtype: DType, graphName = 'graph'): GraphBuilder {
  const nodes: { opType: string; input: string[]; output: string[]; name: string; attribute: object[] }[] = [];
  const initializers: object[] = [];
  const inputs: { name: string }[] = [];
  const outputs: object[] = [];
  const scalars = new Map<number, string>();
  let counter = 0;
  const fresh = (hint: string) => `${hint}_${counter++}`;

  const b: GraphBuilder = {
    dtype,
    input(name, dims, elem = dtype) {
      inputs.push(valueInfo(name, dims, ELEM[elem]));
      return name;
    },
    constant(values, dims, elem = dtype, name = fresh('const')) {
      const raw =
        elem === 'int64' ? new BigInt64Array(Array.from(values, (x) => BigInt(x))) : elem === 'float64' ? Float64Array.from(values) : Float32Array.from(values);
      initializers.push({ name, dims, dataType: ELEM[elem], rawData: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength) });
      return name;
    },
    scalar(x) {
      let name = scalars.get(x);
      if (!name) scalars.set(x, (name = b.constant([x], [])));
      return name;
    },
    ints(values) {
      return b.constant(values, [values.length], 'int64');
    },
    op(type, ins, attrs = {}, name = fresh(type)) {
      nodes.push({ opType: type, input: ins, output: [name], name, attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)) });
      return name;
    },
    ops(type, ins, count, attrs = {}) {
      const name = fresh(type);
      const outs = Array.from({ length: count }, (_, k) => `${name}:${k}`);
      nodes.push({ opType: type, input: ins, output: outs, name, attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)) });
      return outs;
    },
    output(value, name, dims, elem = dtype) {
      // Rename the producing node's output (an Identity node would copy the tensor).
      const producer = nodes.find((n) => n.output.includes(value));
      if (producer && !inputs.some((i) => i.name === value)) {
        producer.output[producer.output.indexOf(value)] = name;
        for (const n of nodes) n.input = n.input.map((x) => (x === value ? name : x));
      } else b.op('Identity', [value], {}, name);
      outputs.push(valueInfo(name, dims, ELEM[elem]));
    },
    bytes(meta = {}) {
      const model = onnx.ModelProto.create({
        irVersion: 8,
        producerName: 'cpp-workbench',
        opsetImport: [{ domain: '', version: OPSET }],
        metadataProps: Object.entries(meta).map(([key, value]) => ({ key, value })),
        graph: { name: graphName, node: nodes, initializer: initializers, input: inputs, output: outputs },
      });
      return onnx.ModelProto.encode(model).finish();
    },
  };
  return b;
}
