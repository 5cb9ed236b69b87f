// A published tokenizer's vocabulary in shards, so that a cold query fetches only the pieces its words can be made of:
// a piece that starts a word goes to the shard of its first two code points, a piece that continues one ("##..." in
// BERT's) to the continuing shard of the first two code points after its marker, a piece of one code point (either
// kind) to one small file when it is ASCII, else to the single shard of its code point. Each line a piece, its id as
// the difference from the line before, and its query weight where a document holds the token. Written at publish time
// and read by the runtime, both here.
import { SINGLE_SHARDS, VOCABULARY_SHARDS, singleShard, vocabularyShard, type QueryVocabulary } from './query-tokenizer.ts';

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

/**
 * A vocabulary's files: starting pieces by shard, continuing pieces by shard (without their marker), one-code-point
 * pieces by shard (non-ASCII ones), and the ASCII one-code-point pieces.
 */
export interface VocabularyShardTexts {
  shards: (string | null)[];
  continuing: (string | null)[];
  singleShards: (string | null)[];
  singles: string | null;
}

/** The files of a vocabulary (token of every id) with its weights (0: left out). */
export function encodeVocabularyShards(
  vocab: readonly (string | null)[],
  weights: Float32Array,
  continuingPrefix: string,
): VocabularyShardTexts {
  const CONTINUING = VOCABULARY_SHARDS;
  const SINGLE_SHARD = 2 * VOCABULARY_SHARDS;
  const ASCII = SINGLE_SHARD + SINGLE_SHARDS;
  const lines: string[][] = Array.from({ length: ASCII + 1 }, () => []);
  const last = new Array<number>(ASCII + 1).fill(-1);
  vocab.forEach((piece, id) => {
    if (piece === null) return;
    const continues = continuingPrefix !== '' && piece.startsWith(continuingPrefix) && piece.length > continuingPrefix.length;
    // a continuing shard's lines leave out the marker every one of its pieces has ("##")
    const text = continues ? piece.slice(continuingPrefix.length) : piece;
    const key = vocabularyShard(text);
    const single = key < 0 ? singleShard(text) : 0;
    const file = key >= 0 ? (continues ? CONTINUING : 0) + key : single < 0 ? ASCII : SINGLE_SHARD + single;
    const weight = Math.fround(weights[id] ?? 0);
    const escaped = (key < 0 ? piece : text).replace(/[\\\t\n\r]/g, (c) => ESCAPES.get(c) ?? c);
    lines[file].push(`${escaped}\t${id - last[file]}${weight !== 0 ? `\t${float32Text(weight)}` : ''}`);
    last[file] = id;
  });
  const joined = (list: string[]) => (list.length ? list.join('\n') + '\n' : null);
  return {
    shards: lines.slice(0, CONTINUING).map(joined),
    continuing: lines.slice(CONTINUING, SINGLE_SHARD).map(joined),
    singleShards: lines.slice(SINGLE_SHARD, ASCII).map(joined),
    singles: joined(lines[ASCII]),
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
