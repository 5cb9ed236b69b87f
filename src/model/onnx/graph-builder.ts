// Builds an ONNX graph node by node: named initializers (each stored once), shared constants, and ops named by their
// scope ("layers.0.attention/MatMul_12", output "t12").
import {
  type OnnxAttribute,
  OnnxAttributeType,
  OnnxDataType,
  type OnnxNode,
  type OnnxTensor,
} from '../../io/formats/onnx-proto.ts';

/** An attribute value: an integer, a float (wrap with `float()`), or a list of integers. */
export type AttributeValue = number | number[] | { float: number };

export const float = (value: number): { float: number } => ({ float: value });

function attribute(name: string, value: AttributeValue): OnnxAttribute {
  if (Array.isArray(value)) return { name, type: OnnxAttributeType.INTS, ints: value };
  if (typeof value === 'object') return { name, type: OnnxAttributeType.FLOAT, f: value.float };
  if (!Number.isInteger(value)) throw new Error(`attribute ${name}: ${value} is not an integer; wrap floats in float()`);
  return { name, type: OnnxAttributeType.INT, i: value };
}

function littleEndianBytes(data: Float32Array | BigInt64Array): Uint8Array {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('ONNX export needs a little-endian host');
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export class OnnxGraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxTensor[] = [];
  private readonly names = new Set<string>();
  private readonly constants = new Map<string, string>();
  private count = 0;

  /** A float32 initializer; its name must be new (a tensor is stored once and shared by name). */
  floats(name: string, dims: number[], data: Float32Array): string {
    const size = dims.reduce((a, b) => a * b, 1);
    if (data.length !== size) throw new RangeError(`initializer ${name}: ${data.length} values for shape [${dims.join(', ')}]`);
    return this.initializer({ name, dims, dataType: OnnxDataType.FLOAT, rawData: littleEndianBytes(data) });
  }

  /** An int64 initializer (shapes, axes, indices). */
  int64s(name: string, dims: number[], values: number[]): string {
    const data = BigInt64Array.from(values, (v) => BigInt(v));
    return this.initializer({ name, dims, dataType: OnnxDataType.INT64, rawData: littleEndianBytes(data) });
  }

  /** A float32 scalar constant, shared by every use of the same name (declared once). */
  scalar(name: string, value: number): string {
    return this.constant(name, String(value), () => this.floats(name, [], Float32Array.of(value)));
  }

  /** An int64 constant vector (or scalar with dims []), shared by every use of the same name. */
  indices(name: string, values: number[], dims: number[] = [values.length]): string {
    return this.constant(name, `${dims}:${values}`, () => this.int64s(name, dims, values));
  }

  /** Whether a tensor of that name exists already. */
  has(name: string): boolean {
    return this.names.has(name);
  }

  /** Adds one node and returns its single output's name. */
  op(opType: string, inputs: string[], scope: string, attributes: Record<string, AttributeValue> = {}): string {
    return this.opMulti(opType, inputs, scope, 1, attributes)[0];
  }

  /** Adds one node with `outputs` outputs and returns their names. */
  opMulti(
    opType: string,
    inputs: string[],
    scope: string,
    outputs: number,
    attributes: Record<string, AttributeValue> = {},
  ): string[] {
    const n = this.count++;
    const name = `${scope}/${opType}_${n}`;
    // short tensor names: each is written once per use, the node's name carries the scope
    const output = Array.from({ length: outputs }, (_, i) => (outputs === 1 ? `t${n}` : `t${n}_${i}`));
    this.nodes.push({
      name,
      opType,
      input: inputs,
      output,
      attribute: Object.entries(attributes).map(([key, value]) => attribute(key, value)),
    });
    for (const out of output) this.names.add(out);
    return output;
  }

  /** Names a tensor as a graph output (an Identity node whose output is `name`). */
  output(name: string, from: string): string {
    if (this.names.has(name)) throw new Error(`ONNX graph: a tensor named ${name} exists already`);
    this.nodes.push({ name: `output/${name}`, opType: 'Identity', input: [from], output: [name], attribute: [] });
    this.names.add(name);
    return name;
  }

  private constant(name: string, value: string, declare: () => string): string {
    const known = this.constants.get(name);
    if (known === undefined) {
      this.constants.set(name, value);
      return declare();
    }
    if (known !== value) throw new Error(`ONNX graph: constant ${name} is ${known}, not ${value}`);
    return name;
  }

  private initializer(tensor: OnnxTensor): string {
    if (this.names.has(tensor.name)) throw new Error(`ONNX graph: a tensor named ${tensor.name} exists already`);
    this.names.add(tensor.name);
    this.initializers.push(tensor);
    return tensor.name;
  }
}
