// Training triplets from a TSV file (query<TAB>positive<TAB>negative per line, MS MARCO style), strictly checked:
// strict UTF-8 (a bad byte or a UTF-16 file is an error naming file and line), then every line.
import { readRequiredFile, type FileSource, type ReadOptions } from './file-source.ts';
import { textOf } from './text-decode.ts';

export interface Triplet {
  query: string;
  positive: string;
  negative: string;
}

export interface TripletFile {
  triplets: Triplet[];
  /** Blank (or whitespace-only) lines, skipped and counted; nothing else is ever skipped. */
  blankLines: number;
  /** True when the first line was a `query<TAB>positive<TAB>negative` header (skipped). */
  header: boolean;
}

/** A line that is not a triplet: names the file and the 1-based line number. */
export class TripletFormatError extends Error {
  override name = 'TripletFormatError';
  constructor(
    readonly file: string,
    readonly line: number,
    problem: string,
  ) {
    super(`${file} line ${line}: ${problem}`);
  }
}

const FIELDS = ['query', 'positive', 'negative'] as const;

function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? text.slice(0, 60) + '…' : text);
}

/**
 * Parses triplet TSV text, or bytes decoded as strict UTF-8 (decodeUtf8Strict: invalid bytes are a TextDecodeError
 * naming `file` and the line). Lines end in \n or \r\n; a leading byte-order mark is dropped; fields are kept as
 * they are (no trimming, no unquoting: MS MARCO files have no quoting). A line with another number of fields than
 * three, or with an empty field, is an error naming `file` and the line.
 */
export function parseTriplets(content: string | Uint8Array, file: string): TripletFile {
  const lines = textOf(content, file).replace(/^\uFEFF/, '').split('\n');
  const triplets: Triplet[] = [];
  let blankLines = 0;
  let header = false;
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') {
      if (i < lines.length - 1) blankLines++; // the empty string after a final newline is not a line
      return;
    }
    const fields = line.split('\t');
    if (fields.length !== 3) {
      throw new TripletFormatError(
        file,
        i + 1,
        `${fields.length} tab-separated field${fields.length === 1 ? '' : 's'}, expected 3 (query, positive, negative): ${preview(line)}`,
      );
    }
    if (i === 0 && fields.every((f, j) => f.trim().toLowerCase() === FIELDS[j])) {
      header = true;
      return;
    }
    fields.forEach((field, j) => {
      if (field.trim() === '') throw new TripletFormatError(file, i + 1, `the ${FIELDS[j]} (field ${j + 1}) is empty`);
    });
    triplets.push({ query: fields[0], positive: fields[1], negative: fields[2] });
  });
  if (triplets.length === 0) throw new Error(`${file}: no triplets (a line is query<TAB>positive<TAB>negative)`);
  return { triplets, blankLines, header };
}

/** Reads and parses a triplet file of a source (strict UTF-8: a bad byte is an error naming the file and line). */
export async function readTriplets(source: FileSource, name: string, options?: ReadOptions): Promise<TripletFile> {
  const bytes = await readRequiredFile(source, name, options);
  return parseTriplets(bytes, `${source.label}/${name}`);
}
