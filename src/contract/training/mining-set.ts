// What a mining runs on: the corpus as unique texts, and the queries (unique texts) with their positives' document
// numbers, joined from BEIR qrels or from query-positive pairs as sentence-transformers joins them (a text that repeats
// is one document or one query; a query's positives are all its pairs'). What the join leaves out is counted.
import type { MinedQuery } from './mined-rows.ts';

/** A record with an id (a BEIR `_id`, or where a pair was read) and its text. */
export interface IdText {
  id: string;
  text: string;
}

/** What the join left out or merged, each with a few examples; nothing here is an error unless no query is left. */
export interface MiningSetNotes {
  /** Corpus records whose text is empty (white space only): never a negative nor a positive. */
  emptyDocuments: number;
  /** Corpus records whose text an earlier one has: one document (the first id). */
  duplicateDocuments: number;
  /** Queries the qrels never name (another split's, most often): not mined. */
  unjudgedQueries: number;
  /** Query ids of the qrels absent from the queries (or with an empty text). */
  unknownQueries: string[];
  /** Judgments with a score above 0 naming a document absent from the corpus (or empty): skipped. */
  unknownDocuments: { count: number; examples: string[] };
  /** Judged queries left with no positive: every judgment 0 or below, or every positive unknown. */
  withoutPositive: string[];
  /** Queries that share their text with an earlier one: one query with both one's positives. */
  mergedQueries: number;
}

export interface MiningSet {
  /** The documents' texts, each once, and the id each was first read under. */
  documents: string[];
  documentIds: string[];
  queries: MinedQuery[];
  notes: MiningSetNotes;
}

/** How many ids a note lists at most. */
const EXAMPLES = 5;

function emptyNotes(): MiningSetNotes {
  return {
    emptyDocuments: 0,
    duplicateDocuments: 0,
    unjudgedQueries: 0,
    unknownQueries: [],
    unknownDocuments: { count: 0, examples: [] },
    withoutPositive: [],
    mergedQueries: 0,
  };
}

/** The corpus as unique non-empty texts, and the document number of each id kept (duplicates: the first one's). */
function uniqueDocuments(corpus: readonly IdText[], notes: MiningSetNotes) {
  const documents: string[] = [];
  const documentIds: string[] = [];
  const byText = new Map<string, number>();
  const byId = new Map<string, number>();
  const add = (record: IdText): number | undefined => {
    if (record.text.trim() === '') {
      notes.emptyDocuments++;
      return undefined;
    }
    let doc = byText.get(record.text);
    if (doc === undefined) {
      byText.set(record.text, (doc = documents.length));
      documents.push(record.text);
      documentIds.push(record.id);
    } else notes.duplicateDocuments++;
    byId.set(record.id, doc);
    return doc;
  };
  for (const record of corpus) add(record);
  return { documents, documentIds, byId, byText, add };
}

/** Queries merged by text, in first-seen order, each with its positives once, in order. */
function queryGroups() {
  const queries: MinedQuery[] = [];
  const byText = new Map<string, { name: string; text: string; positives: number[] }>();
  let merged = 0;
  const add = (name: string, text: string, positives: readonly number[], isNewName: boolean) => {
    let query = byText.get(text);
    if (!query) {
      byText.set(text, (query = { name, text, positives: [] }));
      queries.push(query);
    } else if (isNewName) merged++;
    for (const p of positives) if (!query.positives.includes(p)) query.positives.push(p);
  };
  return { queries, add, merged: () => merged };
}

/** Throws when the join left no query to mine, saying what it left out. */
function checkSomethingLeft(set: MiningSet, source: string): MiningSet {
  if (set.queries.length > 0) return set;
  const n = set.notes;
  const why = [
    n.unknownQueries.length
      ? `${n.unknownQueries.length} judged query ids are absent from the queries (e.g. "${n.unknownQueries[0]}")`
      : '',
    n.unknownDocuments.count
      ? `${n.unknownDocuments.count} positives name documents absent from the corpus (e.g. "${n.unknownDocuments.examples[0]}")`
      : '',
    n.withoutPositive.length ? `${n.withoutPositive.length} queries have no positive (e.g. "${n.withoutPositive[0]}")` : '',
  ].filter(Boolean);
  throw new Error(
    `${source}: no query with a positive in the corpus is left to mine negatives for${why.length ? `: ${why.join('; ')}` : ''}`,
  );
}

/**
 * Joins a BEIR corpus, its queries and qrels: a judgment above 0 is a positive (BEIR's relevance); the judged queries
 * are mined in the queries' order; unknown ids and queries left with no positive are skipped and counted (notes).
 */
export function miningSetFromQrels(
  corpus: readonly IdText[],
  queryRecords: readonly IdText[],
  qrels: ReadonlyMap<string, ReadonlyMap<string, number>>,
  source: string,
): MiningSet {
  const notes = emptyNotes();
  const docs = uniqueDocuments(corpus, notes);
  const groups = queryGroups();
  const known = new Set<string>();
  for (const record of queryRecords) {
    const judged = qrels.get(record.id);
    if (record.text.trim() === '') continue; // counted as unknown below when judged
    known.add(record.id);
    if (!judged) {
      notes.unjudgedQueries++;
      continue;
    }
    const positives: number[] = [];
    for (const [id, score] of judged) {
      if (score <= 0) continue;
      const doc = docs.byId.get(id);
      if (doc !== undefined) positives.push(doc);
      else {
        notes.unknownDocuments.count++;
        if (notes.unknownDocuments.examples.length < EXAMPLES) notes.unknownDocuments.examples.push(id);
      }
    }
    if (positives.length === 0) notes.withoutPositive.push(record.id);
    else groups.add(record.id, record.text, positives, true);
  }
  for (const id of qrels.keys()) if (!known.has(id)) notes.unknownQueries.push(id);
  notes.mergedQueries = groups.merged();
  return checkSomethingLeft({ documents: docs.documents, documentIds: docs.documentIds, queries: groups.queries, notes }, source);
}

/**
 * Joins query-positive pairs with a corpus (none: the positives are the corpus, as in sentence-transformers): a
 * positive whose text the corpus lacks is added to it; pairs of one query text are one query with all their positives.
 */
export function miningSetFromPairs(
  pairs: readonly { query: IdText; positive: string }[],
  corpus: readonly IdText[],
  source: string,
): MiningSet {
  const notes = emptyNotes();
  const docs = uniqueDocuments(corpus, notes);
  const groups = queryGroups();
  for (const { query, positive } of pairs) {
    const doc = docs.byText.get(positive) ?? docs.add({ id: query.id, text: positive });
    if (doc === undefined) notes.withoutPositive.push(query.id);
    else groups.add(query.id, query.text, [doc], false);
  }
  return checkSomethingLeft({ documents: docs.documents, documentIds: docs.documentIds, queries: groups.queries, notes }, source);
}
