// Minimal zip reader for PyTorch archives: central directory (zip64 too), stored entries only, CRC-32 checked.
// Every entry must own its bytes: duplicate names and entries sharing or overlapping bytes are refused.
import { crc32 } from '../../util/crc32.ts';
import { CheckpointFormatError, clip } from '../format-error.ts';

export interface ZipEntry {
  name: string;
  /** Offset of the entry's local header in the archive. */
  localOffset: number;
  /** Offset of the entry's bytes in the archive (after its local header). */
  dataOffset: number;
  size: number;
  crc32: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Bounds-checked little-endian reads that fail with the archive's name. */
class Reader {
  private readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private check(offset: number, length: number, what: string): void {
    if (offset < 0 || offset + length > this.bytes.length) {
      throw new CheckpointFormatError(
        this.file,
        `zip ${what} at byte ${offset} runs past the end of the file (${this.bytes.length} bytes)`,
      );
    }
  }
  u16(offset: number, what: string): number {
    this.check(offset, 2, what);
    return this.view.getUint16(offset, true);
  }
  u32(offset: number, what: string): number {
    this.check(offset, 4, what);
    return this.view.getUint32(offset, true);
  }
  u64(offset: number, what: string): number {
    this.check(offset, 8, what);
    const value = this.view.getBigUint64(offset, true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new CheckpointFormatError(this.file, `zip ${what} ${value} is not a usable size`);
    return Number(value);
  }
  slice(offset: number, length: number, what: string): Uint8Array {
    this.check(offset, length, what);
    return this.bytes.subarray(offset, offset + length);
  }
}

function findEndOfCentralDirectory(reader: Reader): number {
  const { bytes } = reader;
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (bytes[at] === 0x50 && bytes[at + 1] === 0x4b && reader.u32(at, 'end record') === EOCD) return at;
  }
  throw new CheckpointFormatError(reader.file, 'not a zip archive (no end-of-central-directory record); truncated?');
}

interface Directory {
  count: number;
  offset: number;
  size: number;
}

function readDirectoryLocation(reader: Reader, eocd: number): Directory {
  let count = reader.u16(eocd + 10, 'entry count');
  let size = reader.u32(eocd + 12, 'directory size');
  let offset = reader.u32(eocd + 16, 'directory offset');
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    const locator = eocd - 20;
    if (reader.u32(locator, 'zip64 locator') !== ZIP64_LOCATOR) {
      throw new CheckpointFormatError(reader.file, 'zip64 sizes announced but the zip64 locator is missing');
    }
    const record = reader.u64(locator + 8, 'zip64 record offset');
    if (reader.u32(record, 'zip64 record') !== ZIP64_EOCD)
      throw new CheckpointFormatError(reader.file, 'zip64 end record has a bad signature');
    count = reader.u64(record + 32, 'zip64 entry count');
    size = reader.u64(record + 40, 'zip64 directory size');
    offset = reader.u64(record + 48, 'zip64 directory offset');
  }
  if (offset + size > reader.bytes.length) {
    throw new CheckpointFormatError(
      reader.file,
      `zip central directory [${offset}, ${offset + size}) runs past the end of the file (${reader.bytes.length} bytes)`,
    );
  }
  if (count * 46 > size)
    throw new CheckpointFormatError(reader.file, `zip directory of ${size} bytes cannot hold the ${count} entries it announces`);
  return { count, offset, size };
}

/** Replaces 0xffffffff fields by their values in the zip64 extra field (id 1), in the order the format fixes. */
function applyZip64Extra(
  reader: Reader,
  extra: number,
  extraLength: number,
  fields: { size: number; compressed: number; local: number },
  name: string,
): void {
  const wanted = (['size', 'compressed', 'local'] as const).filter((key) => fields[key] === 0xffffffff);
  if (wanted.length === 0) return;
  for (let at = extra; at + 4 <= extra + extraLength;) {
    const id = reader.u16(at, 'extra field id');
    const length = reader.u16(at + 2, 'extra field length');
    if (id === 1) {
      wanted.forEach((key, i) => {
        if (8 * (i + 1) > length)
          throw new CheckpointFormatError(reader.file, `zip64 extra field of "${clip(name)}" is too short`);
        fields[key] = reader.u64(at + 4 + 8 * i, 'zip64 field');
      });
      return;
    }
    at += 4 + length;
  }
  throw new CheckpointFormatError(reader.file, `entry "${clip(name)}" needs a zip64 extra field and has none`);
}

/** Refuses entries whose local header + data overlap another entry's or the central directory (zip bombs by aliasing). */
function checkDisjoint(file: string, entries: ZipEntry[], directory: Directory): void {
  const ranges = entries.map((e) => ({ name: e.name, start: e.localOffset, end: e.dataOffset + e.size }));
  ranges.push({ name: 'the central directory', start: directory.offset, end: directory.offset + directory.size });
  ranges.sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < ranges.length; i++) {
    const [before, after] = [ranges[i - 1], ranges[i]];
    if (after.start < before.end) {
      throw new CheckpointFormatError(
        file,
        `zip entries "${clip(before.name)}" and "${clip(after.name)}" overlap (bytes ${after.start}..${Math.min(before.end, after.end)}): each entry must own its bytes; the archive is corrupt or hostile`,
      );
    }
  }
}

/** Lists the stored entries of a zip archive, validating every range against the archive's size and each other. */
export function readZipDirectory(bytes: Uint8Array, file: string): Map<string, ZipEntry> {
  const reader = new Reader(bytes, file);
  const directory = readDirectoryLocation(reader, findEndOfCentralDirectory(reader));
  const entries = new Map<string, ZipEntry>();
  const decoder = new TextDecoder();
  let at = directory.offset;
  for (let i = 0; i < directory.count; i++) {
    if (at + 46 > directory.offset + directory.size || reader.u32(at, 'central directory entry') !== CENTRAL) {
      throw new CheckpointFormatError(
        file,
        `zip central directory entry ${i} at byte ${at} has a bad signature or lies outside the directory`,
      );
    }
    const flags = reader.u16(at + 8, 'flags');
    const method = reader.u16(at + 10, 'method');
    const crc = reader.u32(at + 16, 'crc');
    const fields = {
      compressed: reader.u32(at + 20, 'size'),
      size: reader.u32(at + 24, 'size'),
      local: reader.u32(at + 42, 'offset'),
    };
    const nameLength = reader.u16(at + 28, 'name length');
    const extraLength = reader.u16(at + 30, 'extra length');
    const commentLength = reader.u16(at + 32, 'comment length');
    const name = decoder.decode(reader.slice(at + 46, nameLength, 'entry name'));
    applyZip64Extra(reader, at + 46 + nameLength, extraLength, fields, name);
    if (flags & 1) throw new CheckpointFormatError(file, `zip entry "${clip(name)}" is encrypted`);
    if (method !== 0 || fields.compressed !== fields.size) {
      throw new CheckpointFormatError(
        file,
        `zip entry "${clip(name)}" is compressed (method ${method}); PyTorch archives store entries uncompressed — re-save it with torch.save`,
      );
    }
    if (reader.u32(fields.local, 'local header') !== LOCAL) {
      throw new CheckpointFormatError(file, `zip entry "${clip(name)}": no local header at byte ${fields.local}`);
    }
    const dataOffset =
      fields.local +
      30 +
      reader.u16(fields.local + 26, 'local name length') +
      reader.u16(fields.local + 28, 'local extra length');
    reader.slice(dataOffset, fields.size, `data of "${clip(name)}"`);
    if (entries.has(name)) throw new CheckpointFormatError(file, `zip entry "${clip(name)}" appears twice`);
    entries.set(name, { name, localOffset: fields.local, dataOffset, size: fields.size, crc32: crc });
    at += 46 + nameLength + extraLength + commentLength;
  }
  checkDisjoint(file, [...entries.values()], directory);
  return entries;
}

/** The bytes of one entry (a view, not a copy), optionally checked against the directory's CRC-32. */
export function zipEntryBytes(bytes: Uint8Array, entry: ZipEntry, file: string, verifyCrc = true): Uint8Array {
  const data = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.size);
  if (verifyCrc && crc32(data) !== entry.crc32) {
    throw new CheckpointFormatError(file, `zip entry "${clip(entry.name)}" fails its CRC-32 check: the file is corrupt`);
  }
  return data;
}
