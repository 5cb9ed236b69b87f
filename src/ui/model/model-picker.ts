// <model-picker>: choose a backbone (the bundled demo, presets, any Hub id, local files), see its size, follow the download.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import '../common/drop-zone.ts';
import { MODEL_PRESETS, presetByKey, type LoadProgress, type MemoryEstimate, type ModelSummary } from '../../worker/api.ts';
import { formatBytes, formatCount } from '../common/format.ts';
import { DEMO_LABEL, DEMO_MODEL, LOCAL_MODEL, RUN_MODEL_PREFIX, isHubId } from './presets.ts';
import { baseStyles } from '../common/theme.ts';

/** What the user asked to load: a model name (demo, preset key or Hub id) or picked files. */
export type LoadRequest = { model: string } | { files: File[] };

@customElement('model-picker')
export class ModelPicker extends LitElement {
  /** Name of the current model ("demo", a preset key or a Hub id). */
  @property({ type: String }) model: string = DEMO_MODEL;
  @property({ attribute: false }) summary: ModelSummary | null = null;
  @property({ attribute: false }) progress: LoadProgress | null = null;
  @property({ type: Boolean }) loading = false;
  /** The browser has no WebGPU: nothing can be loaded. */
  @property({ type: Boolean, attribute: 'no-gpu' }) noGpu = false;
  @state() private _hubId = '';

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .row {
        display: flex;
        flex-wrap: wrap;
        gap: 0.6em 1.2em;
        align-items: end;
      }
      .field {
        display: flex;
        flex-direction: column;
        gap: 0.15em;
        font-size: 0.9em;
        font-weight: 600;
      }
      .field select,
      .field input {
        font-weight: normal;
        font-size: 1.05em;
      }
      #hub-id {
        width: 17em;
      }
      drop-zone {
        font-size: 0.9em;
      }
      .status {
        margin-top: 0.5em;
        display: flex;
        flex-wrap: wrap;
        gap: 0.3em 1em;
        align-items: center;
        font-size: 0.92em;
      }
      progress {
        width: 220px;
      }
      .synthetic {
        background: #fff3cf;
        border: 1px solid #e69f00;
        border-radius: 3px;
        padding: 0 0.4em;
        font-weight: 600;
      }
    `,
  ];

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has('model') && isHubId(this.model)) this._hubId = this.model;
  }

  override render() {
    const selected = isHubId(this.model) ? '' : this.model;
    const locked = this.loading || this.noGpu;
    return html`<div class="row">
        <label class="field"
          >Backbone
          <select id="preset" .value=${selected} @change=${this._onPreset} ?disabled=${locked}>
            <option value=${DEMO_MODEL} ?selected=${selected === DEMO_MODEL}>Demo backbone (offline, no download)</option>
            <optgroup label="From the Hugging Face Hub">
              ${MODEL_PRESETS.map((p) => html`<option value=${p.key} ?selected=${selected === p.key}>${p.label}</option>`)}
            </optgroup>
            ${selected === '' ? html`<option value="" selected>Other (Hub id below)</option>` : nothing}
            ${selected === LOCAL_MODEL ? html`<option value=${LOCAL_MODEL} selected>Local files (picked below)</option>` : nothing}
            ${selected.startsWith(RUN_MODEL_PREFIX) ? html`<option value=${selected} selected>A trained run (see the Runs tab)</option>` : nothing}
          </select>
        </label>
        <form class="row" @submit=${this._onHubSubmit}>
          <label class="field"
            >Any Hub id
            <input id="hub-id" placeholder="org/name" .value=${this._hubId} @input=${this._onHubInput} ?disabled=${locked} />
          </label>
          <button id="load-hub" type="submit" ?disabled=${locked || this._hubId.trim() === ''}>Load from Hub</button>
        </form>
        <drop-zone @files-drop=${this._onDrop}>
          <label
            >Local model files (config.json, weights, vocab):
            <input id="files" type="file" multiple @change=${this._onFiles} ?disabled=${locked} />
          </label>
          <span class="muted">or drop them here</span>
        </drop-zone>
      </div>
      <div class="status" aria-live="polite">${this.loading ? this._renderProgress() : this._renderSummary()}</div>`;
  }

  private _renderProgress() {
    const p = this.progress;
    const fraction = p && p.total ? p.loaded / p.total : null;
    const text = !p
      ? 'Starting…'
      : p.stage === 'download'
        ? `Downloading ${p.file ?? ''}: ${formatBytes(p.loaded)}${p.total ? ` of ${formatBytes(p.total)}` : ''}`
        : p.stage === 'config'
          ? 'Reading config.json and checking the size…'
          : p.stage === 'upload'
            ? 'Copying the head to the GPU…'
            : `${p.stage}…`;
    return html`<progress
        id="progress"
        aria-label="Loading progress"
        max="1"
        .value=${fraction ?? 0}
        ?indeterminate=${fraction === null}
      ></progress>
      <span id="progress-text">${text}</span>
      <button id="cancel" @click=${this._onCancel}>Cancel</button>
      ${p?.estimate ? this._renderEstimate(p.estimate) : nothing}`;
  }

  private _renderSummary() {
    const s = this.summary;
    if (this.noGpu)
      return html`<span id="model-label"
        ><span class="synthetic">demo backbone</span> precomputed figures only: loading models needs WebGPU.</span
      >`;
    if (!s) return html`<span class="muted">No model loaded.</span>${this._renderLoadChosen()}`;
    return html`<span id="model-label"
        >${s.synthetic ? html`<span class="synthetic" title=${DEMO_LABEL}>demo backbone</span>` : nothing}
        <strong>${s.synthetic ? 'tiny BERT pretrained by splade-lab on WordNet, large-norm head' : s.label}</strong></span
      >
      <span
        >${s.hfArchitecture} · V = ${s.vocabSize} · d = ${s.hidden} · ${s.layers} layers · head
        ${s.tiedHead ? 'tied to the embeddings' : 'untied'}</span
      >
      <span id="encoding" class="muted">Encoding: ${s.encoding}</span>
      ${this._renderEstimate(s.estimate)}
      ${
        s.notes.length
          ? html`<ul id="load-notes" class="muted" aria-label="Notes from loading">
              ${s.notes.map((note) => html`<li>${note}</li>`)}
            </ul>`
          : nothing
      }`;
  }

  /** Choosing the selected entry again fires no change: with nothing loaded (a failure, a lost device), offer it. */
  private _renderLoadChosen() {
    const label = this.model === DEMO_MODEL ? 'the demo backbone' : presetByKey(this.model)?.label;
    return label
      ? html`<button id="load-chosen" @click=${() => this._request({ model: this.model })}>Load ${label}</button>`
      : nothing;
  }

  private _renderEstimate(e: MemoryEstimate) {
    const files = e.downloadBytes !== null ? `; files ${formatBytes(e.downloadBytes)}` : '';
    const binding = formatBytes(e.maxStorageBufferBindingSize);
    return html`<span id="memory" class="muted"
      >${formatCount(e.parameters)} parameters: GPU memory ≈ ${formatBytes(e.gpuBytes)}; largest tensor
      ${formatBytes(e.largestTensorBytes)} of ${binding} allowed per binding${files}</span
    >`;
  }

  private _onPreset(event: Event) {
    const key = (event.target as HTMLSelectElement).value;
    if (key === DEMO_MODEL || presetByKey(key)) this._request({ model: key });
  }

  private _onHubInput(event: Event) {
    this._hubId = (event.target as HTMLInputElement).value;
  }

  private _onHubSubmit(event: Event) {
    event.preventDefault();
    const id = this._hubId.trim();
    if (id) this._request({ model: id });
  }

  private _onFiles(event: Event) {
    const input = event.target as HTMLInputElement;
    if (input.files && input.files.length > 0) this._request({ files: [...input.files] });
  }

  private _onDrop(event: CustomEvent<File[]>) {
    this._request({ files: event.detail });
  }

  private _onCancel() {
    this.dispatchEvent(new CustomEvent('cancel-load', { bubbles: true, composed: true }));
  }

  private _request(request: LoadRequest) {
    this.dispatchEvent(new CustomEvent<LoadRequest>('load-model', { detail: request, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'model-picker': ModelPicker;
  }
}
