// The kind of each vocabulary piece, for the corpus audit: special, number, stop word, subword piece or other word;
// how a tokenizer marks subword pieces is read off its vocabulary (WordPiece "##", byte-level BPE "Ġ", SentencePiece "▁").
import type { SpecialIds } from '../../io/tokenizer/tokenizer.ts';
import { PIECE_KINDS, type PieceKind } from '../../contract/model/expansion-audit.ts';
import { ENGLISH_STOP_WORDS } from './english-stop-words.ts';

export { PIECE_KINDS, type PieceKind };

/** How a vocabulary marks where words start: a prefix on continuation pieces, or on word-start pieces. */
export interface PieceMarking {
  /** "##" (WordPiece), "Ġ" (byte-level BPE: RoBERTa, ModernBERT) or "▁" (SentencePiece: XLM-RoBERTa, ALBERT). */
  marker: string;
  /** The marker starts a word ("Ġ", "▁": an unmarked piece continues one) rather than continuing one ("##"). */
  marksWordStarts: boolean;
}

const MARKINGS: readonly PieceMarking[] = [
  { marker: '##', marksWordStarts: false },
  { marker: 'Ġ', marksWordStarts: true },
  { marker: '▁', marksWordStarts: true },
];

/** Reserved pieces: BERT's [unused0], Gemma-style <unused0>, "<|endoftext|>", and ids a tokenizer lacks ("[unused id 7]"). */
const RESERVED = /^(\[unused\d+\]|<unused\d+>|<\|[^|]*\|>|\[unused id \d+\]|\[id \d+\])$/;

const DIGITS = /^\p{Nd}+$/u;

/** The marking most of the vocabulary's pieces carry (WordPiece's when none carries any). */
export function pieceMarkingOf(vocab: readonly string[]): PieceMarking {
  const counts = MARKINGS.map((m) => vocab.reduce((n, piece) => n + (piece.startsWith(m.marker) ? 1 : 0), 0));
  return MARKINGS[counts.indexOf(Math.max(...counts))];
}

/**
 * The kind of one piece. A continuation piece ("##s"; "s" where "Ġ" or "▁" marks word starts) is a subword piece, also
 * when it spells a stop word; the first word of a text, which byte-level BPE leaves unmarked, counts as one too. A
 * word-start piece whose word (marker removed, lower-cased) is on the stop-word list is a stop word.
 */
export function pieceKind(piece: string, marking: PieceMarking, special = false): PieceKind {
  if (special || RESERVED.test(piece)) return 'special';
  const marked = piece.startsWith(marking.marker);
  const word = marked ? piece.slice(marking.marker.length) : piece;
  if (DIGITS.test(word)) return 'number';
  const continuesWord = marking.marksWordStarts ? !marked : marked;
  if (continuesWord) return 'subword';
  return ENGLISH_STOP_WORDS.has(word.toLowerCase()) ? 'stopWord' : 'word';
}

/** Whether vocabulary id `id`, spelt `piece`, is of the special kind: a special id of the tokenizer, or a reserved piece. */
export function isSpecialPiece(piece: string, id: number, specialIds: SpecialIds): boolean {
  return RESERVED.test(piece) || Object.values(specialIds).includes(id);
}

/** The kind of every vocabulary id, as an index into PIECE_KINDS; the tokenizer's special ids are special. */
export function pieceKindsOf(
  vocab: readonly string[],
  specialIds: SpecialIds,
  marking: PieceMarking = pieceMarkingOf(vocab),
): Uint8Array {
  const special = new Set(Object.values(specialIds).filter((id): id is number => id !== null));
  return Uint8Array.from(vocab, (piece, id) => PIECE_KINDS.indexOf(pieceKind(piece, marking, special.has(id))));
}
