// Text for masked-LM training: a .txt file (one document per line), a .jsonl file ("text", optional "title") or a BEIR
// corpus.jsonl, read strictly (UTF-8, JSON objects, lines of at most 4 MiB); blank documents are skipped and counted.
import { splitLines } from '../line-breaks.ts';
import { decodeUtf8Strict } from '../text-decode.ts';
import { MAX_LINE_BYTES } from './triplet-index.ts';
import { clip } from '../format-error.ts';

export interface MlmDocuments {
  /** The documents, in file order. */
  documents: string[];
  /** Blank documents left out (an empty line of a .txt file is not counted: it separates nothing). */
  skipped: number;
}

/** A text file that cannot be used as training text: names the file, the line and what is wrong. */
export class MlmTextError extends Error {
  override name = 'MlmTextError';
}

/** Whether `name` is read as JSON lines (a .jsonl file, BEIR's corpus.jsonl) rather than plain lines. */
export function isJsonLines(name: string): boolean {
  return /\.jsonl$/i.test(name);
}

/** The documents of a text file's bytes; `name` says how to read it (.jsonl or plain text) and names it in errors. */
export function readMlmDocuments(bytes: Uint8Array, name: string): MlmDocuments {
  const text = decodeUtf8Strict(bytes, name);
  const lines = splitLines(text);
  const json = isJsonLines(name);
  const documents: string[] = [];
  let skipped = 0;
  const encoder = new TextEncoder();
  lines.forEach((line, i) => {
    if (line.length > MAX_LINE_BYTES / 4 && encoder.encode(line).length > MAX_LINE_BYTES) {
      throw new MlmTextError(
        `${name}:${i + 1}: a line of ${encoder.encode(line).length} bytes, over the ${MAX_LINE_BYTES / 2 ** 20} MiB a document may have; ` +
          'split the text into documents of one paragraph per line',
      );
    }
    if (!json) {
      if (line.trim()) documents.push(line.trim());
      return;
    }
    if (!line.trim()) return;
    const document = jsonDocument(line, `${name}:${i + 1}`);
    if (document) documents.push(document);
    else skipped++;
  });
  if (documents.length === 0) {
    throw new MlmTextError(
      skipped
        ? `${name}: all ${skipped} documents are empty: there is no text to train on`
        : `${name}: holds no text (an empty file): there is nothing to train on`,
    );
  }
  return { documents, skipped };
}

/** A JSON line's document: its title and text joined (as BEIR encodes a document), or '' when both are blank. */
function jsonDocument(line: string, where: string): string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new MlmTextError(
      `${where}: not valid JSON (${error instanceof Error ? error.message : String(error)}): ${clip(line)}; every line must be one object like {"text": "..."}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MlmTextError(
      `${where}: a JSON ${Array.isArray(value) ? 'array' : typeof value}, expected an object like {"text": "..."}`,
    );
  const record = value as Record<string, unknown>;
  for (const field of ['text', 'title']) {
    if (record[field] !== undefined && record[field] !== null && typeof record[field] !== 'string')
      throw new MlmTextError(`${where}: "${field}" is a ${typeof record[field]}, expected a string`);
  }
  if (record.text === undefined && record.title === undefined)
    throw new MlmTextError(`${where}: no "text" field (and no "title"): ${clip(line)}`);
  return [record.title, record.text]
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .map((part) => part.trim())
    .join(' ');
}
