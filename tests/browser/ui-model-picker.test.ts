// <model-picker>: presets, Hub ids and files become load requests; progress can be cancelled; the demo is labelled.
import '../../src/ui/model/model-picker.ts';
import type { LoadRequest, ModelPicker } from '../../src/ui/model/model-picker.ts';
import type { ModelSummary } from '../../src/worker/api.ts';
import { allInside, check, events, inside, mount } from './ui-fixture.ts';

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
    check(allInside(el, '#preset option').length >= 8, 'the demo and seven presets');
    select.value = 'bert-tiny';
    select.dispatchEvent(new Event('change'));
    const hub = inside<HTMLInputElement>(el, '#hub-id');
    hub.value = 'my-org/my-model';
    hub.dispatchEvent(new Event('input'));
    await el.updateComplete;
    inside<HTMLButtonElement>(el, '#load-hub').click();
    check(JSON.stringify(seen) === JSON.stringify([{ model: 'bert-tiny' }, { model: 'my-org/my-model' }]), JSON.stringify(seen));
  });

  it('hands picked files over as they are', async () => {
    const el = await mount<ModelPicker>('model-picker', {});
    const seen = events<LoadRequest>(el, 'load-model');
    const input = inside<HTMLInputElement>(el, '#files');
    const transfer = new DataTransfer();
    transfer.items.add(new File(['{}'], 'config.json'));
    input.files = transfer.files;
    input.dispatchEvent(new Event('change'));
    check(seen.length === 1 && 'files' in seen[0] && seen[0].files[0].name === 'config.json', 'files request');
  });

  it('shows download progress with a working cancel button', async () => {
    const el = await mount<ModelPicker>('model-picker', {
      loading: true,
      progress: { stage: 'download', file: 'model.safetensors', loaded: 512, total: 2048 },
    });
    const cancelled = events<unknown>(el, 'cancel-load');
    check(inside<HTMLProgressElement>(el, '#progress').value === 0.25, 'progress at a quarter');
    check(
      /model\.safetensors: 512 B of 2\.00 KiB/.test(inside(el, '#progress-text').textContent ?? ''),
      inside(el, '#progress-text').textContent ?? '',
    );
    check(inside<HTMLSelectElement>(el, '#preset').disabled, 'choices are locked while loading');
    inside<HTMLButtonElement>(el, '#cancel').click();
    check(cancelled.length === 1, 'cancel-load sent');
  });

  it('with nothing loaded, offers to load the chosen entry (choosing it again would fire no change)', async () => {
    const el = await mount<ModelPicker>('model-picker', { model: 'bert-mini', summary: null });
    const seen = events<LoadRequest>(el, 'load-model');
    const button = inside<HTMLButtonElement>(el, '#load-chosen');
    check(/Load bert-mini/.test(button.textContent ?? ''), button.textContent ?? '');
    button.click();
    check(JSON.stringify(seen) === JSON.stringify([{ model: 'bert-mini' }]), JSON.stringify(seen));
    el.model = 'my-org/my-model';
    await el.updateComplete;
    check(allInside(el, '#load-chosen').length === 0, 'a Hub id has its own Load button');
    el.summary = summary;
    el.model = 'demo';
    await el.updateComplete;
    check(allInside(el, '#load-chosen').length === 0, 'nothing to offer while a model is loaded');
  });

  it('labels the demo backbone and shows the memory estimate against the binding limit', async () => {
    const el = await mount<ModelPicker>('model-picker', { summary });
    check(/demo backbone/.test(inside(el, '#model-label').textContent ?? ''), 'demo label');
    check(
      /of 1\.00 GiB allowed per binding/.test(inside(el, '#memory').textContent ?? ''),
      inside(el, '#memory').textContent ?? '',
    );
  });

  it("says how the loaded model encodes queries and documents, as its folder's modules say", async () => {
    const encoding =
      'inference-free: queries by an IDF table of 30522 tokens; documents by the MLM with SpladePooling(max, log1p_relu)';
    const el = await mount<ModelPicker>('model-picker', { summary: { ...summary, encoding } });
    check(inside(el, '#encoding').textContent === `Encoding: ${encoding}`, inside(el, '#encoding').textContent ?? '');
  });

  it('without WebGPU, nothing can be chosen', async () => {
    const el = await mount<ModelPicker>('model-picker', { noGpu: true });
    check(
      inside<HTMLSelectElement>(el, '#preset').disabled && inside<HTMLInputElement>(el, '#files').disabled,
      'controls disabled',
    );
    check(/needs WebGPU/.test(inside(el, '#model-label').textContent ?? ''), 'says why');
  });
});
