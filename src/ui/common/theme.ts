// Shared look of every element: Okabe-Ito colours (readable with colour-blind vision), focus rings, panels, buttons.
import { css, unsafeCSS } from 'lit';

/** Okabe & Ito's colour-blind-safe palette. */
export const OKABE_ITO = {
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
  black: '#000000',
} as const;

/** Series colours: before k (k = 1), after k, a run's head after training, the target line. */
export const SERIES = {
  before: OKABE_ITO.orange,
  after: OKABE_ITO.blue,
  trained: OKABE_ITO.reddishPurple,
  target: OKABE_ITO.bluishGreen,
} as const;

export const baseStyles = css`
  :host {
    font-family:
      system-ui,
      -apple-system,
      'Segoe UI',
      Roboto,
      sans-serif;
    color: #1a1a1a;
    line-height: 1.4;
  }
  :focus-visible {
    outline: 3px solid ${unsafeCSS(OKABE_ITO.blue)};
    outline-offset: 2px;
  }
  button {
    font: inherit;
    padding: 0.35em 0.9em;
    border: 1px solid #555;
    border-radius: 4px;
    background: #f4f4f4;
    color: #1a1a1a;
    cursor: pointer;
  }
  button.primary {
    background: #0072b2;
    border-color: #0072b2;
    color: #fff;
  }
  button:disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
  input,
  select,
  textarea {
    font: inherit;
    border: 1px solid #777;
    border-radius: 4px;
    padding: 0.25em 0.4em;
    background: #fff;
    color: #1a1a1a;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  .muted {
    color: #555;
  }
  .num {
    font-variant-numeric: tabular-nums;
    text-align: right;
  }
`;

/** Axes, grid and labels of the hand-drawn SVG charts (histogram, loss curves); each sets its own max-width. */
export const chartStyles = css`
  svg {
    width: 100%;
    height: auto;
    display: block;
  }
  .axis text {
    font-size: 12px;
    fill: #333;
  }
  .axis line {
    stroke: #999;
  }
  .grid {
    stroke: #e3e3e3;
  }
  .label {
    font-size: 13px;
    fill: #1a1a1a;
  }
`;

/** Chart grid, provenance captions and error boxes shared by the training panels. */
/** The tables of figures: collapsed borders, a rule under each row, a caption as a heading. */
export const tableStyles = css`
  table {
    border-collapse: collapse;
    font-size: 0.9em;
  }
  caption {
    text-align: left;
    font-weight: 600;
    padding-bottom: 0.3em;
  }
  th,
  td {
    padding: 0.2em 0.6em;
    border-bottom: 1px solid #ddd;
  }
`;

/** A wrapping row of labelled fields (label above its input), as the panels' forms lay them out. */
export const fieldStyles = css`
  .fields {
    display: flex;
    flex-wrap: wrap;
    gap: 0.6em 1em;
    align-items: end;
    margin: 0.6em 0;
  }
  label.field {
    display: flex;
    flex-direction: column;
    font-size: 0.9em;
    gap: 0.15em;
  }
  label.field input {
    width: 7em;
  }
`;

export const trainingPanelStyles = css`
  .charts {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(380px, 1fr));
    gap: 1em 1.6em;
  }
  .provenance {
    font-size: 0.85em;
  }
  .error {
    border-left: 6px solid ${unsafeCSS(OKABE_ITO.vermillion)};
    padding: 0.4em 0.8em;
    background: #fff5ee;
  }
`;

/** A panel's settings form: its fields in a wrapping row, each label stacked over its input. */
export const fieldRowStyles = css`
  form {
    display: flex;
    flex-wrap: wrap;
    align-items: end;
    gap: 0.6em 1em;
    margin: 0.6em 0;
  }
  label {
    display: flex;
    flex-direction: column;
    font-size: 0.9em;
    gap: 0.15em;
  }
`;

/** The small term tables (shared terms, token origins, a score's terms): tight cells, numbers right, expansions italic. */
export const termTableStyles = css`
  table {
    border-collapse: collapse;
    font-size: 0.85em;
  }
  th,
  td {
    padding: 0.05em 0.45em;
    text-align: left;
  }
  td.number {
    text-align: right;
  }
  .expansion {
    font-style: italic;
  }
`;
