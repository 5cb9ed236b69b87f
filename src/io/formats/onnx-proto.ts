// The ONNX file format (onnx.proto, IR version 8): the subset of its messages an exported graph uses, as a protobufjs
// reflection schema with onnx.proto's field numbers (TypeProto.Tensor and TensorShapeProto.Dimension flattened to
// top-level names; the wire format has no names), and encode/decode of a ModelProto.
import protobuf from 'protobufjs/light.js';

/** TensorProto.DataType values used here. */
export const OnnxDataType = { FLOAT: 1, INT64: 7, BOOL: 9 } as const;

/** AttributeProto.AttributeType values used here. */
export const OnnxAttributeType = { FLOAT: 1, INT: 2, FLOATS: 6, INTS: 7 } as const;

export interface OnnxTensor {
  name: string;
  dims: number[];
  dataType: number;
  /** Little-endian element bytes. */
  rawData: Uint8Array;
}

export interface OnnxAttribute {
  name: string;
  type: number;
  f?: number;
  i?: number;
  floats?: number[];
  ints?: number[];
}

export interface OnnxNode {
  name: string;
  opType: string;
  input: string[];
  output: string[];
  attribute: OnnxAttribute[];
}

/** A dimension: a fixed size, or a symbolic name (a dynamic axis). */
export type OnnxDim = { dimValue: number } | { dimParam: string };

export interface OnnxValueInfo {
  name: string;
  type: { tensorType: { elemType: number; shape: { dim: OnnxDim[] } } };
}

export interface OnnxGraph {
  name: string;
  node: OnnxNode[];
  initializer: OnnxTensor[];
  input: OnnxValueInfo[];
  output: OnnxValueInfo[];
}

export interface OnnxModel {
  irVersion: number;
  opsetImport: { domain: string; version: number }[];
  producerName: string;
  producerVersion: string;
  docString: string;
  graph: OnnxGraph;
  metadataProps: { key: string; value: string }[];
}

const field = (id: number, type: string, rule?: 'repeated') => ({ id, type, ...(rule ? { rule } : {}) });

/** onnx.proto's messages, only the fields above, under their original numbers. */
const SCHEMA = {
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            irVersion: field(1, 'int64'),
            producerName: field(2, 'string'),
            producerVersion: field(3, 'string'),
            docString: field(6, 'string'),
            graph: field(7, 'GraphProto'),
            opsetImport: field(8, 'OperatorSetIdProto', 'repeated'),
            metadataProps: field(14, 'StringStringEntryProto', 'repeated'),
          },
        },
        OperatorSetIdProto: { fields: { domain: field(1, 'string'), version: field(2, 'int64') } },
        StringStringEntryProto: { fields: { key: field(1, 'string'), value: field(2, 'string') } },
        GraphProto: {
          fields: {
            node: field(1, 'NodeProto', 'repeated'),
            name: field(2, 'string'),
            initializer: field(5, 'TensorProto', 'repeated'),
            input: field(11, 'ValueInfoProto', 'repeated'),
            output: field(12, 'ValueInfoProto', 'repeated'),
          },
        },
        NodeProto: {
          fields: {
            input: field(1, 'string', 'repeated'),
            output: field(2, 'string', 'repeated'),
            name: field(3, 'string'),
            opType: field(4, 'string'),
            attribute: field(5, 'AttributeProto', 'repeated'),
          },
        },
        AttributeProto: {
          fields: {
            name: field(1, 'string'),
            f: field(2, 'float'),
            i: field(3, 'int64'),
            floats: field(7, 'float', 'repeated'),
            ints: field(8, 'int64', 'repeated'),
            type: field(20, 'int32'),
          },
        },
        TensorProto: {
          fields: {
            dims: field(1, 'int64', 'repeated'),
            dataType: field(2, 'int32'),
            name: field(8, 'string'),
            rawData: field(9, 'bytes'),
          },
        },
        ValueInfoProto: { fields: { name: field(1, 'string'), type: field(2, 'TypeProto') } },
        TypeProto: {
          fields: { tensorType: field(1, 'TensorTypeProto') },
        },
        TensorTypeProto: { fields: { elemType: field(1, 'int32'), shape: field(2, 'TensorShapeProto') } },
        TensorShapeProto: { fields: { dim: field(1, 'Dimension', 'repeated') } },
        Dimension: { fields: { dimValue: field(1, 'int64'), dimParam: field(2, 'string') } },
      },
    },
  },
};

const ModelProto = protobuf.Root.fromJSON(SCHEMA).lookupType('onnx.ModelProto');

/** A protobuf message is at most 2 GiB; a larger model needs ONNX's external data files, which are not written here. */
const MAX_INITIALIZER_BYTES = 2 ** 31 - 2 ** 24;

/** The bytes of an .onnx file. */
export function encodeOnnxModel(model: OnnxModel): Uint8Array {
  const initializerBytes = model.graph.initializer.reduce((sum, t) => sum + t.rawData.length, 0);
  if (initializerBytes > MAX_INITIALIZER_BYTES)
    throw new RangeError(
      `the model's weights take ${initializerBytes} bytes; one ONNX file holds under 2 GiB (a protobuf limit), and ` +
        'external data files are not written: export a smaller model',
    );
  const problem = ModelProto.verify(model);
  if (problem) throw new Error(`ONNX model does not fit onnx.proto: ${problem}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

/** An .onnx file's ModelProto (int64 fields as numbers; tensors' raw_data as bytes). */
export function decodeOnnxModel(bytes: Uint8Array): OnnxModel {
  return ModelProto.toObject(ModelProto.decode(bytes), { longs: Number, defaults: true, arrays: true }) as OnnxModel;
}
