// <sweep-panel>: the request it sends, every run with the training form's recipe, peak lr and lambdas (a lambda grid
// keeps its own lambdas), and no request while the form holds a bad field.
import type { SweepClient, SweepPanel } from '../../src/ui/experiments/sweep-panel.ts';
import '../../src/ui/experiments/sweep-panel.ts';
import type { SweepRecipeSettings } from '../../src/ui/training/recipe-state.ts';
import type { ModelSummary, PageSweepRequest, TripletsSummary } from '../../src/worker/api.ts';
import { cleanup, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';

const SUMMARY = { name: 'demo', label: 'demo', synthetic: true } as ModelSummary;
const TRIPLETS = { name: 't.tsv', triplets: 10, bytes: 100, blankLines: 0, header: false, crc32: 1 } as TripletsSummary;
const RECIPE: SweepRecipeSettings = {
  peakLr: 2e-3,
  lambdaQueries: 0.02,
  lambdaDocuments: 0.005,
  dropout: 0,
  warmupRatio: 0.2,
  maxGradNorm: 0,
  gradAccum: 2,
  optimizer: 'sgd',
  flopsOver: 'step',
};

function fakeClient(sent: PageSweepRequest[]): SweepClient {
  return {
    async sweep(request: PageSweepRequest) {
      sent.push(request);
      return { id: 'sweep', createdAt: '', modelKey: 'demo', data: {}, runs: [], finished: [] };
    },
    pendingSweep: async () => null,
    resumeSweep: async () => {
      throw new Error('not resumed here');
    },
    cancelJob: async () => {},
  } as unknown as SweepClient;
}

/** A fresh <sweep-panel> at k = 4 offering ks 1 and 8, whose form gives `recipe`; `sent` collects its requests. */
async function mountPanel(recipe: SweepRecipeSettings | null): Promise<{ el: SweepPanel; sent: PageSweepRequest[] }> {
  cleanup();
  const sent: PageSweepRequest[] = [];
  const el = await mount<SweepPanel>('sweep-panel', {
    client: fakeClient(sent),
    summary: SUMMARY,
    triplets: TRIPLETS,
    k: 4,
    ks: [1, 8],
    recipe: () => recipe,
  });
  return { el, sent };
}

describe('<sweep-panel>', () => {
  it("trains every k with the training form's recipe, peak lr and lambdas", async () => {
    const { el, sent } = await mountPanel(RECIPE);
    inside<HTMLInputElement>(el, '#sweep-steps').value = '30';
    inside<HTMLButtonElement>(el, '#start-sweep').click();
    await settle(el);
    const request = sent[0];
    expect(request?.ks?.join(','), JSON.stringify(request)).toBe('1,8');
    const base = request.base;
    expect(base.steps, JSON.stringify(base)).toBe(30);
    expect(base.batchSize, JSON.stringify(base)).toBe(8);
    expect(
      Object.entries(RECIPE).every(([key, value]) => base[key as keyof typeof base] === value),
      JSON.stringify(base),
    ).toBe(true);
  });

  it('a lambda grid sends its own lambdas beside the same recipe', async () => {
    const { el, sent } = await mountPanel(RECIPE);
    inside<HTMLInputElement>(el, '#grid').click();
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#start-sweep').click();
    await settle(el);
    const request = sent[0];
    expect(request?.lambdas, JSON.stringify(request)).toBeTruthy();
    expect(request.ks, JSON.stringify(request)).toBeUndefined();
    expect(request.base.k, JSON.stringify(request)).toBe(4);
    expect(request.base.dropout, JSON.stringify(request)).toBe(0);
  });

  it('sends nothing while the training form holds a bad field', async () => {
    const { el, sent } = await mountPanel(null);
    inside<HTMLButtonElement>(el, '#start-sweep').click();
    await settle(el);
    expect(sent, `the worker was asked to sweep (${sent.length})`).toHaveLength(0);
  });
});
