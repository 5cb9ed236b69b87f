// The lesson panel's look: the presenter view (body text of at least 20 px, the lesson's own buttons smaller, step 3's
// training controls stuck to the top while it scrolls), the step list, the live / recorded badge, formulas, the controls
// row, the shortcut list, and the print-only one-page summary.
import { css } from 'lit';

export const lessonPanelStyles = css`
  :host {
    display: block;
  }
  :host([presenter]) {
    /* 22.4 px: the smallest text (0.9em) stays above 20 px */
    font-size: 1.4rem;
    color: #000;
  }
  :host([presenter]) .narration {
    max-width: 60em;
  }
  :host([presenter]) .narration p {
    margin: 0.4em 0;
  }
  :host([presenter]) button {
    border-width: 2px;
    border-color: #000;
  }
  /* the lesson's own buttons and step list take one line each, so that a step starts high on the screen */
  :host([presenter]) .lesson-head,
  :host([presenter]) nav {
    font-size: 0.72em;
  }
  :host([presenter]) .lesson-head,
  :host([presenter]) nav ol {
    margin: 0.2em 0;
  }
  :host([presenter]) #step-title {
    margin: 0.3em 0;
  }
  /* the settings are the teacher's, set before the class (the link keeps them); the recording's disabled field says enough */
  :host([presenter]) .recorded-note {
    display: none;
  }
  :host([presenter]) #lesson-settings {
    display: none;
  }
  /* a playing step keeps its status on the screen while the charts below it scroll */
  :host([presenter]) #training-controls {
    position: sticky;
    top: 0;
    z-index: 1;
    background: #fff;
    margin: 0;
    padding: 0.3em 0;
    border-bottom: 2px solid #000;
  }
  /* a level-2 heading (under the page's h1, also when presenting hides the cards' h2) at the size of the others */
  #step-title {
    font-size: 1.17em;
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
