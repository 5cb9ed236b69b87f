// <dataset-chooser>: the retrieval sets to evaluate on: the lesson's generated task built into the page (synthetic, no
// network), NanoBEIR sets from the Hub (read with download progress) or a BEIR folder picked or dropped (corpus.jsonl,
// queries.jsonl, qrels/test.tsv); lists the sets read and which to use. A Hub set that gets no answer says what works offline.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import '../common/drop-zone.ts';
import {
  NANOBEIR_SETS,
  toPageFailure,
  type DatasetSource,
  type DatasetSummary,
  type LoadProgress,
  type WorkerClient,
} from '../../worker/api.ts';
import { BUILTIN_TASK, builtinBeirFiles } from '../common/builtin-data.ts';
import { formatBytes } from '../common/format.ts';
import { offlineAdvice } from '../common/offline-advice.ts';
import { baseStyles, trainingPanelStyles } from '../common/theme.ts';

export type DatasetClient = Pick<WorkerClient, 'openDataset'>;

/** The name of a picked folder: the first component of the files' relative paths. */
function folderName(files: File[]): string {
  const path = (files[0] as (File & { webkitRelativePath?: string }) | undefined)?.webkitRelativePath ?? '';
  return path.includes('/') ? path.slice(0, path.indexOf('/')) : 'BEIR files';
}

@customElement('dataset-chooser')
export class DatasetChooser extends LitElement {
  @property({ attribute: false }) client: DatasetClient | null = null;
  /** The Hub base URL the page uses (null: huggingface.co). */
  @property({ attribute: false }) hubUrl: string | null = null;
  @property({ type: Boolean }) disabled = false;
  @state() private _read: DatasetSummary[] = [];
  /** Names of the read sets to evaluate on. */
  @state() private _chosen: Set<string> = new Set();
  @state() private _busy = false;
  @state() private _progress = '';
  @state() private _error = '';
  /** Set with the error when the Hub gave no answer: what works without the network. */
  @state() private _offline = '';

  static override styles = [
    baseStyles,
    trainingPanelStyles,
    css`
      :host {
        display: block;
      }
      fieldset {
        border: 1px solid #ccc;
        border-radius: 6px;
        margin: 0 0 0.6em;
      }
      #builtin p {
        margin: 0.3em 0 0;
        font-size: 0.9em;
      }
      #dataset-error p {
        margin: 0.2em 0 0.4em;
      }
      .sets {
        display: flex;
        flex-wrap: wrap;
        gap: 0.2em 1em;
      }
    `,
  ];

  /** The read sets chosen for the next evaluation, in the order they were read. */
  get chosen(): string[] {
    return this._read.map((s) => s.name).filter((name) => this._chosen.has(name));
  }

  override render() {
    const off = this.disabled || this._busy || !this.client;
    return html`<fieldset id="builtin">
        <legend>Built into the page (no network)</legend>
        <button id="read-builtin" ?disabled=${off} @click=${this._readBuiltin}>${BUILTIN_TASK.label}</button>
        <p class="muted">${BUILTIN_TASK.description}</p>
      </fieldset>
      <fieldset>
        <legend>NanoBEIR sets (from the Hub${this.hubUrl ? `, ${new URL(this.hubUrl).host}` : ''})</legend>
        <div class="sets">
          ${NANOBEIR_SETS.map((name) => html`<label><input type="checkbox" name="nanobeir" value=${name} ?disabled=${off} /> ${name}</label>`)}
        </div>
        <button id="read-nanobeir" ?disabled=${off} @click=${this._readNanoBeir}>Read the checked sets</button>
      </fieldset>
      <drop-zone @files-drop=${this._onDrop}>
        <label
          >A BEIR folder: <input id="beir-folder" type="file" webkitdirectory ?disabled=${off} @change=${this._onFiles}
        /></label>
        <label
          >or its files (corpus.jsonl, queries.jsonl, test.tsv):
          <input id="beir-files" type="file" multiple ?disabled=${off} @change=${this._onFiles}
        /></label>
        <span class="muted">or drop them here</span>
      </drop-zone>
      <p id="dataset-progress" class="muted" aria-live="polite">${this._progress}</p>
      ${
        this._error
          ? html`<div class="error" role="alert" id="dataset-error">
              <p>${this._error}</p>
              ${
                this._offline
                  ? html`<p id="dataset-offline">${this._offline}</p>
                      <button id="offline-builtin" ?disabled=${off} @click=${this._readBuiltin}>
                        Use the lesson's generated task instead
                      </button>`
                  : nothing
              }
            </div>`
          : nothing
      }
      ${
        this._read.length
          ? html`<fieldset id="read-sets">
              <legend>Evaluate on</legend>
              ${this._read.map(
                (s) =>
                  html`<label
                      ><input
                        type="checkbox"
                        .checked=${this._chosen.has(s.name)}
                        ?disabled=${this.disabled}
                        @change=${(e: Event) => this._choose(s.name, (e.target as HTMLInputElement).checked)}
                      />
                      ${s.name}: ${s.queries} queries, ${s.documents} documents, ${s.judgments}
                      judgments${s.warnings.length ? html` <span class="muted">(${s.warnings.join('; ')})</span>` : nothing}</label
                    ><br />`,
              )}
            </fieldset>`
          : nothing
      }`;
  }

  private async _readNanoBeir() {
    const names = [...this.renderRoot.querySelectorAll<HTMLInputElement>('input[name="nanobeir"]:checked')].map(
      (box) => box.value,
    );
    if (names.length === 0) return void (this._error = 'Check one or more NanoBEIR sets first.');
    for (const set of names) {
      if (!(await this._read1({ kind: 'nanobeir', set, hubUrl: this.hubUrl ?? undefined }, `Nano${set}`))) break;
    }
  }

  /** The lesson's generated task, read through the same path as a picked BEIR folder (its name says synthetic). */
  private _readBuiltin() {
    void this._read1({ kind: 'files', files: builtinBeirFiles(), name: BUILTIN_TASK.setName }, BUILTIN_TASK.setName);
  }

  private _onFiles(event: Event) {
    const input = event.target as HTMLInputElement;
    const files = [...(input.files ?? [])];
    if (files.length) void this._read1({ kind: 'files', files, name: folderName(files) }, folderName(files));
  }

  private _onDrop(event: CustomEvent<File[]>) {
    if (!this.disabled) void this._read1({ kind: 'files', files: event.detail, name: 'BEIR files' }, 'the dropped files');
  }

  /** Reads one set; true when it was read. */
  private async _read1(source: DatasetSource, name: string): Promise<boolean> {
    if (!this.client) return false;
    this._busy = true;
    this._error = '';
    this._offline = '';
    this._progress = `Reading ${name}…`;
    try {
      const summary = await this.client.openDataset(source, (p: LoadProgress) => {
        this._progress = `Reading ${name}: ${p.file ?? ''} ${formatBytes(p.loaded)}${p.total ? ` of ${formatBytes(p.total)}` : ''}`;
      });
      this._read = [...this._read.filter((s) => s.name !== summary.name), summary];
      this._chosen = new Set([...this._chosen, summary.name]);
      this._progress = `Read ${summary.name}.`;
      this.dispatchEvent(new CustomEvent('sets-change', { detail: { chosen: this.chosen }, bubbles: true, composed: true }));
      return true;
    } catch (error) {
      this._progress = '';
      const { message } = toPageFailure(error);
      this._error = `${name} cannot be used: ${message}`;
      this._offline = source.kind === 'nanobeir' ? (offlineAdvice(message, 'set') ?? '') : '';
      return false;
    } finally {
      this._busy = false;
    }
  }

  private _choose(name: string, on: boolean) {
    const chosen = new Set(this._chosen);
    if (on) chosen.add(name);
    else chosen.delete(name);
    this._chosen = chosen;
    this.dispatchEvent(new CustomEvent('sets-change', { detail: { chosen: this.chosen }, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'dataset-chooser': DatasetChooser;
  }
}
