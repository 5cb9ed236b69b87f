// <audit-panel>: sends the typed texts (blank lines left out) for a corpus report at the page's k and for a comparison
// at two k or against a stored run, draws what the worker returns (tables, the weight chart), downloads the CLI's TSV
// blocks, takes the evaluated set's documents as its texts, refuses a k out of range at the field, shows a failure,
// and clears its reports when another model is loaded.
import '../../src/ui/model/audit-panel.ts';
import type { AuditClient, AuditPanel } from '../../src/ui/model/audit-panel.ts';
import type { AuditDiff, CorpusAudit, ModelSummary, RunRecord } from '../../src/worker/api.ts';
import { allInside, check, cleanup, inside, mount, settle } from './ui-fixture.ts';

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
  check(table, `no table #${id}`);
  return [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.dataset.value ?? ''));
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
    check(inside(el, '#audit-texts').matches('textarea'), 'a text box');
    check((inside<HTMLTextAreaElement>(el, '#audit-texts').value.split('\n').length ?? 0) >= 3, 'a few default texts');
    typeTexts(el, 'a whale swims\n\n  \nthe doctor gave the patient a vaccine\n');
    await el.updateComplete;
    const run = inside<HTMLButtonElement>(el, '#audit-run');
    check(/Report at k = 4/.test(run.textContent ?? ''), run.textContent ?? '');
    run.click();
    await settle(el);
    check(
      JSON.stringify(fake.calls) ===
        JSON.stringify([{ method: 'auditCorpus', args: [['a whale swims', 'the doctor gave the patient a vaccine'], 4, 20] }]),
      `the call: ${JSON.stringify(fake.calls)}`,
    );
    const report = inside(el, 'audit-corpus-report');
    const weights = rows(report, 'corpus-weights');
    check(weights.length === 7, `2 origins and 5 kinds: ${JSON.stringify(weights)}`);
    check(weights[0][0] === 'input terms' && weights[0][1] === '0.75', `input row: ${weights[0]}`);
    check(rows(report, 'corpus-expansions')[0][0] === 'ocean', 'the frequent expansion');
    check(
      rows(report, 'corpus-widespread')
        .map((r) => r[0])
        .join(',') === '[CLS],the',
      'the widespread terms',
    );
    const bars = [...report.shadowRoot!.querySelectorAll('#corpus-chart g[data-kind]')];
    check(bars.length === 6, `all terms and 5 kinds: ${bars.length}`);
    const width = (bar: Element, part: string) => Number(bar.querySelector(`rect.${part}`)!.getAttribute('width'));
    // the "other word" bar: 60% of the weight, a quarter of it on expansions
    const word = bars[5];
    check(Math.abs(width(word, 'input') - 3 * width(word, 'expansion')) < 1e-9, 'input 45% and expansions 15%');
    check(
      Math.abs(width(word, 'input') + width(word, 'expansion') - (0.6 * width(bars[0], 'input')) / 0.75) < 1e-9,
      '60% of the whole',
    );
    check(/Where the weight goes/.test(report.shadowRoot!.querySelector('#corpus-chart')!.textContent ?? ''), 'the chart title');
    check(!!report.shadowRoot!.querySelector('chart-download'), 'the chart downloads as SVG or PNG');
    check(
      /Done: 2 texts at k = 4/.test(inside(el, '#audit-status').textContent ?? ''),
      inside(el, '#audit-status').textContent ?? '',
    );

    const downloads = captureDownloads();
    try {
      (report.shadowRoot!.querySelector('#corpus-tsv') as HTMLButtonElement).click();
      (report.shadowRoot!.querySelector('#corpus-json') as HTMLButtonElement).click();
    } finally {
      downloads.restore();
    }
    const [tsv, json] = downloads.files;
    check(tsv.name === 'audit-demo-k4.tsv' && json.name === 'audit-demo-k4.json', downloads.files.map((f) => f.name).join(', '));
    const blocks = (await tsv.text).trimEnd().split('\n\n');
    check(blocks.length === 3, `three TSV blocks: ${blocks.length}`);
    check(blocks[0].split('\n')[0].startsWith('category\tweight share'), blocks[0]);
    check(blocks[1] === 'expansion\tdocuments\tmean weight\nocean\t2\t0.5', blocks[1]);
    check(JSON.parse(await json.text).kinds.word.weightShare === 0.6, 'the JSON holds the audit');
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
    check(
      JSON.stringify(fake.calls) ===
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
      `the call: ${JSON.stringify(fake.calls)}`,
    );
    const report = inside(el, 'audit-diff-report');
    check(
      rows(report, 'diff-per-text')
        .map((r) => r.join(' '))
        .join('|') === 'one 5 4 -1 3 1.5 -1.5|two 6 6 0 2 1 -1',
      'per text',
    );
    check(
      rows(report, 'diff-gained')
        .map((r) => r[0])
        .join(',') === 'sea',
      'gained',
    );
    check(
      rows(report, 'diff-lost')
        .map((r) => r[0])
        .join(',') === 'reef,whale',
      'lost',
    );
    const summary = report.shadowRoot!.querySelector('#diff-summary')!.textContent!.replace(/\s+/g, ' ');
    check(/demo at k = 16 against demo at k = 2 on 2 texts/.test(summary) && /1 terms gained and 2 lost/.test(summary), summary);
    const caption = report.shadowRoot!.querySelector('#diff-gained caption')!.textContent ?? '';
    check(/active with demo at k = 16, not with demo at k = 2/.test(caption), caption);
    const downloads = captureDownloads();
    try {
      (report.shadowRoot!.querySelector('#diff-tsv') as HTMLButtonElement).click();
    } finally {
      downloads.restore();
    }
    check(downloads.files[0].name === 'audit-demo-at-k-2-vs-demo-at-k-16.tsv', downloads.files[0].name);
    const blocks = (await downloads.files[0].text).trimEnd().split('\n\n');
    check(blocks.map((b) => b.split('\t')[0]).join(',') === 'gained,lost,text', `gained, lost, per text: ${blocks}`);
  });

  it("compares the loaded model with a stored run's trained model, and takes the evaluated set's documents as its texts", async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<AuditPanel>('audit-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    await settle(el);
    inside<HTMLButtonElement>(el, '#audit-use-set').click();
    await settle(el);
    check(inside<HTMLTextAreaElement>(el, '#audit-texts').value === 'a whale swims\nthe sea', 'one document per line');
    check(/the first 2 of the 50 documents of NanoA/.test(inside(el, '#audit-status').textContent ?? ''), 'what was taken');
    const options = [...inside<HTMLSelectElement>(el, '#diff-model-b').options].map((o) => o.value);
    check(options.join(',') === ',abcdef123456,older', `the loaded model and the finished runs, newest first: ${options}`);
    const select = inside<HTMLSelectElement>(el, '#diff-model-b');
    select.value = 'abcdef123456';
    select.dispatchEvent(new Event('change'));
    await el.updateComplete;
    check(!el.shadowRoot!.querySelector('#diff-k2'), "a run's k is its own: no field");
    setK(el, '#diff-k1', '8');
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#diff-run').click();
    await settle(el);
    const call = fake.calls.find((c) => c.method === 'auditDiff');
    check(
      JSON.stringify(call?.args) ===
        JSON.stringify([
          ['a whale swims', 'the sea'],
          [
            { kind: 'loaded', k: 8 },
            { kind: 'run', id: 'abcdef123456' },
          ],
          50,
        ]),
      JSON.stringify(call),
    );
    const summary = inside(el, 'audit-diff-report').shadowRoot!.querySelector('#diff-summary')!.textContent!.replace(/\s+/g, ' ');
    check(/demo trained at k = 8, 200 steps \(run of .*\) against demo at k = 8/.test(summary), summary);
    // a run sent from its page: it becomes the second side, the loaded model at its k the first
    el.compareRun = { id: 'older', k: 2 };
    await settle(el);
    check(inside<HTMLSelectElement>(el, '#diff-model-b').value === 'older', 'the sent run is the second side');
    check(inside<HTMLInputElement>(el, '#diff-k1').value === '2', "the loaded model at the run's k");
  });

  it('refuses a k out of range at the field, shows a failure, and clears its reports for another model', async () => {
    cleanup();
    const el = await mount<AuditPanel>('audit-panel', { client: null, summary: null });
    check(inside<HTMLButtonElement>(el, '#audit-run').disabled, 'no model: no report');
    const fake = fakeClient();
    el.client = fake.client;
    el.summary = SUMMARY;
    await el.updateComplete;
    setK(el, '#diff-k2', '0');
    await el.updateComplete;
    check(inside<HTMLButtonElement>(el, '#diff-run').disabled, 'k = 0 cannot be compared');
    check(
      allInside(el, '[role="alert"]').some((a) => /k must be/.test(a.textContent ?? '')),
      'the field says why',
    );
    setK(el, '#diff-k2', '8');
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#diff-run').click();
    await settle(el);
    check(!!el.shadowRoot!.querySelector('audit-diff-report'), 'a comparison');
    el.summary = { ...SUMMARY, name: 'other' };
    await settle(el);
    check(!el.shadowRoot!.querySelector('audit-diff-report'), "another model's panel drops the old comparison");

    el.client = fakeClient('No model is loaded.').client;
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#audit-run').click();
    await settle(el);
    check(/The audit stopped: No model is loaded\./.test(inside(el, '#audit-error').textContent ?? ''), 'the failure');
  });
});
