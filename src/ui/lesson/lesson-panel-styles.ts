// The lesson panel's look: the presenter view's larger type, the step list, the live / recorded badge, formulas, the
// controls row, the shortcut list, and the print-only one-page summary.
import { css } from 'lit';

export const lessonPanelStyles = css`
  :host {
    display: block;
  }
  :host([presenter]) {
    font-size: 1.45rem;
    color: #000;
  }
  :host([presenter]) .narration {
    max-width: 60em;
  }
  :host([presenter]) button {
    border-width: 2px;
    border-color: #000;
  }
  nav ol {
    list-style: none;
    display: flex;
    flex-wrap: wrap;
    gap: 0.4em;
    padding: 0;
    margin: 0.4em 0 0.8em;
  }
  nav button[aria-current='step'] {
    background: #000;
    color: #fff;
    border-color: #000;
    font-weight: 700;
  }
  .badge {
    display: inline-block;
    border-radius: 4px;
    padding: 0.1em 0.5em;
    font-weight: 600;
    border: 2px solid #000;
  }
  .badge.recorded {
    background: #fff4d6;
    border-style: dashed;
  }
  .badge.live {
    background: #e6f4ec;
  }
  .formula {
    font-family: 'STIX Two Math', 'Cambria Math', Georgia, serif;
    font-size: 1.1em;
    display: block;
    margin: 0.5em 0;
  }
  .controls {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5em;
    align-items: center;
    margin: 0.6em 0;
  }
  .error {
    color: #a00;
    font-weight: 600;
  }
  .notice {
    border: 2px solid #e69f00;
    padding: 0.4em 0.7em;
    border-radius: 4px;
  }
  dl.keys {
    display: grid;
    grid-template-columns: auto 1fr;
    gap: 0.1em 0.8em;
    font-size: 0.9em;
  }
  dl.keys dt {
    font-family: ui-monospace, monospace;
  }
  dl.keys dd {
    margin: 0;
  }
  .print-only {
    display: none;
  }
  @media print {
    :host {
      font-size: 11pt;
    }
    .screen-only {
      display: none !important;
    }
    .print-only {
      display: block;
    }
  }
`;
