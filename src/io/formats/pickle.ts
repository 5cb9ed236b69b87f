// A restricted pickle reader: the opcodes a PyTorch state dict uses, globals resolved only through an allow-list hook.
// It never evaluates anything: "calling" a global runs the hook's own TypeScript, which only builds plain data.
import { CheckpointFormatError, clip } from '../format-error.ts';

/** Widest integer (LONG1/LONG4 payload) a state dict needs: int64. Wider ones are refused, never decoded. */
const MAX_PICKLE_INTEGER_BYTES = 8;

export interface UnpickleOptions {
  /** Refuse LONG1/LONG4 integers wider than this many bytes (default 8; the legacy magic number needs 10). */
  maxIntegerBytes?: number;
}

export class PickleTuple {
  constructor(readonly items: unknown[]) {}
}

/** dict and collections.OrderedDict; `state` keeps what BUILD gave it (a state dict's `_metadata`). */
export class PickleDict {
  readonly entries = new Map<unknown, unknown>();
  state: unknown = undefined;
}

/** A global the hook allowed; `call` is present when REDUCE may apply it. */
export interface PickleGlobal {
  readonly qualifiedName: string;
  call?(args: unknown[]): unknown;
}

export interface PickleHooks {
  /** Returns the allowed global, or throws naming it. */
  global(module: string, name: string): PickleGlobal;
  /** Turns a persistent id (BINPERSID) into a value, or throws. */
  persistentLoad(pid: unknown): unknown;
}

const MARK = Symbol('mark');

function isGlobal(value: unknown): value is PickleGlobal {
  return typeof value === 'object' && value !== null && 'qualifiedName' in value;
}

/** Short description of a value for error messages (depth-limited: pickles can build cycles). */
export function describePickleValue(value: unknown, depth = 0): string {
  if (value === null) return 'None';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  if (typeof value !== 'object') return String(value);
  if (depth > 1) return '…';
  if (value instanceof PickleTuple)
    return `(${value.items
      .slice(0, 6)
      .map((v) => describePickleValue(v, depth + 1))
      .join(', ')})`;
  if (Array.isArray(value))
    return `[${value
      .slice(0, 6)
      .map((v) => describePickleValue(v, depth + 1))
      .join(', ')}]`;
  if (value instanceof PickleDict) return `dict(${value.entries.size} items)`;
  if (isGlobal(value)) return clip(value.qualifiedName);
  if (value instanceof Uint8Array) return `bytes(${value.length})`;
  return value.constructor?.name ?? 'object';
}

/** Runs one pickle starting at `start`; returns the unpickled value and the offset just after its STOP. */
export function unpickle(
  bytes: Uint8Array,
  start: number,
  file: string,
  hooks: PickleHooks,
  options: UnpickleOptions = {},
): { value: unknown; end: number } {
  const maxIntegerBytes = options.maxIntegerBytes ?? MAX_PICKLE_INTEGER_BYTES;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stack: unknown[] = [];
  const memo = new Map<number, unknown>();
  let pos = start;

  const fail = (problem: string): never => {
    throw new CheckpointFormatError(file, `pickle at byte ${pos}: ${problem}`);
  };
  const need = (n: number): number => {
    if (n < 0 || pos + n > bytes.length) fail(`truncated (needs ${n} more bytes, file has ${bytes.length - pos})`);
    const at = pos;
    pos += n;
    return at;
  };
  const u8 = () => bytes[need(1)];
  const u16 = () => view.getUint16(need(2), true);
  const u32 = () => view.getUint32(need(4), true);
  const i32 = () => view.getInt32(need(4), true);
  const u64 = () => {
    const value = view.getBigUint64(need(8), true);
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? fail('length is too large') : Number(value);
  };
  const raw = (n: number) => bytes.subarray(need(n), pos);
  const utf8 = (n: number) => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(raw(n));
    } catch {
      return fail('string is not valid UTF-8');
    }
  };
  const line = () => {
    const end = bytes.indexOf(0x0a, pos);
    if (end < 0) fail('unterminated text line');
    return new TextDecoder().decode(raw(end - pos + 1)).slice(0, -1);
  };
  const pop = (): unknown => (stack.length === 0 || stack[stack.length - 1] === MARK ? fail('stack underflow') : stack.pop());
  const top = (): unknown =>
    stack.length === 0 || stack[stack.length - 1] === MARK ? fail('stack underflow') : stack[stack.length - 1];
  const popMark = (): unknown[] => {
    const at = stack.lastIndexOf(MARK);
    if (at < 0) fail('no MARK on the stack');
    const items = stack.splice(at);
    items.shift();
    return items;
  };
  /** Reads a LONG1/LONG4 payload of n bytes; the width is checked first, so decoding stays cheap. */
  const long = (n: number): bigint => {
    if (n > maxIntegerBytes) fail(`integer of ${n} bytes is wider than the ${maxIntegerBytes} bytes a tensor state dict uses`);
    return signedLittleEndian(raw(n));
  };
  const signedLittleEndian = (data: Uint8Array): bigint => {
    let value = 0n;
    for (let i = data.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(data[i]);
    if (data.length > 0 && data[data.length - 1] & 0x80) value -= 1n << BigInt(8 * data.length);
    return value;
  };
  const smallIfSafe = (value: bigint): number | bigint =>
    value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  const setItems = (target: unknown, items: unknown[]) => {
    if (!(target instanceof PickleDict)) fail(`SETITEM(S) on ${describePickleValue(target)}, not a dict`);
    if (items.length % 2) fail('SETITEMS with an odd number of items');
    for (let i = 0; i < items.length; i += 2) {
      const key = items[i];
      if (typeof key === 'object' && key !== null) fail(`dict key ${describePickleValue(key)} is not a string or number`);
      (target as PickleDict).entries.set(key, items[i + 1]);
    }
  };
  const appendItems = (target: unknown, items: unknown[]) => {
    if (!Array.isArray(target)) fail(`APPEND(S) on ${describePickleValue(target)}, not a list`);
    for (const item of items) (target as unknown[]).push(item);
  };
  const memoGet = (index: number) => (memo.has(index) ? memo.get(index) : fail(`memo slot ${index} is empty`));

  for (;;) {
    const opcode = u8();
    switch (opcode) {
      case 0x80: // PROTO
        if (u8() > 5) fail('pickle protocol above 5');
        break;
      case 0x95: // FRAME
        u64();
        break;
      case 0x2e: // STOP
        if (stack.length !== 1) fail(`STOP with ${stack.length} values on the stack`);
        return { value: stack[0], end: pos };
      case 0x28: // MARK
        stack.push(MARK);
        break;
      case 0x31: // POP_MARK
        popMark();
        break;
      case 0x30: // POP
        pop();
        break;
      case 0x32: // DUP
        stack.push(top());
        break;
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88: // NEWTRUE
        stack.push(true);
        break;
      case 0x89: // NEWFALSE
        stack.push(false);
        break;
      case 0x4a: // BININT
        stack.push(i32());
        break;
      case 0x4b: // BININT1
        stack.push(u8());
        break;
      case 0x4d: // BININT2
        stack.push(u16());
        break;
      case 0x8a: // LONG1
        stack.push(smallIfSafe(long(u8())));
        break;
      case 0x8b: // LONG4
        stack.push(smallIfSafe(long(i32())));
        break;
      case 0x47: // BINFLOAT (big-endian double)
        stack.push(view.getFloat64(need(8), false));
        break;
      case 0x58: // BINUNICODE
        stack.push(utf8(u32()));
        break;
      case 0x8c: // SHORT_BINUNICODE
        stack.push(utf8(u8()));
        break;
      case 0x8d: // BINUNICODE8
        stack.push(utf8(u64()));
        break;
      case 0x54: // BINSTRING (Python 2 str, read as latin-1 text)
      case 0x55: {
        // SHORT_BINSTRING
        const n = opcode === 0x54 ? i32() : u8();
        stack.push(new TextDecoder('latin1').decode(raw(n)));
        break;
      }
      case 0x42: // BINBYTES
        stack.push(raw(u32()).slice());
        break;
      case 0x43: // SHORT_BINBYTES
        stack.push(raw(u8()).slice());
        break;
      case 0x7d: // EMPTY_DICT
        stack.push(new PickleDict());
        break;
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push(new PickleTuple([]));
        break;
      case 0x74: // TUPLE
        stack.push(new PickleTuple(popMark()));
        break;
      case 0x85: // TUPLE1
      case 0x86: // TUPLE2
      case 0x87: {
        // TUPLE3
        const n = opcode - 0x84;
        const items: unknown[] = [];
        for (let i = 0; i < n; i++) items.unshift(pop());
        stack.push(new PickleTuple(items));
        break;
      }
      case 0x61: {
        // APPEND
        const item = pop();
        appendItems(top(), [item]);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        appendItems(top(), items);
        break;
      }
      case 0x73: {
        // SETITEM
        const value = pop();
        const key = pop();
        setItems(top(), [key, value]);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        setItems(top(), items);
        break;
      }
      case 0x71: // BINPUT
        memo.set(u8(), top());
        break;
      case 0x72: // LONG_BINPUT
        memo.set(u32(), top());
        break;
      case 0x94: // MEMOIZE
        memo.set(memo.size, top());
        break;
      case 0x68: // BINGET
        stack.push(memoGet(u8()));
        break;
      case 0x6a: // LONG_BINGET
        stack.push(memoGet(u32()));
        break;
      case 0x63: {
        // GLOBAL
        const module = line();
        stack.push(hooks.global(module, line()));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = pop();
        const module = pop();
        if (typeof module !== 'string' || typeof name !== 'string') fail('STACK_GLOBAL needs two strings');
        stack.push(hooks.global(module as string, name as string));
        break;
      }
      case 0x52: {
        // REDUCE
        const args = pop();
        const callable = pop();
        if (!isGlobal(callable) || !callable.call)
          fail(`REDUCE of ${describePickleValue(callable)}, which is not an allowed callable`);
        if (!(args instanceof PickleTuple)) fail(`REDUCE arguments are ${describePickleValue(args)}, not a tuple`);
        stack.push((callable as PickleGlobal).call!((args as PickleTuple).items));
        break;
      }
      case 0x62: {
        // BUILD
        const state = pop();
        const target = top();
        if (!(target instanceof PickleDict)) fail(`BUILD on ${describePickleValue(target)} is not allowed`);
        (target as PickleDict).state = state;
        break;
      }
      case 0x51: // BINPERSID
        stack.push(hooks.persistentLoad(pop()));
        break;
      default:
        fail(`opcode 0x${opcode.toString(16).padStart(2, '0')} is not one a tensor state dict uses`);
    }
  }
}
