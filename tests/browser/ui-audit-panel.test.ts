// <audit-panel>: sends the typed texts (blank lines left out) for a corpus report at the page's k and for a comparison
// at two k or against a stored run, draws what the worker returns (tables, the weight chart), downloads the CLI's TSV
// blocks, takes the evaluated set's documents as its texts, refuses a k out of range at the field, shows a failure,
// and clears its reports when another model is loaded.
import '../../src/ui/model/audit-panel.ts';
import type { AuditClient, AuditPanel } from '../../src/ui/model/audit-panel.ts';
import type { AuditDiff, CorpusAudit, ModelSummary, RunRecord } from '../../src/worker/api.ts';
import { allInside, cleanup, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';

const SUMMARY = { label: 'demo backbone', name: 'demo', synthetic: true } as unknown as ModelSummary;

const figures = (weightShare: number, expansionShare = 0) => ({
  weightShare,
  dimsShare: weightShare,
  meanWeight: 10 * weightShare,
  meanDims: 20 * weightShare,
  expansionShare,
});

function corpus(k: number): CorpusAudit {
  return {
    k,
    documents: 2,
    skipped: 0,
    meanActiveDims: 20,
    meanWeight: 10,
    subwordMarking: '"##" marks continuation pieces',
    stopWords: "NLTK's English stop words",
    origins: { input: figures(0.75), expansion: figures(0.25) },
    kinds: {
      special: figures(0.1),
      number: figures(0),
      stopWord: figures(0.2, 0.5),
      subword: figures(0.1),
      word: figures(0.6, 0.25),
    },
    frequentExpansions: [{ term: 'ocean', documents: 2, meanWeight: 0.5 }],
    widespreadTerms: [
      { term: '[CLS]', documents: 2, share: 1, meanWeight: 0.4, asExpansion: 0 },
      { term: 'the', documents: 2, share: 1, meanWeight: 0.3, asExpansion: 1 },
    ],
  };
}

const DIFF: AuditDiff = {
  texts: 2,
  gainedTerms: 1,
  lostTerms: 2,
  meanDimsChange: -0.5,
  meanFlopsChange: -1.25,
  gained: [{ term: 'sea', texts: 1, mass: 0.2, meanWeight: 0.2 }],
  lost: [
    { term: 'reef', texts: 1, mass: 0.9, meanWeight: 0.9 },
    { term: 'whale', texts: 1, mass: 0.4, meanWeight: 0.4 },
  ],
  perText: [
    { label: 'one', activeDims: 5, againstActiveDims: 4, dimsChange: -1, flops: 3, againstFlops: 1.5, flopsChange: -1.5 },
    { label: 'two', activeDims: 6, againstActiveDims: 6, dimsChange: 0, flops: 2, againstFlops: 1, flopsChange: -1 },
  ],
};

/** Two stored runs: one finished with its model saved, one that never finished (not offered for comparison). */
const RUNS = [
  { id: 'older', model: { name: 'demo' }, k: 2, step: 9, savedModel: { where: 'idb', files: [] }, createdAt: '2026-01-01' },
  {
    id: 'abcdef123456',
    model: { name: 'demo' },
    k: 8,
    step: 200,
    savedModel: { where: 'idb', files: [] },
    createdAt: '2026-02-01',
  },
  { id: 'unfinished99', model: { name: 'demo' }, k: 2, step: 3, savedModel: null, createdAt: '2026-03-01' },
] as unknown as RunRecord[];

/** A worker stand-in that records its calls; `fail` makes every call reject. */
function fakeClient(fail = '') {
  const calls: { method: string; args: unknown[] }[] = [];
  const client: AuditClient = {
    async auditCorpus(texts, k, top) {
      calls.push({ method: 'auditCorpus', args: [texts, k, top] });
      if (fail) throw new Error(fail);
      return corpus(k);
    },
    async auditDiff(texts, sides, top) {
      calls.push({ method: 'auditDiff', args: [texts, sides, top] });
      if (fail) throw new Error(fail);
      return DIFF;
    },
    async runs() {
      return RUNS;
    },
    async evaluatedDocuments(limit) {
      calls.push({ method: 'evaluatedDocuments', args: [limit] });
      return { set: 'NanoA', texts: ['a whale\nswims', 'the sea'], total: 50 };
    },
  };
  return { client, calls };
}

function typeTexts(el: AuditPanel, text: string) {
  const area = inside<HTMLTextAreaElement>(el, '#audit-texts');
  area.value = text;
  area.dispatchEvent(new Event('input'));
}

function setK(el: AuditPanel, id: string, value: string) {
  const input = inside<HTMLInputElement>(el, id);
  input.value = value;
  input.dispatchEvent(new Event('change'));
}

/** The cells' raw values of a report table's body rows. */
function rows(host: Element, id: string): string[][] {
  const table = host.shadowRoot!.querySelector(`#${id}`);
  expect(table, `no table #${id}`).toBeTruthy();
  return [...table!.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.dataset.value ?? ''));
}

/** Captures the files downloadFile hands over (the link's name and the blob's text) instead of saving them. */
function captureDownloads(): { files: { name: string; text: Promise<string> }[]; restore: () => void } {
  const files: { name: string; text: Promise<string> }[] = [];
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    files.push({ name: this.download, text: fetch(this.href).then((r) => r.text()) });
  };
  return { files, restore: () => (HTMLAnchorElement.prototype.click = click) };
}

describe('<audit-panel>', () => {
  it('reports the typed texts at the page k: the weight table, the chart and the term lists; the TSV holds the three tables', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<AuditPanel>('audit-panel', { client: fake.client, summary: SUMMARY, k: 4 });
    expect(inside(el, '#audit-texts').matches('textarea'), 'a text box').toBe(true);
    expect(
      inside<HTMLTextAreaElement>(el, '#audit-texts').value.split('\n').length ?? 0,
      'a few default texts',
    ).toBeGreaterThanOrEqual(3);
    typeTexts(el, 'a whale swims\n\n  \nthe doctor gave the patient a vaccine\n');
    await el.updateComplete;
    const run = inside<HTMLButtonElement>(el, '#audit-run');
    expect(run.textContent ?? '', run.textContent ?? '').toMatch(/Report at k = 4/);
    run.click();
    await settle(el);
    expect(JSON.stringify(fake.calls), `the call: ${JSON.stringify(fake.calls)}`).toBe(
      JSON.stringify([{ method: 'auditCorpus', args: [['a whale swims', 'the doctor gave the patient a vaccine'], 4, 20] }]),
    );
    const report = inside(el, 'audit-corpus-report');
    const weights = rows(report, 'corpus-weights');
    expect(weights, `2 origins and 5 kinds: ${JSON.stringify(weights)}`).toHaveLength(7);
    expect(weights[0][0], `input row: ${weights[0]}`).toBe('input terms');
    expect(weights[0][1], `input row: ${weights[0]}`).toBe('0.75');
    expect(rows(report, 'corpus-expansions')[0][0], 'the frequent expansion').toBe('ocean');
    expect(
      rows(report, 'corpus-widespread')
        .map((r) => r[0])
        .join(','),
      'the widespread terms',
    ).toBe('[CLS],the');
    const bars = [...report.shadowRoot!.querySelectorAll('#corpus-chart g[data-kind]')];
    expect(bars, `all terms and 5 kinds: ${bars.length}`).toHaveLength(6);
    const width = (bar: Element, part: string) => Number(bar.querySelector(`rect.${part}`)!.getAttribute('width'));
    // the "other word" bar: 60% of the weight, a quarter of it on expansions
    const word = bars[5];
    expect(Math.abs(width(word, 'input') - 3 * width(word, 'expansion')), 'input 45% and expansions 15%').toBeLessThan(1e-9);
    expect(
      Math.abs(width(word, 'input') + width(word, 'expansion') - (0.6 * width(bars[0], 'input')) / 0.75),
      '60% of the whole',
    ).toBeLessThan(1e-9);
    expect(report.shadowRoot!.querySelector('#corpus-chart')!.textContent ?? '', 'the chart title').toMatch(
      /Where the weight goes/,
    );
    expect(report.shadowRoot!.querySelector('chart-download'), 'the chart downloads as SVG or PNG').toBeTruthy();
    expect(inside(el, '#audit-status').textContent ?? '', inside(el, '#audit-status').textContent ?? '').toMatch(
      /Done: 2 texts at k = 4/,
    );

    const downloads = captureDownloads();
    try {
      (report.shadowRoot!.querySelector('#corpus-tsv') as HTMLButtonElement).click();
      (report.shadowRoot!.querySelector('#corpus-json') as HTMLButtonElement).click();
    } finally {
      downloads.restore();
    }
    const [tsv, json] = downloads.files;
    expect(tsv.name, downloads.files.map((f) => f.name).join(', ')).toBe('audit-demo-k4.tsv');
    expect(json.name, downloads.files.map((f) => f.name).join(', ')).toBe('audit-demo-k4.json');
    const blocks = (await tsv.text).trimEnd().split('\n\n');
    expect(blocks, `three TSV blocks: ${blocks.length}`).toHaveLength(3);
    expect(blocks[0].split('\n')[0].startsWith('category\tweight share'), blocks[0]).toBe(true);
    expect(blocks[1], blocks[1]).toBe('expansion\tdocuments\tmean weight\nocean\t2\t0.5');
    expect(JSON.parse(await json.text).kinds.word.weightShare, 'the JSON holds the audit').toBe(0.6);
  });

  it('compares two k: the call, the per-text rows, the gained and lost terms, and their TSV', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<AuditPanel>('audit-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    typeTexts(el, 'one\ntwo');
    setK(el, '#diff-k1', '2');
    setK(el, '#diff-k2', '16');
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#diff-run').click();
    await settle(el);
    expect(JSON.stringify(fake.calls), `the call: ${JSON.stringify(fake.calls)}`).toBe(
      JSON.stringify([
        {
          method: 'auditDiff',
          args: [
            ['one', 'two'],
            [
              { kind: 'loaded', k: 2 },
              { kind: 'loaded', k: 16 },
            ],
            50,
          ],
        },
      ]),
    );
    const report = inside(el, 'audit-diff-report');
    expect(
      rows(report, 'diff-per-text')
        .map((r) => r.join(' '))
        .join('|'),
      'per text',
    ).toBe('one 5 4 -1 3 1.5 -1.5|two 6 6 0 2 1 -1');
    expect(
      rows(report, 'diff-gained')
        .map((r) => r[0])
        .join(','),
      'gained',
    ).toBe('sea');
    expect(
      rows(report, 'diff-lost')
        .map((r) => r[0])
        .join(','),
      'lost',
    ).toBe('reef,whale');
    const summary = report.shadowRoot!.querySelector('#diff-summary')!.textContent!.replace(/\s+/g, ' ');
    expect(summary, summary).toMatch(/demo at k = 16 against demo at k = 2 on 2 texts/);
    expect(summary, summary).toMatch(/1 terms gained and 2 lost/);
    const caption = report.shadowRoot!.querySelector('#diff-gained caption')!.textContent ?? '';
    expect(caption, caption).toMatch(/active with demo at k = 16, not with demo at k = 2/);
    const downloads = captureDownloads();
    try {
      (report.shadowRoot!.querySelector('#diff-tsv') as HTMLButtonElement).click();
    } finally {
      downloads.restore();
    }
    expect(downloads.files[0].name, downloads.files[0].name).toBe('audit-demo-at-k-2-vs-demo-at-k-16.tsv');
    const blocks = (await downloads.files[0].text).trimEnd().split('\n\n');
    expect(blocks.map((b) => b.split('\t')[0]).join(','), `gained, lost, per text: ${blocks}`).toBe('gained,lost,text');
  });

  it("compares the loaded model with a stored run's trained model, and takes the evaluated set's documents as its texts", async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<AuditPanel>('audit-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await settle(el);
    inside<HTMLButtonElement>(el, '#audit-use-set').click();
    await settle(el);
    expect(inside<HTMLTextAreaElement>(el, '#audit-texts').value, 'one document per line').toBe('a whale swims\nthe sea');
    expect(inside(el, '#audit-status').textContent ?? '', 'what was taken').toMatch(/the first 2 of the 50 documents of NanoA/);
    const options = [...inside<HTMLSelectElement>(el, '#diff-model-b').options].map((o) => o.value);
    expect(options.join(','), `the loaded model and the finished runs, newest first: ${options}`).toBe(',abcdef123456,older');
    const select = inside<HTMLSelectElement>(el, '#diff-model-b');
    select.value = 'abcdef123456';
    select.dispatchEvent(new Event('change'));
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('#diff-k2'), "a run's k is its own: no field").toBeFalsy();
    setK(el, '#diff-k1', '8');
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#diff-run').click();
    await settle(el);
    const call = fake.calls.find((c) => c.method === 'auditDiff');
    expect(JSON.stringify(call?.args), JSON.stringify(call)).toBe(
      JSON.stringify([
        ['a whale swims', 'the sea'],
        [
          { kind: 'loaded', k: 8 },
          { kind: 'run', id: 'abcdef123456' },
        ],
        50,
      ]),
    );
    const summary = inside(el, 'audit-diff-report').shadowRoot!.querySelector('#diff-summary')!.textContent!.replace(/\s+/g, ' ');
    expect(summary, summary).toMatch(/demo trained at k = 8, 200 steps \(run of .*\) against demo at k = 8/);
    // a run sent from its page: it becomes the second side, the loaded model at its k the first
    el.compareRun = { id: 'older', k: 2 };
    await settle(el);
    expect(inside<HTMLSelectElement>(el, '#diff-model-b').value, 'the sent run is the second side').toBe('older');
    expect(inside<HTMLInputElement>(el, '#diff-k1').value, "the loaded model at the run's k").toBe('2');
  });

  it('refuses a k out of range at the field, shows a failure, and clears its reports for another model', async () => {
    cleanup();
    const el = await mount<AuditPanel>('audit-panel', { client: null, summary: null });
    expect(inside<HTMLButtonElement>(el, '#audit-run').disabled, 'no model: no report').toBeTruthy();
    const fake = fakeClient();
    el.client = fake.client;
    el.summary = SUMMARY;
    await el.updateComplete;
    setK(el, '#diff-k2', '0');
    await el.updateComplete;
    expect(inside<HTMLButtonElement>(el, '#diff-run').disabled, 'k = 0 cannot be compared').toBeTruthy();
    expect(
      allInside(el, '[role="alert"]').some((a) => /k must be/.test(a.textContent ?? '')),
      'the field says why',
    ).toBe(true);
    setK(el, '#diff-k2', '8');
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#diff-run').click();
    await settle(el);
    expect(el.shadowRoot!.querySelector('audit-diff-report'), 'a comparison').toBeTruthy();
    el.summary = { ...SUMMARY, name: 'other' };
    await settle(el);
    expect(el.shadowRoot!.querySelector('audit-diff-report'), "another model's panel drops the old comparison").toBeFalsy();

    el.client = fakeClient('No model is loaded.').client;
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#audit-run').click();
    await settle(el);
    expect(inside(el, '#audit-error').textContent ?? '', 'the failure').toMatch(/The audit stopped: No model is loaded\./);
  });
});
