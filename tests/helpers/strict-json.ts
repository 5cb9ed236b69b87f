// A strict JSON reader for the engine-file tests, written from RFC 8259 and independent of JSON.parse: objects come
// back as Maps (so a key such as __proto__ is an ordinary key), a repeated key in one object is an error (Elasticsearch
// and OpenSearch parse with Jackson's duplicate detection on), and numbers keep their source text.

export type StrictJson = null | boolean | string | { number: string } | StrictJson[] | Map<string, StrictJson>;

export function parseStrictJson(text: string): StrictJson {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at character ${at} of ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 20))}`);
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at])) at++;
  };
  const literal = (word: string, value: StrictJson): StrictJson => {
    if (text.startsWith(word, at)) {
      at += word.length;
      return value;
    }
    return fail('unexpected text');
  };
  const string = (): string => {
    if (text[at] !== '"') fail('expected a string');
    at++;
    let out = '';
    while (true) {
      const c = text[at++];
      if (c === undefined) fail('unterminated string');
      if (c === '"') return out;
      if (c < ' ') fail('raw control character in a string');
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = text[at++];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e === 'u') {
        const hex = text.slice(at, at + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
        out += String.fromCharCode(parseInt(hex, 16));
        at += 4;
      } else if (Object.hasOwn(simple, e)) out += simple[e];
      else fail('bad escape');
    }
  };
  const number = (): { number: string } => {
    const match = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(at));
    if (!match) return fail('expected a value');
    at += match[0].length;
    return { number: match[0] };
  };
  const value = (): StrictJson => {
    space();
    const c = text[at];
    if (c === '{') {
      at++;
      const object = new Map<string, StrictJson>();
      space();
      if (text[at] === '}') {
        at++;
        return object;
      }
      while (true) {
        space();
        const key = string();
        if (object.has(key)) fail(`duplicate key ${JSON.stringify(key)}`);
        space();
        if (text[at++] !== ':') fail('expected ":"');
        object.set(key, value());
        space();
        const next = text[at++];
        if (next === '}') return object;
        if (next !== ',') fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      at++;
      const array: StrictJson[] = [];
      space();
      if (text[at] === ']') {
        at++;
        return array;
      }
      while (true) {
        array.push(value());
        space();
        const next = text[at++];
        if (next === ']') return array;
        if (next !== ',') fail('expected "," or "]"');
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true', true);
    if (c === 'f') return literal('false', false);
    if (c === 'n') return literal('null', null);
    return number();
  };
  const result = value();
  space();
  if (at !== text.length) fail('text after the value');
  return result;
}

/** The object at `value`, or an error saying what it was. */
export function asObject(value: StrictJson | undefined, what: string): Map<string, StrictJson> {
  if (!(value instanceof Map)) throw new Error(`${what} is not an object`);
  return value;
}

export function asString(value: StrictJson | undefined, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} is not a string`);
  return value;
}

/** A JSON number's value (its text read as a double). */
export function asNumber(value: StrictJson | undefined, what: string): number {
  if (value === null || typeof value !== 'object' || !('number' in value)) throw new Error(`${what} is not a number`);
  return Number(value.number);
}
