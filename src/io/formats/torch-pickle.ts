// Restricted reader for PyTorch `pytorch_model.bin` state dicts, zip format (torch >= 1.6) and the legacy format before it.
// Only the globals a tensor state dict needs are allowed; each storage is decoded once and views share it.
// One file (about 440 lines) on purpose: the pickle opcodes, the allow-list of globals and the storage rules are one
// security boundary, read and reviewed together.
import { CheckpointFormatError, clip } from '../format-error.ts';
import { DTYPE_BYTES, decodeToFloat32, type StorageDtype } from './dtype.ts';
import { tensorSize, type HostTensor, type TensorMap } from '../host-tensor.ts';
import { PickleDict, PickleTuple, describePickleValue, unpickle, type PickleGlobal, type PickleHooks } from './pickle.ts';
import { readZipDirectory, zipEntryBytes } from './zip.ts';

export interface TorchStorageRef {
  key: string;
  dtype: StorageDtype;
  /** Elements in the storage. */
  numel: number;
}

export interface TorchTensorRef {
  storage: TorchStorageRef;
  /** Offset, shape and strides count elements, as in PyTorch. */
  offset: number;
  shape: number[];
  stride: number[];
}

export type TorchFormat = 'zip' | 'legacy';

/** The state dict as the pickle describes it, before any tensor data is decoded. */
export interface TorchStateIndex {
  file: string;
  format: TorchFormat;
  tensors: Map<string, TorchTensorRef>;
  /** Raw bytes of a storage, checked against its size. */
  storageBytes(storage: TorchStorageRef): Uint8Array;
}

export interface TorchCheckpoint {
  format: TorchFormat;
  tensors: TensorMap;
  /** alias name -> canonical name, for names whose tensors are the same view of one storage (tied weights). */
  aliases: Map<string, string>;
  /** Groups of names that use one storage through different views (contiguous ones share its memory). */
  sharedStorages: string[][];
}

const STORAGE_DTYPES: Record<string, StorageDtype> = {
  FloatStorage: 'F32',
  HalfStorage: 'F16',
  BFloat16Storage: 'BF16',
  DoubleStorage: 'F64',
  LongStorage: 'I64',
  IntStorage: 'I32',
  ShortStorage: 'I16',
  CharStorage: 'I8',
  ByteStorage: 'U8',
  BoolStorage: 'BOOL',
};

const LEGACY_MAGIC = 0x1950a86a20f9469cfc6cn;

/** A storage class global (torch.FloatStorage, ...): data, never callable. */
class StorageType implements PickleGlobal {
  constructor(
    readonly qualifiedName: string,
    readonly dtype: StorageDtype,
  ) {}
}

function checkIndexList(file: string, what: string, value: unknown): number[] {
  if (!(value instanceof PickleTuple) || !value.items.every((v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) {
    throw new CheckpointFormatError(file, `tensor ${what} ${describePickleValue(value)} is not a tuple of non-negative integers`);
  }
  return value.items as number[];
}

function rebuildTensor(file: string, args: unknown[]): TorchTensorRef {
  const [storage, offset, size, stride] = args;
  if (!(storage instanceof Object) || !('key' in storage)) {
    throw new CheckpointFormatError(file, `tensor storage is ${describePickleValue(storage)}, not a persistent storage`);
  }
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw new CheckpointFormatError(file, `tensor storage offset ${describePickleValue(offset)} is not a non-negative integer`);
  }
  const shape = checkIndexList(file, 'size', size);
  const strides = checkIndexList(file, 'stride', stride);
  if (shape.length !== strides.length)
    throw new CheckpointFormatError(file, `tensor size has ${shape.length} dims but stride has ${strides.length}`);
  return { storage: storage as TorchStorageRef, offset, shape, stride: strides };
}

/** The allow-list: a state dict needs dicts, tensor and parameter rebuilders and storage classes, nothing else. */
function stateDictGlobals(file: string): (module: string, name: string) => PickleGlobal {
  const callables: Record<string, (args: unknown[]) => unknown> = {
    'collections.OrderedDict': (args) => {
      const dict = new PickleDict();
      if (args.length > 0)
        throw new CheckpointFormatError(file, 'OrderedDict called with arguments; only OrderedDict() is allowed');
      return dict;
    },
    'torch._utils._rebuild_tensor': (args) => rebuildTensor(file, args),
    'torch._utils._rebuild_tensor_v2': (args) => rebuildTensor(file, args),
    'torch._utils._rebuild_parameter': (args) => args[0],
    'torch._utils._rebuild_parameter_with_state': (args) => args[0],
  };
  return (module, name) => {
    const qualifiedName = `${module}.${name}`;
    if (Object.hasOwn(callables, qualifiedName)) return { qualifiedName, call: callables[qualifiedName] };
    if (module === 'torch' && Object.hasOwn(STORAGE_DTYPES, name)) return new StorageType(qualifiedName, STORAGE_DTYPES[name]);
    throw new CheckpointFormatError(
      file,
      `refuses pickle global "${clip(qualifiedName)}": only tensor state dicts are read (allowed: ${[...Object.keys(callables), 'torch.*Storage'].join(', ')})`,
    );
  };
}

/** Turns ('storage', torch.XStorage, key, location, numel[, view]) into one shared ref per key. */
function storageLoader(file: string, storages: Map<string, TorchStorageRef>): (pid: unknown) => unknown {
  return (pid) => {
    const items = pid instanceof PickleTuple ? pid.items : [];
    const [tag, type, key, , numel, view] = items;
    if (
      tag !== 'storage' ||
      !(type instanceof StorageType) ||
      (typeof key !== 'string' && typeof key !== 'number') ||
      typeof numel !== 'number' ||
      !Number.isSafeInteger(numel) ||
      numel < 0
    ) {
      throw new CheckpointFormatError(file, `unsupported persistent id ${describePickleValue(pid)} (expected a tensor storage)`);
    }
    if (String(key).length > 64)
      throw new CheckpointFormatError(file, `storage key of ${String(key).length} characters (torch.save writes short numbers)`);
    if (view !== undefined && view !== null)
      throw new CheckpointFormatError(file, `storage ${key} is a pre-0.4 storage view, which is not supported`);
    const existing = storages.get(String(key));
    if (existing) {
      if (existing.dtype !== type.dtype || existing.numel !== numel)
        throw new CheckpointFormatError(file, `storage ${key} is described twice with different types or sizes`);
      return existing;
    }
    const storage: TorchStorageRef = { key: String(key), dtype: type.dtype, numel };
    storages.set(storage.key, storage);
    return storage;
  };
}

function stateDictTensors(file: string, value: unknown): Map<string, TorchTensorRef> {
  if (!(value instanceof PickleDict))
    throw new CheckpointFormatError(file, `the pickle holds ${describePickleValue(value)}, not a state dict`);
  const tensors = new Map<string, TorchTensorRef>();
  for (const [name, tensor] of value.entries) {
    if (typeof name !== 'string')
      throw new CheckpointFormatError(file, `state dict key ${describePickleValue(name)} is not a string`);
    if (!(tensor instanceof Object) || !('storage' in tensor)) {
      throw new CheckpointFormatError(file, `value is ${describePickleValue(tensor)}, not a tensor`, name);
    }
    tensors.set(name, tensor as TorchTensorRef);
  }
  return tensors;
}

function indexZip(bytes: Uint8Array, file: string, verifyCrc: boolean): TorchStateIndex {
  const entries = readZipDirectory(bytes, file);
  const pickles = [...entries.keys()].filter((name) => /^[^/]+\/data\.pkl$/.test(name));
  if (pickles.length !== 1)
    throw new CheckpointFormatError(file, `expected one <archive>/data.pkl in the zip, found ${pickles.length}`);
  const prefix = pickles[0].slice(0, -'data.pkl'.length);
  const byteorder = entries.get(prefix + 'byteorder');
  if (
    byteorder &&
    (byteorder.size > 16 || new TextDecoder().decode(zipEntryBytes(bytes, byteorder, file, verifyCrc)) !== 'little')
  ) {
    throw new CheckpointFormatError(file, 'big-endian checkpoints are not supported');
  }
  const storages = new Map<string, TorchStorageRef>();
  const hooks: PickleHooks = { global: stateDictGlobals(file), persistentLoad: storageLoader(file, storages) };
  const pickle = zipEntryBytes(bytes, entries.get(pickles[0])!, file, verifyCrc);
  const { value } = unpickle(pickle, 0, file, hooks);
  return {
    file,
    format: 'zip',
    tensors: stateDictTensors(file, value),
    storageBytes(storage) {
      const entry = entries.get(`${prefix}data/${storage.key}`);
      if (!entry)
        throw new CheckpointFormatError(file, `storage ${storage.key} has no ${prefix}data/${storage.key} entry in the zip`);
      const expected = storage.numel * DTYPE_BYTES[storage.dtype];
      if (entry.size !== expected)
        throw new CheckpointFormatError(
          file,
          `storage ${storage.key} holds ${entry.size} bytes, its ${storage.numel} ${storage.dtype} elements need ${expected}`,
        );
      return zipEntryBytes(bytes, entry, file, verifyCrc);
    },
  };
}

function indexLegacy(bytes: Uint8Array, file: string): TorchStateIndex {
  const plain: PickleHooks = {
    global: (module, name) => {
      throw new CheckpointFormatError(file, `refuses pickle global "${module}.${name}" in the legacy header`);
    },
    persistentLoad: () => {
      throw new CheckpointFormatError(file, 'unexpected persistent id in the legacy header');
    },
  };
  const magic = unpickle(bytes, 0, file, plain, { maxIntegerBytes: 10 }); // the magic number is an 80-bit integer
  if (magic.value !== LEGACY_MAGIC)
    throw new CheckpointFormatError(file, 'not a PyTorch checkpoint (no zip signature, no legacy magic number)');
  const protocol = unpickle(bytes, magic.end, file, plain);
  if (protocol.value !== 1001)
    throw new CheckpointFormatError(file, `legacy protocol ${describePickleValue(protocol.value)} is not 1001`);
  const sysInfo = unpickle(bytes, protocol.end, file, plain);
  if (sysInfo.value instanceof PickleDict && sysInfo.value.entries.get('little_endian') === false) {
    throw new CheckpointFormatError(file, 'big-endian checkpoints are not supported');
  }
  const storages = new Map<string, TorchStorageRef>();
  const main = unpickle(bytes, sysInfo.end, file, {
    global: stateDictGlobals(file),
    persistentLoad: storageLoader(file, storages),
  });
  const keys = unpickle(bytes, main.end, file, plain);
  if (!Array.isArray(keys.value) || !keys.value.every((k) => typeof k === 'string' || typeof k === 'number')) {
    throw new CheckpointFormatError(file, 'legacy storage key list is missing or malformed');
  }
  // After the key list, each storage is an int64 element count followed by its raw data.
  const locations = new Map<string, number>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = keys.end;
  for (const rawKey of keys.value) {
    const storage = storages.get(String(rawKey));
    if (!storage) throw new CheckpointFormatError(file, `legacy data for storage ${clip(String(rawKey))}, which no tensor uses`);
    if (locations.has(storage.key)) throw new CheckpointFormatError(file, `legacy storage ${clip(storage.key)} is listed twice`);
    if (at + 8 > bytes.length) throw new CheckpointFormatError(file, `truncated before the data of storage ${rawKey}`);
    const numel = view.getBigInt64(at, true);
    if (numel !== BigInt(storage.numel))
      throw new CheckpointFormatError(file, `storage ${rawKey} records ${numel} elements, the pickle says ${storage.numel}`);
    const end = at + 8 + storage.numel * DTYPE_BYTES[storage.dtype];
    if (end > bytes.length)
      throw new CheckpointFormatError(file, `data of storage ${rawKey} runs past the end of the file (${bytes.length} bytes)`);
    locations.set(storage.key, at + 8);
    at = end;
  }
  return {
    file,
    format: 'legacy',
    tensors: stateDictTensors(file, main.value),
    storageBytes(storage) {
      const start = locations.get(storage.key);
      if (start === undefined) throw new CheckpointFormatError(file, `storage ${storage.key} has no data record`);
      return bytes.subarray(start, start + storage.numel * DTYPE_BYTES[storage.dtype]);
    },
  };
}

/** Parses the pickle (and zip directory) of a pytorch_model.bin without decoding any tensor data. */
export function indexTorchCheckpoint(bytes: Uint8Array, file: string, options: { verifyCrc?: boolean } = {}): TorchStateIndex {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) {
    return indexZip(bytes, file, options.verifyCrc ?? true);
  }
  if (bytes.length >= 2 && bytes[0] === 0x80) return indexLegacy(bytes, file);
  throw new CheckpointFormatError(file, 'not a PyTorch checkpoint: neither a zip archive nor a legacy pickle');
}

function contiguousStrides(shape: number[]): number[] {
  const strides = new Array<number>(shape.length);
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

const MAX_DIMS = 32;

function describeView(tensor: TorchTensorRef): string {
  const list = (values: number[]) => clip(values.join(', '), 60);
  return `view (offset ${tensor.offset}, size [${list(tensor.shape)}], stride [${list(tensor.stride)}])`;
}

/**
 * Checks the view as PyTorch's weights_only loader and safetensors would have it: inside its storage, every element
 * its own storage element (no stride 0, no self-overlap). Returns its element count and whether it is row-major.
 */
function checkView(file: string, name: string, tensor: TorchTensorRef): { numel: number; contiguous: boolean } {
  const { shape, stride } = tensor;
  if (shape.length > MAX_DIMS)
    throw new CheckpointFormatError(file, `${shape.length} dimensions, more than the ${MAX_DIMS} a tensor may have`, name);
  const numel = tensorSize(shape);
  if (!Number.isSafeInteger(numel))
    throw new CheckpointFormatError(file, `${describeView(tensor)} has too many elements to be a tensor`, name);
  if (numel === 0) return { numel, contiguous: true };
  const dims = shape.map((n, d) => ({ n, s: stride[d], d })).filter((x) => x.n > 1);
  const broadcast = dims.find((x) => x.s === 0);
  if (broadcast) {
    throw new CheckpointFormatError(
      file,
      `${describeView(tensor)} has stride 0 in dimension ${broadcast.d}: one stored value stands for ${broadcast.n}; save the tensor with .contiguous()`,
      name,
    );
  }
  let span = 1; // storage elements reached by the dimensions seen so far, from the smallest stride up
  for (const { n, s, d } of dims.sort((a, b) => a.s - b.s)) {
    if (s < span)
      throw new CheckpointFormatError(
        file,
        `${describeView(tensor)} overlaps itself (dimension ${d}): several elements share one stored value; save the tensor with .contiguous()`,
        name,
      );
    span += (n - 1) * s;
  }
  const last = tensor.offset + span - 1;
  if (last >= tensor.storage.numel) {
    throw new CheckpointFormatError(
      file,
      `${describeView(tensor)} reaches element ${last} of a ${tensor.storage.numel}-element storage`,
      name,
    );
  }
  const rowMajor = contiguousStrides(shape);
  return { numel, contiguous: shape.every((n, d) => n === 1 || stride[d] === rowMajor[d]) };
}

/** Copies a non-contiguous view out of decoded storage, element by element. */
function materialise(storage: Float32Array, tensor: TorchTensorRef, numel: number): Float32Array {
  const out = new Float32Array(numel);
  const index = new Array<number>(tensor.shape.length).fill(0);
  for (let i = 0; i < numel; i++) {
    let at = tensor.offset;
    for (let d = 0; d < index.length; d++) at += index[d] * tensor.stride[d];
    out[i] = storage[at];
    for (let d = index.length - 1; d >= 0 && ++index[d] === tensor.shape[d]; d--) index[d] = 0;
  }
  return out;
}

const viewKey = (tensor: TorchTensorRef) => `${tensor.storage.key}|${tensor.offset}|${tensor.shape}|${tensor.stride}`;

interface DecodePlan {
  /** name -> canonical name of an identical earlier view (tied weights). */
  aliases: Map<string, string>;
  /** Checked views, canonical names only. */
  views: Map<string, { tensor: TorchTensorRef; numel: number; contiguous: boolean }>;
  /** fp32 bytes decoding allocates: each used storage once, plus a copy of each non-contiguous view. */
  residentBytes: number;
  /** fp32 bytes of the distinct views (what the tensors hold). */
  tensorBytes: number;
}

/** Checks every view and works out what decoding will allocate, before anything is decoded. */
function planDecode(index: TorchStateIndex): DecodePlan {
  const aliases = new Map<string, string>();
  const views: DecodePlan['views'] = new Map();
  const byView = new Map<string, string>();
  const storages = new Set<TorchStorageRef>();
  let residentBytes = 0;
  let tensorBytes = 0;
  for (const [name, tensor] of index.tensors) {
    const { numel, contiguous } = checkView(index.file, name, tensor);
    const key = viewKey(tensor);
    const canonical = byView.get(key);
    if (canonical !== undefined) {
      aliases.set(name, canonical);
      continue;
    }
    byView.set(key, name);
    views.set(name, { tensor, numel, contiguous });
    tensorBytes += 4 * numel;
    if (!contiguous) residentBytes += 4 * numel;
    if (numel > 0 && !storages.has(tensor.storage)) {
      storages.add(tensor.storage);
      residentBytes += 4 * tensor.storage.numel;
    }
  }
  return { aliases, views, residentBytes, tensorBytes };
}

/** fp32 bytes the state dict's tensors take once decoded, tied views counted once. */
export function torchDecodedBytes(index: TorchStateIndex): number {
  return planDecode(index).tensorBytes;
}

/** Bytes decoding allocates (each storage once, plus copies of non-contiguous views); checks every view first. */
export function torchResidentBytes(index: TorchStateIndex): number {
  return planDecode(index).residentBytes;
}

export interface TorchDecodeOptions {
  /** Refuse, before decoding anything, a state dict whose decoding would allocate more than this many bytes. */
  maxResidentBytes?: number;
}

/**
 * Decodes every tensor of an indexed state dict to fp32. Each storage is decoded once; contiguous views share it
 * (subarrays), non-contiguous ones get their own row-major copy; identical views are one HostTensor.
 */
export function decodeTorchState(index: TorchStateIndex, options: TorchDecodeOptions = {}): TorchCheckpoint {
  const plan = planDecode(index);
  if (options.maxResidentBytes !== undefined && plan.residentBytes > options.maxResidentBytes) {
    throw new CheckpointFormatError(
      index.file,
      `decoding needs ${mib(plan.residentBytes)} MiB, over the budget of ${mib(options.maxResidentBytes)} MiB that config.json allows`,
    );
  }
  const tensors: TensorMap = new Map();
  const byStorage = new Map<string, string[]>();
  const decoded = new Map<TorchStorageRef, Float32Array>();
  for (const [name, tensor] of index.tensors) {
    const canonical = plan.aliases.get(name);
    if (canonical !== undefined) {
      tensors.set(name, tensors.get(canonical)!);
      continue;
    }
    const { numel, contiguous } = plan.views.get(name)!;
    byStorage.set(tensor.storage.key, [...(byStorage.get(tensor.storage.key) ?? []), name]);
    let data: Float32Array = new Float32Array(0);
    if (numel > 0) {
      let storage = decoded.get(tensor.storage);
      if (!storage) {
        storage = decodeToFloat32(index.storageBytes(tensor.storage), tensor.storage.dtype, tensor.storage.numel);
        decoded.set(tensor.storage, storage);
      }
      data = contiguous ? storage.subarray(tensor.offset, tensor.offset + numel) : materialise(storage, tensor, numel);
    }
    tensors.set(name, { shape: [...tensor.shape], data } satisfies HostTensor);
  }
  const sharedStorages = [...byStorage.values()].filter((names) => names.length > 1);
  return { format: index.format, tensors, aliases: plan.aliases, sharedStorages };
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** Reads a pytorch_model.bin (zip or legacy) into fp32 tensors. */
export function readTorchCheckpoint(
  bytes: Uint8Array,
  file: string,
  options: { verifyCrc?: boolean } & TorchDecodeOptions = {},
): TorchCheckpoint {
  return decodeTorchState(indexTorchCheckpoint(bytes, file, options), options);
}
