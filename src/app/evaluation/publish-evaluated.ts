// The page's "Publish as a static search": the last evaluated set, with the vectors its evaluation kept (nothing is
// encoded again), made into a static search folder as `splade-lab publish` writes one, zipped, with what a visitor
// would transfer per cold search and the published search's nDCG@10 against exact retrieval.
import { zipSync } from 'fflate';
import type { ModelSession } from '../model/model-session.ts';
import type { EvaluatedSet } from './evaluated-set.ts';
import { NotInferenceFreeError, PUBLISH_DEFAULTS, publishOptionsFrom, publishSite, type PublishRuntime } from './publish-site.ts';
import { coldQueryTransfer } from './publish-transfer.ts';
import {
  PUBLISH_SETTINGS,
  publishSettingsProblem,
  type PublishSettings,
  type PublishedSearch,
} from '../../contract/evaluation/published-search.ts';
import { MANIFEST_FILE } from '../../publish-runtime/manifest.ts';

/** A folder name from a set's name: letters, digits, dots, dashes and underscores. */
export function folderNameOf(setName: string): string {
  const stem = setName.replace(/[^\w.-]+/g, '-').replace(/^[-.]+|-+$/g, '');
  return `${stem || 'search'}-static-search`;
}

/** SHA-256 of the corpus as published (each document's id and text, one JSON line each), "sha256:<hex>". */
async function corpusFingerprint(ids: readonly string[], texts: readonly string[]): Promise<string> {
  const lines = ids.map((id, d) => JSON.stringify([id, texts[d]])).join('\n');
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(lines)));
  return `sha256:${[...digest].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Publishes `set` under `session`'s model (which must be inference-free: NotInferenceFreeError otherwise) with
 * `settings` (weights, cap, BM25, shard and chunk sizes; checked first), the evaluation's k, document length and
 * pruning, and the CLI's defaults for the rest. A document's title is its corpus's title (its id where it has none),
 * its snippet the start of the rest of its text, and it has no link.
 */
export async function publishEvaluatedSet(
  session: ModelSession,
  set: EvaluatedSet,
  runtime: PublishRuntime,
  settings: PublishSettings = PUBLISH_SETTINGS,
  onStage?: (stage: string) => void,
): Promise<PublishedSearch> {
  const problem = publishSettingsProblem(settings);
  if (problem) throw new RangeError(`cannot publish with these settings: ${problem}`);
  const { dataset, docVectors, queryVectors, encoding } = set.vectorsForPublishing();
  const corpus = {
    name: dataset.name,
    fingerprint: await corpusFingerprint(dataset.corpusIds, dataset.corpusTexts),
    records: dataset.corpusIds.map((id, d) => {
      const text = dataset.corpusTexts[d];
      const title = dataset.corpusTitles?.[d] ?? '';
      // the encoder read title and text joined; the page shows the title as the heading and the rest below it
      const body = title && text.startsWith(title) ? text.slice(title.length).trim() : text;
      return { id, text, title: title || id, url: '', body };
    }),
    judged: { ids: dataset.queryIds, texts: dataset.queryTexts, qrels: dataset.qrels },
  };
  const options = {
    ...PUBLISH_DEFAULTS,
    ...publishOptionsFrom(settings),
    ...encoding,
    title: dataset.name,
  };
  if (!session.inferenceFree)
    throw new NotInferenceFreeError(
      `${session.model.name} is not inference-free: its queries need the model itself, not a table lookup, so no static ` +
        'page can search with it. Train a run with inference-free queries (Training: Queries, a static or trained IDF ' +
        'table) and use it, or load an inference-free model, then evaluate and publish again.',
    );
  const site = await publishSite(
    session,
    corpus,
    runtime,
    options,
    { onStage },
    { documents: docVectors, queries: queryVectors },
  );
  onStage?.('transfer');
  const transfer = await coldQueryTransfer(site, dataset.queryTexts);
  const name = folderNameOf(dataset.name);
  const entries: Record<string, Uint8Array> = Object.create(null);
  for (const file of site.files) entries[`${name}/${file.path}`] = file.bytes;
  entries[`${name}/${MANIFEST_FILE}`] = site.manifestBytes;
  return {
    name,
    zip: zipSync(entries, { level: 6 }),
    files: site.files.length + 1,
    sizes: site.manifest.sizes,
    transfer,
    quality: site.quality,
    weights: site.manifest.splade.weights,
    k: encoding.k,
    documentLength: site.manifest.model.documentLength,
  };
}
