// The training panel's data chooser, a part of the panel that renders into it: the lesson's generated triplets built
// into the page (synthetic, no network), a triplet file (picked or dropped), a Hugging Face dataset read by id, or
// batches cached in this browser; what is chosen, or why it cannot be used (offline: what works without the network).
import { Task } from '@lit/task';
import { html, nothing, type ReactiveControllerHost } from 'lit';
import { toPageFailure, type BatchCacheEntry, type TripletsSummary } from '../../worker/api.ts';
import './batch-cache-list.ts';
import '../common/drop-zone.ts';
import { builtinTriplets, isBuiltin } from '../common/builtin-data.ts';
import { formatBytes } from '../common/format.ts';
import { offlineAdvice } from '../common/offline-advice.ts';
import type { TrainingClient } from './training-client.ts';

export interface TrainingDataHost extends ReactiveControllerHost, HTMLElement {
  readonly client: TrainingClient | null;
  /** The Hub base URL in use (null: huggingface.co). */
  readonly hubUrl: string | null;
  readonly renderRoot: HTMLElement | DocumentFragment;
  /** A run is going on: the data cannot change. */
  readonly running: boolean;
  /** Says what the chooser is doing (the panel's status line). */
  dataStatus(message: string): void;
}

export class TrainingData {
  /** The triplets chosen (null: none yet, or the last choice failed). */
  summary: TripletsSummary | null = null;
  /** Why the last choice cannot be used. */
  error = '';
  /** Set with the error when the Hub gave no answer: what works without the network. */
  private offline = '';
  /** Bumped after the cache changes (a run, a clear), so the cached batches are listed again. */
  private cacheChanges = 0;
  /** The batches cached in this browser (a reloaded tab trains from them without the file). */
  private readonly caches: Task<readonly [TrainingClient | null, number], BatchCacheEntry[]>;

  constructor(private readonly host: TrainingDataHost) {
    this.caches = new Task(host, {
      task: async ([client]) => (client ? client.batchCaches() : []),
      args: () => [host.client, this.cacheChanges] as const,
    });
  }

  /** A run may have cached its batches, or some were cleared: the next update lists them again. */
  cacheChanged(): void {
    this.cacheChanges++;
  }

  render(running: boolean) {
    const cached = this.caches.value ?? [];
    return html`<p id="builtin-data">
        <button id="use-builtin" type="button" ?disabled=${running || !this.host.client} @click=${this._onBuiltin}>
          Use the lesson's generated triplets (synthetic, built in, offline)
        </button>
        <span class="muted"
          >A query of two topic words, a document of its topic, one of another; its held-out set is in the Evaluate tab.</span
        >
      </p>
      <drop-zone @files-drop=${this._onDrop}>
        <label
          >Triplets (TSV, one per line: query <kbd>Tab</kbd> positive <kbd>Tab</kbd> negative; or JSONL with query or anchor,
          positive, negative):
          <input
            id="triplets"
            type="file"
            accept=".tsv,.txt,.jsonl,.ndjson,text/tab-separated-values,text/plain,application/jsonl"
            @change=${this._onFile}
            ?disabled=${running}
        /></label>
        <span class="muted">or drop the file here</span>
      </drop-zone>
      <details id="hub-data">
        <summary>…or a Hugging Face dataset (its Parquet files)</summary>
        <div class="fields">
          <label class="field"
            >Dataset id
            <input
              id="hub-dataset"
              type="text"
              placeholder="sentence-transformers/msmarco-msmarco-MiniLM-L-6-v3"
              size="44"
              ?disabled=${running}
          /></label>
          <label class="field"
            >Subset <input id="hub-subset" type="text" placeholder="triplet" size="10" ?disabled=${running}
          /></label>
          <label class="field">Split <input id="hub-split" type="text" value="train" size="8" ?disabled=${running} /></label>
          <button id="read-hub" ?disabled=${running || !this.host.client} @click=${this._onHub}>Read</button>
        </div>
        <p class="muted">Rows are read into this tab's memory: a large dataset (MS MARCO's triplets) needs a few GB.</p>
      </details>
      <p id="data" aria-live="polite">${this._dataLine()}</p>
      <details id="batch-caches" ?open=${!this.summary && cached.length > 0}>
        <summary>Batches cached in this browser (${cached.length})</summary>
        <p class="muted">
          A run caches its tokenized batches here before its first step, so that a reloaded tab can resume it without the file:
          load the same backbone, then train from the cached batches.
        </p>
        <batch-cache-list
          .entries=${cached}
          ?disabled=${running}
          @use-cache=${this._onUseCache}
          @clear-cache=${this._onClearCache}
        ></batch-cache-list>
      </details>
      ${
        this.error
          ? html`<div class="error" role="alert" id="data-error">
              <p>${this.error}</p>
              ${
                this.offline
                  ? html`<p id="data-offline">${this.offline}</p>
                      <button id="offline-builtin" type="button" ?disabled=${running} @click=${this._onBuiltin}>
                        Use the lesson's generated triplets instead
                      </button>`
                  : nothing
              }
            </div>`
          : nothing
      }`;
  }

  private _dataLine() {
    const d = this.summary;
    if (!d) return this.error ? '' : 'No triplets yet.';
    if (d.cacheFingerprint)
      return `${d.name}: ${d.triplets} triplets, from the batches cached in this browser (the file is not loaded).`;
    const notes = [d.header ? 'header line skipped' : '', d.blankLines ? `${d.blankLines} blank lines skipped` : '']
      .filter(Boolean)
      .join(', ');
    const what = isBuiltin(d.name) ? " (synthetic: the lesson's generated task, built into the page)" : '';
    return `${d.name}: ${d.triplets} triplets (${formatBytes(d.bytes)})${notes ? `; ${notes}` : ''}${what}.`;
  }

  private _set(summary: TripletsSummary | null, error: string, offline = ''): void {
    this.summary = summary;
    this.error = error;
    this.offline = offline;
    this.host.requestUpdate();
  }

  /** Chosen triplets: the panel shows them, and the page's other training panels use them too. */
  private _chose(summary: TripletsSummary): void {
    this._set(summary, '');
    this.host.dispatchEvent(new CustomEvent('triplets-change', { detail: { summary }, bubbles: true, composed: true }));
  }

  private _onDrop = (event: CustomEvent<File[]>) => {
    if (!this.host.running) void this._read(event.detail[0]);
  };

  /** The lesson's generated triplets, read as a picked file would be (its name says synthetic). */
  private _onBuiltin = () => {
    if (!this.host.running) void this._read(builtinTriplets());
  };

  private _onFile = (event: Event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file) void this._read(file);
  };

  private async _read(file: File) {
    const client = this.host.client;
    if (!client) return;
    this._set(null, '');
    try {
      this._chose(await client.readTriplets(file));
    } catch (error) {
      this._set(
        null,
        `${file.name} cannot be used for training. ${toPageFailure(error).message}\n` +
          'Each line must be: query, Tab, positive passage, Tab, negative passage; or, in a .jsonl file, {"query": ..., "positive": ..., "negative": ...}.',
      );
    }
  }

  private _onHub = async () => {
    const value = (id: string) => this.host.renderRoot.querySelector<HTMLInputElement>(`#${id}`)!.value.trim();
    const repo = value('hub-dataset');
    const client = this.host.client;
    if (!client || !repo) return;
    this._set(null, '');
    this.host.dataStatus(`Reading ${repo} from the Hub…`);
    try {
      const summary = await client.readHubTriplets({
        repo,
        subset: value('hub-subset') || undefined,
        split: value('hub-split') || undefined,
        hubUrl: this.host.hubUrl ?? undefined,
      });
      this.host.dataStatus('');
      this._chose(summary);
    } catch (error) {
      this.host.dataStatus('');
      const { message } = toPageFailure(error);
      this._set(null, `${repo} cannot be used for training. ${message}`, offlineAdvice(message, 'triplets') ?? '');
    }
  };

  private _onUseCache = async (event: CustomEvent<{ fingerprint: string }>) => {
    const client = this.host.client;
    if (!client) return;
    this._set(this.summary, '');
    try {
      this._chose(await client.useCachedBatches(event.detail.fingerprint));
    } catch (error) {
      this._set(this.summary, toPageFailure(error).message);
    }
  };

  private _onClearCache = async (event: CustomEvent<{ fingerprint?: string }>) => {
    const client = this.host.client;
    if (!client) return;
    await client.clearBatchCache(event.detail.fingerprint);
    const cleared = event.detail.fingerprint === undefined || this.summary?.cacheFingerprint === event.detail.fingerprint;
    if (this.summary?.cacheFingerprint && cleared) this._set(null, this.error);
    this.cacheChanged();
  };
}
