// The page shell's styles: header, cards, the k row, tabs, the presenter view and the lesson's print.
import { css } from 'lit';

export const spladeAppStyles = css`
  :host {
    display: block;
    max-width: 1240px;
    margin: 0 auto;
    padding: 0 1em 2em;
  }
  header {
    display: flex;
    align-items: baseline;
    gap: 1em;
    flex-wrap: wrap;
    border-bottom: 1px solid #ccc;
    margin-bottom: 0.8em;
  }
  h1 {
    font-size: 1.5em;
    margin: 0.4em 0;
  }
  header p {
    margin: 0;
    flex: 1;
  }
  .gpu {
    font-size: 0.85em;
  }
  .card {
    border: 1px solid #ccc;
    border-radius: 8px;
    padding: 0.6em 1em 0.8em;
    margin-bottom: 0.8em;
    background: #fff;
  }
  h2 {
    font-size: 1.05em;
    margin: 0 0 0.4em;
  }
  .k-row {
    display: grid;
    grid-template-columns: minmax(0, 1.15fr) minmax(0, 1fr);
    gap: 1.2em;
    align-items: start;
  }
  notice-banner {
    margin-bottom: 0.8em;
  }
  [role='tablist'] {
    display: flex;
    gap: 0.3em;
    border-bottom: 2px solid #0072b2;
  }
  [role='tab'] {
    border-radius: 6px 6px 0 0;
    border-bottom: none;
    padding: 0.4em 1.2em;
  }
  [role='tab'][aria-selected='true'] {
    background: #0072b2;
    color: #fff;
    border-color: #0072b2;
    font-weight: 600;
  }
  [role='tabpanel'] {
    border-top: none;
    border-radius: 0 0 8px 8px;
  }
  footer {
    font-size: 0.85em;
  }
  #hub-host {
    margin: 0.3em 0 0;
    font-size: 0.9em;
  }
  :host([presenting]) {
    max-width: none;
    padding: 0 1em 1em;
  }
  /* presenting, the page's header is one short line: the screen is the lesson's */
  :host([presenting]) header {
    margin-bottom: 0.3em;
  }
  :host([presenting]) header h1 {
    font-size: 1.3em;
    margin: 0.2em 0;
  }
  :host([presenting]) header p {
    display: none;
  }
  :host([presenting]) #panel-lesson {
    padding: 0.2em 0.8em 0.6em;
  }
  /* printing the lesson prints its one-page summary alone */
  @media print {
    :host([panel='lesson']) header,
    :host([panel='lesson']) footer,
    :host([panel='lesson']) notice-banner,
    :host([panel='lesson']) [role='tablist'],
    :host([panel='lesson']) section.card:not(#panel-lesson) {
      display: none !important;
    }
    :host([panel='lesson']) section.card {
      border: none;
    }
  }
`;
