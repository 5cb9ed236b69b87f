// The backbone a training run starts from: its config (as parsed and as read), its fp32 parameters before any
// rescaling, and its tokenizer.
import type { HfConfig } from '../io/formats/model-folder.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import type { TextTokenizer } from '../io/tokenizer/tokenizer.ts';
import type { ModelConfig } from '../contract/model/model-config.ts';

export interface Backbone {
  config: ModelConfig;
  /** config.json as read (stored in checkpoints, written with the trained model). */
  hfConfig: HfConfig;
  /** Internal parameter name -> fp32 tensor, before any rescaling. */
  params: Map<string, HostTensor>;
  tokenizer: TextTokenizer;
}
