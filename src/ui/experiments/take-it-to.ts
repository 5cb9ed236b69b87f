// <take-it-to>: a run page's list of where its model can go (sentence-transformers, onnxruntime, Vespa, Elasticsearch,
// OpenSearch, Qdrant, Anserini, Seismic), each with the file it takes, the button or command that makes it, and what to
// do with it there; docs/deploy.md has each layout and the engine source it follows.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { RunRecord } from '../../worker/api.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

/** What a button of this list asks the runs panel to download. */
export type RunExport = 'model' | 'onnx';

interface Destination {
  id: string;
  where: string;
  file: string;
  /** A download the page makes, or the command that makes the file from the unzipped model folder. */
  make: { download: RunExport; label: string } | { command: string };
  then: string;
}

/** The unzipped Model (.zip), as the commands below name it. */
const FOLDER = 'model';

function destinations(inferenceFree: boolean): Destination[] {
  const queries = inferenceFree ? ' Queries: the same command with --side query (a lookup in the static table).' : '';
  const encode = (format: string, out: string) =>
    `splade-lab encode --model ${FOLDER} --in docs.jsonl --out ${out} --format ${format}`;
  return [
    {
      id: 'sentence-transformers',
      where: 'Python: sentence-transformers',
      file: inferenceFree ? 'a SparseEncoder folder (a Router: static query table, MLM for documents)' : 'a SparseEncoder folder',
      make: { download: 'model', label: 'Model (.zip)' },
      then: `Unzip it, then SparseEncoder("${FOLDER}").encode_query(...) and .encode_document(...).`,
    },
    {
      id: 'onnxruntime',
      where: 'onnxruntime (Python, JavaScript, C++, Java)',
      file: 'one ONNX file: input_ids, attention_mask (token_type_ids optional) in, the SPLADE vector out',
      make: { download: 'onnx', label: 'ONNX' },
      then: 'sess.run(None, dict(tokenizer(texts, return_tensors="np"))) gives sparse_vector (batch x vocabulary).',
    },
    {
      id: 'st-onnx',
      where: 'sentence-transformers with backend="onnx"',
      file: 'the logits graph at onnx/model.onnx inside the model folder',
      make: { command: `splade-lab export-onnx --st-folder ${FOLDER}` },
      then: `SparseEncoder("${FOLDER}", backend="onnx").`,
    },
    {
      id: 'opensearch-ml',
      where: 'OpenSearch ml-commons (the model inside the cluster)',
      file: inferenceFree
        ? 'SPARSE_TOKENIZE zip (tokenizer.json, idf.json) and its register config'
        : 'SPARSE_ENCODING zip (ONNX, tokenizer.json) and its register config',
      make: {
        command: inferenceFree
          ? `splade-lab export-opensearch --model ${FOLDER} --side query --out splade-query.zip`
          : `splade-lab export-opensearch --model ${FOLDER} --out splade-doc.zip`,
      },
      then: 'Register the zip with the config written beside it (size and SHA-256 inside).',
    },
    {
      id: 'elasticsearch',
      where: 'Elasticsearch (sparse_vector or rank_features)',
      file: '_bulk NDJSON; a token\'s "." written "__" as Elasticsearch\'s own inference names it',
      make: { command: encode('es', 'es.ndjson') },
      then: `POST it to _bulk; query with the same names. Lucene keeps 9 significant bits of each weight.${queries}`,
    },
    {
      id: 'opensearch',
      where: 'OpenSearch (rank_features, or sparse_vector keyed by token id)',
      file: '_bulk NDJSON',
      make: { command: `${encode('opensearch', 'os.ndjson')}   (or --format opensearch-ids)` },
      then: `POST it to _bulk, then a neural_sparse or rank_feature query.${queries}`,
    },
    {
      id: 'vespa',
      where: 'Vespa',
      file: 'a feed, a schema with a sparse dot-product rank profile, services.xml for the splade-embedder',
      make: {
        command:
          `${encode('vespa', 'feed.jsonl')} --vespa-schema doc.sd --vespa-services services.xml; ` +
          `splade-lab export-onnx --model ${FOLDER} --output logits --out models/model-logits.onnx`,
      },
      then: 'Deploy the application, feed it with vespa feed.',
    },
    {
      id: 'qdrant',
      where: 'Qdrant',
      file: 'points with a named sparse vector (indices, values)',
      make: { command: encode('qdrant', 'points.jsonl') },
      then: `Upsert the points into a collection with a sparse vector named splade.${queries}`,
    },
    {
      id: 'anserini',
      where: 'Anserini / Lucene',
      file: 'JsonVectorCollection: token -> integer impact, round(100 w)',
      make: { command: encode('anserini', 'vectors.jsonl') },
      then: `Index it with -impact -pretokenized; search with the queries encoded the same way.${queries}`,
    },
    {
      id: 'seismic',
      where: 'Seismic',
      file: 'JSONL for SeismicIndex.build',
      make: { command: encode('seismic', 'seismic.jsonl') },
      then: 'SeismicIndex.build("seismic.jsonl"); past 65,535 distinct tokens, SeismicIndexLV.',
    },
  ];
}

@customElement('take-it-to')
export class TakeItTo extends LitElement {
  static override styles = [
    baseStyles,
    tableStyles,
    css`
      code {
        font-size: 0.9em;
        word-break: break-all;
      }
    `,
  ];

  /** The run whose saved model the list is about. */
  @property({ attribute: false }) run: RunRecord | null = null;

  override render() {
    const run = this.run;
    if (!run) return nothing;
    const saved = Boolean(run.savedModel);
    return html`<section aria-labelledby="take-it-to-title">
      <h4 id="take-it-to-title">Take it to...</h4>
      <p class="muted">
        ${
          saved
            ? html`Each file's layout, the engine source it follows and the test that checks it: docs/deploy.md. Commands
              run on the unzipped Model (.zip), a folder called <code>${FOLDER}</code> here.`
            : 'The run has no saved model yet: it is written when training ends.'
        }
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">to</th>
            <th scope="col">the file</th>
            <th scope="col">how</th>
            <th scope="col">then</th>
          </tr>
        </thead>
        <tbody>
          ${destinations(Boolean(run.recipe.inferenceFree)).map(
            (d) =>
              html`<tr data-destination=${d.id}>
                <th scope="row">${d.where}</th>
                <td>${d.file}</td>
                <td>
                  ${
                    'download' in d.make
                      ? html`<button class="take-${d.make.download}" ?disabled=${!saved} @click=${() => this._export(d.make)}>
                        ${d.make.label}
                      </button>`
                      : html`<code>${d.make.command}</code>`
                  }
                </td>
                <td>${d.then}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>`;
  }

  private _export(make: Destination['make']) {
    if (!('download' in make)) return;
    this.dispatchEvent(new CustomEvent<RunExport>('export-run', { detail: make.download, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'take-it-to': TakeItTo;
  }
}
