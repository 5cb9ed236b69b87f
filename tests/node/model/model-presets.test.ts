// The named backbones: every Table 1 row the loader supports has a preset that highlights it, and the CLI's --model
// takes the same names.
import { describe, expect, it } from 'vitest';
import { MODEL_PRESETS } from '../../../src/contract/model/model-presets.ts';
import { modelRefFromArgument } from '../../../src/app/platform/platform-node.ts';
import { PAPER_TABLE1 } from '../../../src/ui/model/paper-table1-data.ts';
import { paperRowFor } from '../../../src/ui/model/presets.ts';

describe('model presets', () => {
  it('every paper row a preset names is in Table 1, and every Table 1 backbone has a preset', () => {
    const rows = PAPER_TABLE1.map((r) => r.backbone);
    for (const preset of MODEL_PRESETS) if (preset.paperRow) expect(rows).toContain(preset.paperRow);
    const covered = new Set(MODEL_PRESETS.map((p) => p.paperRow));
    expect(rows.filter((row) => !covered.has(row))).toEqual([]);
  });

  it('the page highlights the row of a preset key and of its Hub id', () => {
    expect(paperRowFor('gte-en-mlm-base')).toBe('gte-en-mlm-base');
    expect(paperRowFor('Alibaba-NLP/gte-en-mlm-base')).toBe('gte-en-mlm-base');
    expect(paperRowFor('albert-base-v2')).toBe('albert-base-v2');
    expect(paperRowFor('bert-tiny')).toBeNull();
  });

  it('the CLI takes a preset key for its Hub id, and names the presets when an argument is none of folder, id or key', async () => {
    await expect(modelRefFromArgument('gte-en-mlm-base')).resolves.toEqual({ kind: 'hub', id: 'Alibaba-NLP/gte-en-mlm-base' });
    await expect(modelRefFromArgument('answerdotai/ModernBERT-base')).resolves.toEqual({
      kind: 'hub',
      id: 'answerdotai/ModernBERT-base',
    });
    await expect(modelRefFromArgument('no such model!')).rejects.toThrow(
      /neither a folder, a Hub id \("org\/name"\) nor a preset \(bert-tiny, .*gte-en-mlm-base/,
    );
  });
});
