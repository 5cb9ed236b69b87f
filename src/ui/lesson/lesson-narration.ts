// What each step of the lesson says: its title, and its narration (the text and formula above the step's figures).
// The narration states no comparison of this lesson's numbers: those sentences are computed from the numbers on screen
// (contract/lesson/lesson-claims.ts) and shown beside them.
import { html, type TemplateResult } from 'lit';
import type { LESSON_STEPS } from '../url-state.ts';

export type LessonStepName = (typeof LESSON_STEPS)[number];

export const STEP_TITLES: Record<LessonStepName, string> = {
  vector: 'A SPLADE vector',
  'long-rows': 'Why long head rows break it',
  training: 'Training side by side',
  trade: 'What k trades',
};

export const LESSON_NARRATION: Record<LessonStepName, TemplateResult> = {
  vector: html`<div class="narration">
    <p>
      A SPLADE model reads a text with a language model and, for every word of its vocabulary, asks: how much does this text call
      for it? The answers form a vector as long as the vocabulary. A word the text does not call for gets exactly 0, and search
      pays only for the words that are not 0. The weight of word j is the strongest call any token t makes for it, squashed by a
      logarithm:
    </p>
    <span class="formula">w<sub>j</sub> = max<sub>t</sub> log(1 + ReLU(h<sub>t</sub> · W<sub>j</sub> / k + b<sub>j</sub>))</span>
    <p>Type a sentence to see its vector. Words with weight that are not in the sentence are expansions.</p>
  </div>`,
  'long-rows': html`<div class="narration">
    <p>
      Each word j has a row W<sub>j</sub> in the MLM head, and its logit grows with the row's length. Modern backbones have long
      rows: large logits sit on the flat end of the logarithm and give many words similar, large weights, so vectors are dense
      and their FLOPS (what search costs) explode. Dividing the head by k shrinks the h · W part of every logit k times while
      the bias b<sub>j</sub> stays, so where the bias is negative the faintest terms fall to 0; training's FLOPS penalty can
      then push the other small weights to zero.
    </p>
    <span class="formula"
      >logit<sub>j</sub> = h · W<sub>j</sub> / k + b<sub>j</sub>,&nbsp;&nbsp; FLOPS(v) = Σ<sub>j</sub> w<sub>j</sub>²</span
    >
    <p>
      The rows get their length in pretraining: masked-LM training rewards confident predictions, and long rows give them. The
      recording below is a short masked-LM run of this demo backbone; a real backbone trains for millions of steps.
    </p>
  </div>`,
  training: html`<div class="narration">
    <p>
      Now the same backbone is fine-tuned twice from the same weights on the same batches: once with the head as loaded (k = 1),
      once divided. Each step lowers the loss below. Watch the ranking loss, how many words each query keeps, and whether held-out
      queries (never trained on) find their documents better.
    </p>
    <span class="formula"
      >L = L<sub>rank</sub> + λ<sub>q</sub> FLOPS(q) + λ<sub>d</sub> FLOPS(d),&nbsp;&nbsp; FLOPS(V) = Σ<sub>j</sub> (mean<sub
        >i</sub
      >
      |v<sub>ij</sub>|)²</span
    >
  </div>`,
  trade: html`<div class="narration">
    <p>
      k trades effectiveness against cost: divided too little, a head with long rows starts saturated; divided too much, its
      weights are too small to separate documents. Below, read from this lesson's own numbers: which k ended ahead on the
      held-out queries and which costs less to search, how the ranking losses started, and what their end means.
    </p>
  </div>`,
};
