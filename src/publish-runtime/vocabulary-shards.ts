// A published tokenizer's vocabulary in shards, so that a cold query fetches only the pieces its words can start
// with (and the one-code-point and continuing pieces, a file each): each line a piece, its id as the difference from
// the line before, and its query weight where a document holds the token. Written at publish time and read by the
// runtime, both here.
import { VOCABULARY_SHARDS, vocabularyShard, type QueryVocabulary } from './query-tokenizer.ts';

/** One shard as read: its pieces with their ids, and the weights of those a document holds. */
export interface VocabularyShard {
  pieces: string[];
  ids: number[];
  /** Query weight by id (absent: 0, no document holds the token). */
  weights: Map<number, number>;
}

const ESCAPES = new Map([
  ['\\', '\\\\'],
  ['\t', '\\t'],
  ['\n', '\\n'],
  ['\r', '\\r'],
]);
const UNESCAPES = new Map([
  ['\\', '\\'],
  ['t', '\t'],
  ['n', '\n'],
  ['r', '\r'],
]);

/** The shortest decimal that reads back as the same float32. */
function float32Text(value: number): string {
  for (let digits = 1; digits <= 9; digits++) {
    const text = String(Number(value.toPrecision(digits)));
    if (Math.fround(Number(text)) === value) return text;
  }
  return String(value);
}

/** The files of a vocabulary (token of every id) with its weights (0: left out): by shard, one-code-point, continuing. */
export function encodeVocabularyShards(
  vocab: readonly (string | null)[],
  weights: Float32Array,
  continuingPrefix: string,
): { shards: (string | null)[]; singles: string | null; continuations: string | null } {
  const SINGLE = VOCABULARY_SHARDS;
  const CONTINUING = VOCABULARY_SHARDS + 1;
  const lines: string[][] = Array.from({ length: VOCABULARY_SHARDS + 2 }, () => []);
  const last = new Array<number>(VOCABULARY_SHARDS + 2).fill(-1);
  vocab.forEach((piece, id) => {
    if (piece === null) return;
    const continues = continuingPrefix !== '' && piece.startsWith(continuingPrefix) && piece.length > continuingPrefix.length;
    const key = vocabularyShard(piece);
    const shard = continues ? CONTINUING : key < 0 ? SINGLE : key;
    const weight = Math.fround(weights[id] ?? 0);
    // the continuing file leaves out the prefix every one of its pieces has ("##")
    const escaped = (continues ? piece.slice(continuingPrefix.length) : piece).replace(/[\\\t\n\r]/g, (c) => ESCAPES.get(c) ?? c);
    lines[shard].push(`${escaped}\t${id - last[shard]}${weight !== 0 ? `\t${float32Text(weight)}` : ''}`);
    last[shard] = id;
  });
  const text = (list: string[]) => (list.length ? list.join('\n') + '\n' : null);
  return {
    shards: lines.slice(0, VOCABULARY_SHARDS).map(text),
    singles: text(lines[SINGLE]),
    continuations: text(lines[CONTINUING]),
  };
}

/** Reads a shard file, naming it in any error; `prefix` goes before every piece (the continuing file's "##"). */
export function decodeVocabularyShard(text: string, where: string, prefix = ''): VocabularyShard {
  const shard: VocabularyShard = { pieces: [], ids: [], weights: new Map() };
  let id = -1;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    const [piece, delta, weight] = line.split('\t');
    const step = Number(delta);
    if (piece === undefined || !Number.isInteger(step) || step < 1 || (weight !== undefined && !Number.isFinite(Number(weight))))
      throw new Error(`${where}: line ${i + 1} is not "piece <tab> id step [<tab> weight]"`);
    id += step;
    shard.pieces.push(prefix + piece.replace(/\\(.)/g, (_, c: string) => UNESCAPES.get(c) ?? c));
    shard.ids.push(id);
    if (weight !== undefined) shard.weights.set(id, Math.fround(Number(weight)));
  });
  return shard;
}

/** A vocabulary that grows as shards are added; a piece of a shard not added yet is unknown. */
export class ShardedVocabulary implements QueryVocabulary {
  private readonly ids = new Map<string, number>();
  private readonly tokens = new Map<number, string>();
  private readonly weights = new Map<number, number>();

  add(shard: VocabularyShard): void {
    shard.pieces.forEach((piece, i) => {
      this.ids.set(piece, shard.ids[i]);
      this.tokens.set(shard.ids[i], piece);
    });
    for (const [id, weight] of shard.weights) this.weights.set(id, weight);
  }

  id(piece: string): number | undefined {
    return this.ids.get(piece);
  }

  token(id: number): string | undefined {
    return this.tokens.get(id);
  }

  /** The query weight of a token (0 when no document holds it). */
  weight(id: number): number {
    return this.weights.get(id) ?? 0;
  }
}
