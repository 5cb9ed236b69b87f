// Line breaks as every text reader here sees them: \n, \r\n and a lone \r (old Mac exports) each end a line, so a
// CR-only file is read line by line, never as one long line with carriage returns inside its fields.

/** Splits text into lines at \r\n, \r or \n (the text after a final break is the last, empty, line). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** 1-based line of a byte offset of text whose lines end in \n, \r\n or \r. */
export function lineAtByte(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a || (bytes[i] === 0x0d && bytes[i + 1] !== 0x0a)) line++;
  }
  return line;
}

/**
 * Finds line breaks in a stream of chunks: `next` gives the next break in `chunk` from `from` as [end of the line,
 * start of the next], or null when the chunk holds no more. A \r that ends a chunk ends its line at once; a \n that
 * starts the following chunk is then the rest of that \r\n (skipped, not a blank line).
 */
export class LineBreakScanner {
  private afterCarriageReturn = false;

  /** Where lines start in a new chunk (past the \n of a \r\n split across chunks). */
  startOf(chunk: Uint8Array, from: number): number {
    const skip = this.afterCarriageReturn && chunk[from] === 0x0a;
    this.afterCarriageReturn = false;
    return skip ? from + 1 : from;
  }

  next(chunk: Uint8Array, from: number): [number, number] | null {
    for (let i = from; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === 0x0a) return [i, i + 1];
      if (byte === 0x0d) {
        if (i + 1 < chunk.length) return [i, chunk[i + 1] === 0x0a ? i + 2 : i + 1];
        this.afterCarriageReturn = true;
        return [i, i + 1];
      }
    }
    return null;
  }
}
