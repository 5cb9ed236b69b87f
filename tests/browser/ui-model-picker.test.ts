// <model-picker>: presets, Hub ids and files become load requests; progress can be cancelled; the demo is labelled.
import '../../src/ui/model/model-picker.ts';
import type { LoadRequest, ModelPicker } from '../../src/ui/model/model-picker.ts';
import type { ModelSummary } from '../../src/worker/api.ts';
import { allInside, events, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

const summary: ModelSummary = {
  name: 'demo',
  label: 'demo backbone (a tiny BERT pretrained by splade-lab on WordNet glosses)',
  synthetic: true,
  hfArchitecture: 'BertForMaskedLM',
  vocabSize: 30522,
  hidden: 32,
  layers: 2,
  parameters: 1_000_000,
  tiedHead: true,
  maxTokens: 128,
  estimate: {
    downloadBytes: 4_000_000,
    gpuBytes: 4_000_000,
    largestTensorBytes: 3_900_000,
    parameters: 1_000_000,
    maxBufferSize: 2 ** 30,
    maxStorageBufferBindingSize: 2 ** 30,
    problems: [],
  },
  encoding: 'queries and documents by the MLM with SpladePooling(max, relu)',
  notes: [],
};

describe('<model-picker>', () => {
  it('turns a preset choice and a typed Hub id into load requests', async () => {
    const el = await mount<ModelPicker>('model-picker', {});
    const seen = events<LoadRequest>(el, 'load-model');
    const select = inside<HTMLSelectElement>(el, '#preset');
    expect(allInside(el, '#preset option').length, 'the demo and seven presets').toBeGreaterThanOrEqual(8);
    select.value = 'bert-tiny';
    select.dispatchEvent(new Event('change'));
    const hub = inside<HTMLInputElement>(el, '#hub-id');
    hub.value = 'my-org/my-model';
    hub.dispatchEvent(new Event('input'));
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#load-hub').click();
    expect(JSON.stringify(seen), JSON.stringify(seen)).toBe(
      JSON.stringify([{ model: 'bert-tiny' }, { model: 'my-org/my-model' }]),
    );
  });

  it('hands picked files over as they are', async () => {
    const el = await mount<ModelPicker>('model-picker', {});
    const seen = events<LoadRequest>(el, 'load-model');
    const input = inside<HTMLInputElement>(el, '#files');
    const transfer = new DataTransfer();
    transfer.items.add(new File(['{}'], 'config.json'));
    input.files = transfer.files;
    input.dispatchEvent(new Event('change'));
    expect(seen, 'files request').toHaveLength(1);
    expect('files' in seen[0], 'files request').toBe(true);
    expect('files' in seen[0] ? seen[0].files[0].name : undefined, 'files request').toBe('config.json');
  });

  it('shows download progress with a working cancel button', async () => {
    const el = await mount<ModelPicker>('model-picker', {
      loading: true,
      progress: { stage: 'download', file: 'model.safetensors', loaded: 512, total: 2048 },
    });
    const cancelled = events<unknown>(el, 'cancel-load');
    expect(inside<HTMLProgressElement>(el, '#progress').value, 'progress at a quarter').toBe(0.25);
    expect(inside(el, '#progress-text').textContent ?? '', inside(el, '#progress-text').textContent ?? '').toMatch(
      /model\.safetensors: 512 B of 2\.00 KiB/,
    );
    expect(inside<HTMLSelectElement>(el, '#preset').disabled, 'choices are locked while loading').toBeTruthy();
    inside<HTMLButtonElement>(el, '#cancel').click();
    expect(cancelled, 'cancel-load sent').toHaveLength(1);
  });

  it('with nothing loaded, offers to load the chosen entry (choosing it again would fire no change)', async () => {
    const el = await mount<ModelPicker>('model-picker', { model: 'bert-mini', summary: null });
    const seen = events<LoadRequest>(el, 'load-model');
    const button = inside<HTMLButtonElement>(el, '#load-chosen');
    expect(button.textContent ?? '', button.textContent ?? '').toMatch(/Load bert-mini/);
    button.click();
    expect(JSON.stringify(seen), JSON.stringify(seen)).toBe(JSON.stringify([{ model: 'bert-mini' }]));
    el.model = 'my-org/my-model';
    await el.updateComplete;
    expect(allInside(el, '#load-chosen'), 'a Hub id has its own Load button').toHaveLength(0);
    el.summary = summary;
    el.model = 'demo';
    await el.updateComplete;
    expect(allInside(el, '#load-chosen'), 'nothing to offer while a model is loaded').toHaveLength(0);
  });

  it('labels the demo backbone and shows the memory estimate against the binding limit', async () => {
    const el = await mount<ModelPicker>('model-picker', { summary });
    expect(inside(el, '#model-label').textContent ?? '', 'demo label').toMatch(/demo backbone/);
    expect(inside(el, '#memory').textContent ?? '', inside(el, '#memory').textContent ?? '').toMatch(
      /of 1\.00 GiB allowed per binding/,
    );
  });

  it("says how the loaded model encodes queries and documents, as its folder's modules say", async () => {
    const encoding =
      'inference-free: queries by an IDF table of 30522 tokens; documents by the MLM with SpladePooling(max, log1p_relu)';
    const el = await mount<ModelPicker>('model-picker', { summary: { ...summary, encoding } });
    expect(inside(el, '#encoding').textContent, inside(el, '#encoding').textContent ?? '').toBe(`Encoding: ${encoding}`);
  });

  it('without WebGPU, nothing can be chosen', async () => {
    const el = await mount<ModelPicker>('model-picker', { noGpu: true });
    expect(inside<HTMLSelectElement>(el, '#preset').disabled, 'controls disabled').toBeTruthy();
    expect(inside<HTMLInputElement>(el, '#files').disabled, 'controls disabled').toBeTruthy();
    expect(inside(el, '#model-label').textContent ?? '', 'says why').toMatch(/needs WebGPU/);
  });
});
