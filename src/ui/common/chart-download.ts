// <chart-download>: two buttons that save the chart next to them (its first SVG in the host's shadow root) as SVG or PNG.
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { downloadFile, pngFile, svgFile } from './download.ts';

@customElement('chart-download')
export class ChartDownload extends LitElement {
  /** File name without extension. */
  @property({ type: String }) name = 'chart';

  static override styles = css`
    :host {
      display: inline-flex;
      gap: 0.3em;
      font-size: 0.8em;
    }
  `;

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

declare global {
  interface HTMLElementTagNameMap {
    'chart-download': ChartDownload;
  }
}
