// <publish-search>: the evaluated set as a static search folder (`splade-lab publish`'s, from the vectors the
// evaluation kept): its size and what a visitor transfers per cold search, the folder as a zip, and the published
// search itself to try here, the <splade-search> element a site would embed, reading the folder from memory. A form
// sets what `publish`'s options set (weights, cap, BM25, shard and chunk sizes), checked before anything runs.
import { unzipSync } from 'fflate';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  PUBLISH_LIMITS,
  PUBLISH_SETTINGS,
  PUBLISHED_WEIGHT_KINDS,
  publishSettingsProblem,
  toPageFailure,
  type PublishedSearch,
  type PublishSettings,
  type WorkerClient,
} from '../../worker/api.ts';
import { downloadFile } from '../common/download.ts';
import { formatBytes } from '../common/format.ts';
import { baseStyles, fieldRowStyles } from '../common/theme.ts';
import { previewFolder } from './publish-preview.ts';

export type PublishSearchClient = Pick<WorkerClient, 'publishEvaluated'>;

/** Where the page's build serves splade-search.js and its engine (vite.config.ts's searchRuntimeFiles). */
const RUNTIME_FOLDER = 'search-runtime/';

const STAGES: Record<string, string> = {
  index: 'building the posting shards…',
  measure: 'measuring the published search on the set’s queries…',
  transfer: 'counting what a cold search transfers…',
};

/** The zip's one folder, by path inside it. */
function folderOf(published: PublishedSearch): Map<string, Uint8Array> {
  const prefix = `${published.name}/`;
  const files = new Map<string, Uint8Array>();
  for (const [path, bytes] of Object.entries(unzipSync(published.zip)))
    if (path.startsWith(prefix)) files.set(path.slice(prefix.length), bytes);
  return files;
}

@customElement('publish-search')
export class PublishSearch extends LitElement {
  @property({ attribute: false }) client: PublishSearchClient | null = null;
  /** The evaluated set it publishes. */
  @property({ type: String }) set = '';
  /** Changes with every evaluation: a folder published before it no longer matches the set. */
  @property({ type: Number }) generation = 0;
  @state() private _busy = false;
  @state() private _status = '';
  @state() private _error = '';
  @state() private _published: PublishedSearch | null = null;
  /** The preview's folder (publish-preview.ts), once the zip is read. */
  @state() private _previewSrc = '';
  /** The form's settings (the CLI's defaults until changed). */
  @state() private _settings: PublishSettings = { ...PUBLISH_SETTINGS };
  /** What the form's text fields hold, as typed (a cap may be empty). */
  @state() private _cap = '';
  private _publishedFor = -1;

  static override styles = [
    baseStyles,
    fieldRowStyles,
    css`
      :host {
        display: block;
      }
      splade-search {
        display: block;
        margin-top: 0.6em;
        border: 1px solid var(--border, #ccc);
        padding: 0.6em;
      }
    `,
  ];

  override willUpdate(): void {
    if (this._published && this._publishedFor !== this.generation) {
      this._published = null;
      this._previewSrc = '';
      this._status = '';
    }
  }

  override render() {
    const published = this._published;
    const problem = publishSettingsProblem(this._settings);
    return html`<p class="muted">
        A folder of static files that searches ${this.set} in any browser with no server, no model and no GPU (a query
        is its tokens looked up in the model's weight table): posting shards fetched per query, the documents in chunks,
        splade-search.js and a page. It needs an inference-free model, such as a run trained with static queries.
      </p>
      ${this._form()}
      <button id="publish" ?disabled=${!this.client || !this.set || this._busy || problem !== null} @click=${this._publish}>
        Publish ${this.set} as a static search
      </button>
      ${problem ? html`<p class="error" role="alert" id="settings-problem">${problem}</p>` : nothing}
      <p class="muted" role="status" id="publish-status">${this._status}</p>
      ${this._error ? html`<p class="error" role="alert" id="publish-error">${this._error}</p>` : nothing}
      ${published ? this._report(published) : nothing}`;
  }

  /** The settings form: `splade-lab publish`'s --weights, --cap, --no-bm25, --shard-kb and --chunk. */
  private _form() {
    const s = this._settings;
    const set = (change: Partial<PublishSettings>) => (this._settings = { ...this._settings, ...change });
    const number = (event: Event) => (event.target as HTMLInputElement).valueAsNumber;
    return html`<form id="publish-settings" @submit=${(event: Event) => event.preventDefault()}>
      <label
        >Weights stored as
        <select id="publish-weights" .value=${s.weights} @change=${(e: Event) => set({ weights: (e.target as HTMLSelectElement).value as PublishSettings['weights'] })}>
          ${PUBLISHED_WEIGHT_KINDS.map((kind) => html`<option value=${kind} ?selected=${kind === s.weights}>${kind}</option>`)}
        </select>
      </label>
      <label
        >Cap per posting list (empty: every document)
        <input
          id="publish-cap"
          type="number"
          min="1"
          step="1"
          .value=${this._cap}
          @input=${(e: Event) => {
            this._cap = (e.target as HTMLInputElement).value;
            set({ cap: this._cap.trim() === '' ? null : number(e) });
          }}
        />
      </label>
      <label
        >Shard size (KiB)
        <input id="publish-shard-kb" type="number" min="1" max=${PUBLISH_LIMITS.shardKb} step="1" .value=${String(s.shardKb)} @input=${(e: Event) => set({ shardKb: number(e) })} />
      </label>
      <label
        >Documents per chunk
        <input id="publish-chunk" type="number" min="1" max=${PUBLISH_LIMITS.chunk} step="1" .value=${String(s.chunk)} @input=${(e: Event) => set({ chunk: number(e) })} />
      </label>
      <label
        ><span><input id="publish-bm25" type="checkbox" .checked=${s.bm25} @change=${(e: Event) => set({ bm25: (e.target as HTMLInputElement).checked })} /> BM25 too (a switch in the search)</span>
      </label>
    </form>`;
  }

  private _report(p: PublishedSearch) {
    const t = p.transfer;
    const splade = p.quality.find((q) => q.system === 'splade');
    return html`<ul id="publish-report">
        <li>${p.files} files, ${formatBytes(p.sizes.total ?? 0)} in all (k = ${p.k}, documents up to ${p.documentLength} tokens).</li>
        ${
          t
            ? html`<li id="publish-transfer" data-p50=${t.p50} data-p90=${t.p90}>
                A search with nothing cached transfers ${formatBytes(t.p50)} at the median and ${formatBytes(t.p90)} at
                the 90th percentile over ${t.queries} queries (${t.filesP50} and ${t.filesP90} files; the page and
                runtime's ${formatBytes(t.runtime)} included; uncompressed, a server's gzip sends less).
              </li>`
            : nothing
        }
        ${
          splade
            ? html`<li id="publish-quality" data-exact=${splade.exact} data-published=${splade.published}>
                nDCG@10 of the published search ${splade.published.toFixed(4)}, exact retrieval of the same vectors
                ${splade.exact.toFixed(4)} (weights stored as ${p.weights}; ${splade.rankingsDiffering} of
                ${splade.queries} queries rank their top 1000 differently).
              </li>`
            : nothing
        }
      </ul>
      <button id="publish-download" @click=${() => this._download(p)}>Download ${p.name}.zip</button>
      <h4>Try the published search</h4>
      ${this._previewSrc ? html`<splade-search id="publish-preview" src=${this._previewSrc} label="Search the published ${this.set}"></splade-search>` : nothing}`;
  }

  private async _publish() {
    if (!this.client) return;
    const generation = this.generation;
    this._busy = true;
    this._error = '';
    this._published = null;
    this._previewSrc = '';
    this._status = 'Publishing: reading the kept vectors…';
    try {
      const base = new URL(RUNTIME_FOLDER, document.baseURI).href;
      const published = await this.client.publishEvaluated(base, { ...this._settings }, (stage) => {
        this._status = `Publishing: ${STAGES[stage] ?? `${stage}…`}`;
      });
      if (generation !== this.generation) {
        this._status = 'The set was evaluated again while publishing: publish it again.';
        return;
      }
      this._published = published;
      this._publishedFor = generation;
      this._previewSrc = previewFolder(folderOf(published));
      this._status = `Published ${this.set}: ${published.name}.zip is ready.`;
    } catch (error) {
      this._status = '';
      this._error = `Publishing failed: ${toPageFailure(error).message}`;
    } finally {
      this._busy = false;
    }
  }

  private _download(p: PublishedSearch) {
    downloadFile({ name: `${p.name}.zip`, type: 'application/zip', bytes: p.zip });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'publish-search': PublishSearch;
  }
}
