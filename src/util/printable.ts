// Text from a file made safe to print: every control character (C0, DEL, C1), every bidirectional embedding, override
// and isolate, and the line and paragraph separators written as \uXXXX escapes, so that a run name, an id or a message
// quoting a line can never retitle, clear or otherwise drive the terminal it is shown on, reorder what follows it on
// the line, or start a line of its own.

/**
 * C0 (U+0000-U+001F), DEL and C1 (U+0080-U+009F, NEL U+0085 among them): Unicode's Cc; the bidirectional controls
 * that reorder the text after them (LRE, RLE, PDF, LRO, RLO: U+202A-U+202E; LRI, RLI, FSI, PDI: U+2066-U+2069); and
 * the line and paragraph separators U+2028 and U+2029, which terminals and editors may show as line breaks.
 */
const UNPRINTABLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;

/**
 * `text` with each of those characters written as `\uXXXX` (JSON's and JavaScript's own escape, so a JSON line stays
 * the same JSON), but those in `keep` that the output's format needs ('\n' for a message of several lines).
 */
export function printable(text: string, keep = ''): string {
  return text.replace(UNPRINTABLE, (c) => (keep.includes(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
