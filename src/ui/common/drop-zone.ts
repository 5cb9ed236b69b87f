// <drop-zone>: a dashed box around file inputs that also takes files dropped on it: highlighted while files are
// dragged over it, and a `files-drop` event with the dropped files (the slotted inputs stay the keyboard's way in).
import { LitElement, css, html } from 'lit';
import { customElement } from 'lit/decorators.js';

@customElement('drop-zone')
export class DropZone extends LitElement {
  static override styles = css`
    :host {
      display: flex;
      flex-wrap: wrap;
      gap: 0.3em 1em;
      align-items: center;
      border: 2px dashed #888;
      border-radius: 6px;
      padding: 0.4em 0.8em;
    }
    :host([dragging]) {
      border-color: #0072b2;
      background: #eef6fb;
    }
  `;

  constructor() {
    super();
    this.addEventListener('dragover', (event) => {
      event.preventDefault();
      this.toggleAttribute('dragging', true);
    });
    this.addEventListener('dragleave', () => this.toggleAttribute('dragging', false));
    this.addEventListener('drop', (event) => {
      event.preventDefault();
      this.toggleAttribute('dragging', false);
      const files = [...(event.dataTransfer?.files ?? [])];
      if (files.length > 0) this.dispatchEvent(new CustomEvent<File[]>('files-drop', { detail: files }));
    });
  }

  override render() {
    return html`<slot></slot>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'drop-zone': DropZone;
  }
}
