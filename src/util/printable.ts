// Text from a file made safe to print: every control character (C0, DEL, C1) written as a \u00XX escape, so a run
// name, an id or a message quoting a line can never retitle, clear or otherwise drive the terminal it is shown on.

/** C0 (U+0000-U+001F), DEL and C1 (U+0080-U+009F): Unicode's Cc. */
const CONTROL = /\p{Cc}/gu;

/**
 * `text` with each control character written as `\u00XX` (JSON's and JavaScript's own escape, so a JSON line stays
 * the same JSON), but those in `keep` that the output's format needs ('\n' for a message of several lines).
 */
export function printable(text: string, keep = ''): string {
  return text.replace(CONTROL, (c) => (keep.includes(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
