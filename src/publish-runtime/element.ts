// <splade-search>: a search box and its results for a published folder, with no dependency: every text from the
// corpus (titles, snippets, ids, terms) goes into the page as text nodes, never as markup; a link is made only of an
// http(s) URL. Keyboard: the form's own controls (Enter searches, Escape clears, links and "why it matched" are
// native, so Tab reaches them). Themable through CSS custom properties (--splade-search-*) and ::part().
import type { Hit, SearchResult, SystemName } from './engine.ts';
import type { StaticSearch } from './static-search.ts';

const STYLE = `
:host { display: block; font: var(--splade-search-font, inherit); color: var(--splade-search-color, inherit);
  background: var(--splade-search-background, transparent); }
form { display: grid; gap: var(--splade-search-gap, 0.5rem); }
.row { display: flex; gap: var(--splade-search-gap, 0.5rem); }
input[type='search'] { flex: 1; font: inherit; padding: 0.4em 0.6em; color: inherit; background: var(--splade-search-input-background, transparent);
  border: 1px solid var(--splade-search-border, #8a8a8a); border-radius: var(--splade-search-radius, 6px); }
button { font: inherit; padding: 0.4em 0.9em; color: var(--splade-search-accent-text, #fff); background: var(--splade-search-accent, #1f4fbf);
  border: 0; border-radius: var(--splade-search-radius, 6px); cursor: pointer; }
:focus-visible { outline: 2px solid var(--splade-search-focus, var(--splade-search-accent, #1f4fbf)); outline-offset: 2px; }
fieldset { border: 0; padding: 0; margin: 0; display: flex; gap: 1em; flex-wrap: wrap; }
legend { padding: 0; margin-right: 0.5em; float: left; }
.status { color: var(--splade-search-muted, #555); margin: var(--splade-search-gap, 0.5rem) 0; }
ol { padding-left: 1.5em; margin: 0; }
li.hit { margin: 0 0 var(--splade-search-gap, 0.75rem); }
a { color: var(--splade-search-link, var(--splade-search-accent, #1f4fbf)); }
.score, .meta { color: var(--splade-search-muted, #555); font-size: 0.85em; margin-left: 0.5em; }
.snippet { margin: 0.2em 0; }
.expansion { color: var(--splade-search-expansion, #8a4b00); font-style: italic; }
details ul { margin: 0.2em 0; padding-left: 1.2em; font-size: 0.9em; }
`;

const SYSTEM_NAMES: Record<SystemName, string> = { splade: 'Learned sparse (SPLADE)', bm25: 'BM25 (words)' };

/** An http(s) URL the page may link to, resolved against the page; anything else (javascript:, data:) is no link. */
function safeHref(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const resolved = new URL(url, document.baseURI);
    return resolved.protocol === 'http:' || resolved.protocol === 'https:' ? resolved.href : null;
  } catch {
    return null;
  }
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { text?: string; className?: string; part?: string } = {},
) {
  const node = document.createElement(tag);
  if (props.text !== undefined) node.textContent = props.text;
  if (props.className) node.className = props.className;
  if (props.part) node.setAttribute('part', props.part);
  return node;
}

const number = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(3));

function whyList(hit: Hit, system: SystemName): HTMLDetailsElement {
  const details = element('details', { part: 'why' });
  details.append(element('summary', { text: 'Why it matched' }));
  const list = element('ul');
  for (const term of hit.why ?? []) {
    const item = element('li');
    item.append(element('strong', { text: term.term }));
    const weights =
      system === 'bm25'
        ? ` x${term.query} in the query, BM25 weight ${number(term.document)} = ${number(term.product)}`
        : `: query ${number(term.query)} x document ${number(term.document)} = ${number(term.product)}`;
    item.append(document.createTextNode(weights));
    if (term.expansion)
      item.append(document.createTextNode(' '), element('span', { text: '(expansion)', className: 'expansion' }));
    list.append(item);
  }
  details.append(list);
  return details;
}

/** Defines <splade-search> once; `open` opens the folder at a base URL (splade-search.js's openSearch). */
export function defineSpladeSearchElement(open: (base?: string) => Promise<StaticSearch>): void {
  if (typeof customElements === 'undefined' || customElements.get('splade-search')) return;

  class SpladeSearchElement extends HTMLElement {
    static observedAttributes = ['src', 'label', 'placeholder'];
    /** The opened search; set it to use one opened elsewhere. */
    searcher: StaticSearch | null = null;
    private opening: Promise<StaticSearch> | null = null;
    private readonly input: HTMLInputElement;
    private readonly label: HTMLLabelElement;
    private readonly status: HTMLParagraphElement;
    private readonly results: HTMLOListElement;
    private readonly systems: HTMLFieldSetElement;
    private timer: ReturnType<typeof setTimeout> | undefined;
    private sequence = 0;

    constructor() {
      super();
      const root = this.attachShadow({ mode: 'open' });
      const style = element('style');
      style.textContent = STYLE;
      const form = element('form', { part: 'form' });
      form.setAttribute('role', 'search');
      this.label = element('label', { part: 'label', text: 'Search' });
      this.label.htmlFor = 'q';
      this.input = element('input', { part: 'input' });
      Object.assign(this.input, { id: 'q', type: 'search', autocomplete: 'off', spellcheck: false });
      const button = element('button', { part: 'button', text: 'Search' });
      button.type = 'submit';
      const row = element('div', { className: 'row' });
      row.append(this.input, button);
      this.systems = element('fieldset', { part: 'systems' });
      this.systems.hidden = true;
      form.append(this.label, row, this.systems);
      this.status = element('p', { className: 'status', part: 'status' });
      this.status.setAttribute('role', 'status');
      this.status.setAttribute('aria-live', 'polite');
      this.results = element('ol', { part: 'results' });
      this.results.setAttribute('aria-label', 'Results');
      root.append(style, form, this.status, this.results);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        void this.search(this.input.value);
      });
      this.input.addEventListener('input', () => {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.search(this.input.value), 250);
      });
      this.input.addEventListener('keydown', (event) => {
        if (event.key !== 'Escape') return;
        this.input.value = '';
        this.clear();
      });
    }

    connectedCallback(): void {
      this.attributeChangedCallback();
      if (!this.searcher) void this.ready().catch(() => undefined);
    }

    attributeChangedCallback(name?: string, previous?: string | null, value?: string | null): void {
      this.label.textContent = this.getAttribute('label') ?? 'Search';
      this.input.placeholder = this.getAttribute('placeholder') ?? '';
      // another folder: the opened one (its worker) is closed, and the next search opens the new one
      if (name === 'src' && previous !== value) {
        const closing = this.searcher;
        const pending = this.opening;
        this.searcher = null;
        this.opening = null;
        closing?.close();
        pending?.then((stale) => stale.close()).catch(() => undefined);
        this.systems.replaceChildren();
        this.systems.hidden = true;
        this.clear();
        if (this.isConnected) void this.ready().catch(() => undefined);
      }
    }

    /** The system asked for: the checked switch, else the `system` attribute, else SPLADE. */
    get system(): SystemName {
      const checked = this.systems.querySelector<HTMLInputElement>('input:checked');
      const asked = checked?.value ?? this.getAttribute('system');
      return asked === 'bm25' ? 'bm25' : 'splade';
    }

    private ready(): Promise<StaticSearch> {
      if (this.searcher) return Promise.resolve(this.searcher);
      if (this.opening) return this.opening;
      const opening: Promise<StaticSearch> = open(this.getAttribute('src') ?? undefined).then((searcher) => {
        if (this.opening !== opening) return searcher; // src changed meanwhile: the change closes this one
        this.searcher = searcher;
        this.showSystems(searcher);
        return searcher;
      });
      this.opening = opening;
      opening.catch((error: Error) => {
        if (this.opening !== opening) return;
        this.opening = null;
        this.status.textContent = `The search could not be opened: ${error.message}`;
      });
      return opening;
    }

    private showSystems(searcher: StaticSearch): void {
      if (!searcher.manifest.bm25 || this.systems.childElementCount) return;
      const wanted = this.getAttribute('system') === 'bm25' ? 'bm25' : 'splade';
      this.systems.append(element('legend', { text: 'Ranking' }));
      for (const name of ['splade', 'bm25'] as const) {
        const label = element('label');
        const radio = element('input');
        Object.assign(radio, { type: 'radio', name: 'system', value: name, checked: name === wanted });
        radio.addEventListener('change', () => this.input.value.trim() && void this.search(this.input.value));
        label.append(radio, document.createTextNode(` ${SYSTEM_NAMES[name]}`));
        this.systems.append(label);
      }
      this.systems.hidden = false;
    }

    private clear(): void {
      this.sequence++;
      this.results.replaceChildren();
      this.status.textContent = '';
    }

    /** Searches `text` and shows the hits (the latest search wins when several overlap). */
    async search(text: string): Promise<SearchResult | null> {
      clearTimeout(this.timer);
      if (!text.trim()) {
        this.clear();
        return null;
      }
      const sequence = ++this.sequence;
      try {
        const searcher = await this.ready();
        const k = Number(this.getAttribute('k') ?? 10) || 10;
        const result = await searcher.search(text, { k, system: this.system });
        if (sequence === this.sequence) this.show(result);
        return result;
      } catch (error) {
        if (sequence === this.sequence) this.status.textContent = `Search failed: ${(error as Error).message}`;
        return null;
      }
    }

    private show(result: SearchResult): void {
      const items = result.hits.map((hit) => {
        const item = element('li', { className: 'hit', part: 'hit' });
        const title = hit.title || hit.id || `document ${hit.doc}`;
        const href = safeHref(hit.url);
        const heading = href ? element('a', { text: title, part: 'title' }) : element('strong', { text: title, part: 'title' });
        if (heading instanceof HTMLAnchorElement) heading.href = href!;
        item.append(heading, element('span', { text: `score ${number(hit.score)}`, className: 'score', part: 'score' }));
        if (hit.snippet) item.append(element('p', { text: hit.snippet, className: 'snippet', part: 'snippet' }));
        item.append(whyList(hit, result.system));
        return item;
      });
      this.results.replaceChildren(...items);
      const kb = (result.fetched.bytes / 1024).toFixed(1);
      this.status.textContent = result.hits.length
        ? `${result.matched} documents match; the best ${result.hits.length} by ${SYSTEM_NAMES[result.system]} (${result.timeMs.toFixed(0)} ms, ${kb} KB fetched)`
        : `No document matches "${result.query}".`;
    }
  }

  customElements.define('splade-search', SpladeSearchElement);
}
