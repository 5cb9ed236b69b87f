// The corpus `publish` reads: BEIR JSONL records as `eval` reads them (ids checked and unique, title and text joined
// into the text the model encodes, fields over a million characters cut with a warning), plus what the page shows of
// each: a title and a URL from fields the user names (a dotted path reaches into an object: "metadata.url").
import { beirDocumentText, parseBeirJsonl } from '../../io/beir/beir.ts';
import { splitLines } from '../../io/line-breaks.ts';
import { textOf } from '../../io/text-decode.ts';
import type { PublishRecord } from './publish-site.ts';

export interface DisplayFields {
  /** The field shown as the title (default "title"). */
  title: string;
  /** The field holding a link to the document (none when absent from a record). */
  url: string;
}

/** A field of a JSON object by a dotted path, as text (a number as written by JSON); "" when absent or not text. */
function fieldText(record: unknown, path: string): string {
  let value: unknown = record;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return '';
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** Records of a corpus JSONL file (bytes, strict UTF-8), with the reader's warnings. */
export function parsePublishCorpus(
  content: Uint8Array,
  fileName: string,
  fields: DisplayFields,
): { records: PublishRecord[]; warnings: string[] } {
  const { records, warnings } = parseBeirJsonl(content, fileName);
  const display =
    fields.title === 'title' && fields.url === ''
      ? null
      : splitLines(textOf(content, fileName))
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as unknown);
  let titled = 0;
  const out = records.map((r, i): PublishRecord => {
    const title = display ? fieldText(display[i], fields.title) : (r.title ?? '');
    if (title) titled++;
    return {
      id: r.id,
      text: beirDocumentText(r.title, r.text),
      title: title.slice(0, 500),
      url: display && fields.url ? fieldText(display[i], fields.url).slice(0, 2000) : '',
      body: r.text,
    };
  });
  if (fields.title !== 'title' && titled === 0)
    warnings.push(`${fileName}: no record has a "${fields.title}" text field to show as its title; the ids are shown instead`);
  return { records: out, warnings };
}
