// One streaming pass over a triplet file (TSV or JSONL) that checks every line as the whole-file parsers do, computes
// the file's CRC-32, and keeps only each row's byte range: training then reads rows by range (IndexedTripletSource).
import { crc32 } from '../../util/crc32.ts';
import type { RandomAccessFile } from '../random-access.ts';
import { LineBreakScanner } from '../line-breaks.ts';
import { TextDecodeError, firstInvalidUtf8 } from '../text-decode.ts';
import { IndexedTripletSource, type LineParser } from './triplet-source.ts';
import {
  addTeacherLabel,
  teacherLabelSummary,
  teacherLabelTally,
  type TeacherLabelSummary,
} from '../../contract/training/teacher-labels.ts';
import { parseJsonlLine } from './triplets-jsonl.ts';
import { checkNegatives, TripletFormatError, tsvLineParser } from './triplets.ts';

export interface IndexedTriplets {
  source: IndexedTripletSource;
  blankLines: number;
  header: boolean;
  /** CRC-32 of the whole file, as crc32(bytes) would give. */
  crc32: number;
  /** The rows' teacher labels (distillation data), if they have them. */
  labels?: TeacherLabelSummary;
}

export interface IndexOptions {
  /** Bytes read at a time (default 4 MiB): the pass holds one chunk and one line. */
  chunkBytes?: number;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  signal?: AbortSignal;
  /** Longest line accepted, in bytes (default MAX_LINE_BYTES): a longer one is an error naming it, read no further. */
  maxLineBytes?: number;
}

/**
 * Longest triplet line accepted by default: 4 MiB, hundreds of times a real query + passage + negatives line (a
 * training document is cut to a few hundred tokens anyway). A longer line is a file that lost its line breaks, or no
 * triplet file at all; refusing it keeps the index pass at one chunk and one line of memory.
 */
export const MAX_LINE_BYTES = 4 * 2 ** 20;

/** The error for a line past the cap: which line, how long it got, and what to do. */
function tooLongLine(file: string, line: number, bytes: number, cap: number): TripletFormatError {
  return new TripletFormatError(
    file,
    line,
    `the line is longer than ${cap} bytes (${bytes} read so far): a triplet line holds a query and passages, not whole ` +
      'books; check that the file has line breaks and is a triplet file, or shorten the texts',
  );
}

/** The line parser of one file of a format (a TSV header is only looked for on line 1; its columns hold for every row). */
export function lineParser(format: 'tsv' | 'jsonl'): LineParser {
  return format === 'jsonl' ? parseJsonlLine : tsvLineParser();
}

/** A growable typed array of numbers. */
class Column<T extends Float64Array | Uint32Array> {
  length = 0;
  constructor(private data: T) {}
  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new (this.data.constructor as new (n: number) => T)(Math.max(1024, 2 * this.data.length));
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }
  /** The values pushed, trimmed to their count. */
  done(): T {
    return this.data.slice(0, this.length) as T;
  }
}

const SAVE_AS_UTF8 = 'save it as UTF-8';

/** Indexes a triplet file without ever holding it whole; every bad line is an error naming the file and the line. */
export async function indexTripletFile(
  file: RandomAccessFile,
  format: 'tsv' | 'jsonl',
  options: IndexOptions = {},
): Promise<IndexedTriplets> {
  const chunkBytes = options.chunkBytes ?? 4 * 2 ** 20;
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const parse = lineParser(format);
  const breaks = new LineBreakScanner();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const starts = new Column(new Float64Array(1024));
  const lengths = new Column(new Uint32Array(1024));
  const lineNumbers = new Column(new Uint32Array(1024));
  const rowCrcs = new Column(new Uint32Array(1024));
  let blankLines = 0;
  let header = false;
  let negatives: number | null = null;
  const labels = teacherLabelTally();
  let crc = 0;
  let lineNumber = 1;
  let lineStart = 0;
  let pending: Uint8Array[] = []; // the current line's bytes from earlier chunks
  let pendingBytes = 0;

  const handleLine = (bytes: Uint8Array, start: number) => {
    if (bytes.length > maxLineBytes) throw tooLongLine(file.name, lineNumber, bytes.length, maxLineBytes);
    const nul = bytes.indexOf(0);
    if (nul >= 0)
      throw new TextDecodeError(
        file.name,
        lineNumber,
        start + nul,
        `NUL byte at byte ${start + nul}: this is not a UTF-8 text file; ${SAVE_AS_UTF8} text`,
      );
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      const at = Math.max(0, firstInvalidUtf8(bytes));
      throw new TextDecodeError(
        file.name,
        lineNumber,
        start + at,
        `invalid UTF-8 (byte 0x${bytes[at].toString(16).toUpperCase().padStart(2, '0')} at byte ${start + at}); the file is in another encoding: ${SAVE_AS_UTF8}`,
      );
    }
    const result = parse(text, file.name, lineNumber);
    if (result.kind === 'blank') blankLines++;
    else if (result.kind === 'header') header = true;
    else {
      negatives = checkNegatives(result.triplet, negatives, file.name, lineNumber);
      addTeacherLabel(labels, result.triplet.label, () => `${file.name} line ${lineNumber}`);
      starts.push(start);
      lengths.push(bytes.length);
      lineNumbers.push(lineNumber);
      rowCrcs.push(crc32(bytes));
    }
  };

  for (let offset = 0; offset < file.size; offset += chunkBytes) {
    if (options.signal?.aborted)
      throw options.signal.reason instanceof Error
        ? options.signal.reason
        : new DOMException('reading was cancelled', 'AbortError');
    const chunk = await file.read(offset, offset + chunkBytes);
    crc = crc32(chunk, crc);
    let from = 0;
    if (offset === 0) {
      if (chunk.length >= 2 && ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff))) {
        throw new TextDecodeError(
          file.name,
          null,
          0,
          `this file is UTF-16 (byte-order mark ${chunk[0] === 0xff ? 'FF FE' : 'FE FF'}); ${SAVE_AS_UTF8}`,
        );
      }
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) lineStart = from = 3; // a UTF-8 byte-order mark
    }
    const lineFrom = breaks.startOf(chunk, from);
    if (lineFrom !== from) lineStart = offset + (from = lineFrom); // the \n of a \r\n split across two chunks
    for (let found = breaks.next(chunk, from); found; found = breaks.next(chunk, from)) {
      const piece = chunk.subarray(from, found[0]);
      handleLine(pending.length ? concat([...pending, piece]) : piece, lineStart);
      pending = [];
      pendingBytes = 0;
      lineNumber++;
      from = found[1];
      lineStart = offset + from;
    }
    if (from < chunk.length) {
      pending.push(chunk.slice(from));
      pendingBytes += chunk.length - from;
      if (pendingBytes > maxLineBytes) throw tooLongLine(file.name, lineNumber, pendingBytes, maxLineBytes);
    }
    options.onProgress?.(Math.min(file.size, offset + chunk.length), file.size);
  }
  if (pending.length) handleLine(concat(pending), lineStart); // a last line without a final newline
  const count = starts.length;
  if (count === 0)
    throw new Error(
      `${file.name}: no triplets (${format === 'jsonl' ? 'a line is {"query": ..., "positive": ..., "negative": ...}' : 'a line is query<TAB>positive<TAB>negative'})`,
    );
  const rows = { starts: starts.done(), lengths: lengths.done(), lineNumbers: lineNumbers.done(), crcs: rowCrcs.done() };
  const source = new IndexedTripletSource(file, parse, rows, count, negatives ?? 1);
  return { source, blankLines, header, crc32: crc, labels: teacherLabelSummary(labels) };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
