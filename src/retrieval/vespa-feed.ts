// Vespa document operations, one JSON object per line as `vespa feed` reads them:
// {"put": "id:<namespace>:<document-type>::<id>", "fields": {"doc_id", "text", "<field>": {"cells": {token: w}}}}
// (docs.vespa.ai/en/reference/schemas/document-json-format.html: put; a tensor with one mapped dimension written as
// its cells object, the form every Vespa 8 reader takes, whatever the token: the bare short form would read a token
// named "cells", "values" or "blocks" as the form's own key).
import { tokenOf, type Vocabulary } from './engine-names.ts';
import { weightsObjectText } from './weights-json.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

/** A Vespa document type (and schema) name. */
export const VESPA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A namespace: any short text without ':' (it ends the id scheme's part); kept to these characters here. */
export const VESPA_NAMESPACE = /^[A-Za-z0-9_.-]+$/;

/**
 * Whether a code point may stand in a document id: Vespa's com.yahoo.text.Text.isTextCharacter (vespajlib): tab, LF
 * and CR and no other ASCII control character, no high surrogate (an unpaired one), not U+FDD0..U+FDDF, and not the
 * last two code points of a supplementary plane.
 */
export function isVespaTextCharacter(codePoint: number): boolean {
  if (codePoint < 0x80) return codePoint === 0x09 || codePoint === 0x0a || codePoint === 0x0d || codePoint >= 0x20;
  if (codePoint < 0xd800) return true;
  if (codePoint <= 0xdbff) return false;
  if (codePoint < 0xfdd0) return true;
  if (codePoint <= 0xfddf) return false;
  if (codePoint < 0x10000) return true;
  if (codePoint >= 0x10fffe) return false;
  return (codePoint & 0xffff) < 0xfffe;
}

/** The document id of a record: id:<namespace>:<doctype>::<id>; an id Vespa cannot hold is an error naming it. */
export function vespaDocumentId(namespace: string, doctype: string, id: string): string {
  if (id === '') throw new Error('a record has an empty id; Vespa document ids need one: give every record an _id');
  for (const char of id) {
    const codePoint = char.codePointAt(0)!;
    if (!isVespaTextCharacter(codePoint))
      throw new Error(
        `record id ${JSON.stringify(id)} holds U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}, which a Vespa document id may not (com.yahoo.text.Text.isTextCharacter): change the id in the input`,
      );
  }
  return `id:${namespace}:${doctype}::${id}`;
}

/** One put operation: the record's id and text, and the vector as a tensor<float>(token{}) under `field`. */
export function vespaPutLine(
  put: string,
  record: { id: string; text: string },
  vector: SparseVector,
  vocab: Vocabulary,
  field: string,
): string {
  const cells: [string, number][] = [];
  for (let i = 0; i < vector.indices.length; i++) cells.push([tokenOf(vocab, vector.indices[i]), vector.values[i]]);
  const fields = `{"doc_id":${JSON.stringify(record.id)},"text":${JSON.stringify(record.text)},${JSON.stringify(field)}:{"cells":${weightsObjectText(cells)}}}`;
  return `{"put":${JSON.stringify(put)},"fields":${fields}}`;
}

/**
 * Whether the vocabulary's tokens carry byte-level BPE's "Ġ" or SentencePiece's "▁" word marks (more than a tenth of
 * them). Vespa's splade-embedder labels a query's tokens with tokenizer.decode([id]) (vespa-engine/vespa,
 * model-integration/src/main/java/ai/vespa/embedding/SpladeEmbedder.java), which is the token itself for WordPiece
 * vocabularies but turns "Ġthe" into " the": such a feed would never match the embedder's queries.
 */
export function hasDecodedWordMarks(vocab: Vocabulary): boolean {
  let marked = 0;
  for (const token of vocab) if (token.startsWith('\u0120') || token.startsWith('\u2581')) marked++;
  return marked > vocab.length / 10;
}
