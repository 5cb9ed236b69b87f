// <chart-download>: two buttons that save the chart next to them (its first SVG in the host's shadow root) as SVG or PNG.
import { LitElement, css, html } from 'lit';
import { downloadFile, pngFile, svgFile } from './download.ts';

export class ChartDownload extends LitElement {
  static override properties = {
    name: { type: String },
  };

  /** File name without extension. */
  declare name: string;

  static override styles = css`
    :host {
      display: inline-flex;
      gap: 0.3em;
      font-size: 0.8em;
    }
  `;

  constructor() {
    super();
    this.name = 'chart';
  }

  override render() {
    return html`<button class="svg" @click=${() => this._save('svg')} aria-label="Download the chart as SVG">SVG</button>
      <button class="png" @click=${() => this._save('png')} aria-label="Download the chart as PNG">PNG</button>`;
  }

  private async _save(kind: 'svg' | 'png') {
    const root = this.getRootNode() as ShadowRoot | Document;
    const svg = root.querySelector('svg[role="img"]') as SVGSVGElement | null;
    if (!svg) return;
    downloadFile(kind === 'svg' ? svgFile(svg, this.name) : await pngFile(svg, this.name));
  }
}

customElements.define('chart-download', ChartDownload);

declare global {
  interface HTMLElementTagNameMap {
    'chart-download': ChartDownload;
  }
}
