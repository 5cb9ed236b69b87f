// The SPLADE training step in the peers' array operations, written once: the encoder (tiny-encoder setting), the
// MLM head with log-saturated ReLU and max pooling (materialising the (rows, T, V) logits, as a framework user
// would), the in-batch contrastive loss, the FLOPS regulariser, and AdamW.
import type { ArrayOps } from './array-ops.ts';
import type { PeerArray, PeerDims, PeerHyper, PeerProblem } from './problem.ts';

/** Every array of `arrays` as a constant of the framework, under the same names. */
export function uploadArrays<A>(o: ArrayOps<A>, arrays: Record<string, PeerArray>): Record<string, A> {
  return Object.fromEntries(Object.entries(arrays).map(([name, array]) => [name, o.constant(array)]));
}

/** Host-side constants the step needs besides the problem's arrays: masks shaped for broadcasting, position ids. */
export function stepInputs(problem: PeerProblem): Record<string, PeerArray> {
  const { B, Tq, Td } = problem.dims;
  const out: Record<string, PeerArray> = {};
  const rows = { Queries: [B, Tq], Documents: [2 * B, Td] } as const;
  for (const [side, [R, T]] of Object.entries(rows)) {
    const mask = problem.fixed[`mask${side}`].data;
    out[`tokenMask${side}`] = { shape: [R, T, 1], data: Float32Array.from(mask) };
    if (problem.setting === 'tiny-encoder') {
      out[`attentionBias${side}`] = { shape: [R, 1, 1, T], data: Float32Array.from(mask, (m) => (m ? 0 : -1e9)) };
      out[`positions${side}`] = { shape: [R, T], data: Int32Array.from({ length: R * T }, (_, i) => i % T) };
      out[`tokenTypes${side}`] = { shape: [R, T], data: new Int32Array(R * T) };
      out[`ids${side}`] = problem.fixed[side === 'Queries' ? 'queryIds' : 'documentIds'];
    } else {
      out[`hidden${side}`] = problem.fixed[`hidden${side}`];
    }
  }
  // one-hot of each query's positive (document column i), (B, 2B)
  out.positives = {
    shape: [B, 2 * B],
    data: Float32Array.from({ length: 2 * B * B }, (_, n) => (n % (2 * B) === Math.floor(n / (2 * B)) ? 1 : 0)),
  };
  return out;
}

/** The step-1 quantity every system reports: rank + λq · FLOPS(queries) + λd · FLOPS(documents). */
export function spladeLoss<A>(o: ArrayOps<A>, problem: PeerProblem, params: Record<string, A>, inputs: Record<string, A>): A {
  const { dims, hyper } = problem;
  const use = (name: string, from: Record<string, A>) => {
    const a = from[name];
    if (a === undefined) throw new Error(`the step has no array "${name}"`);
    return o.ref(a);
  };
  const p = (name: string) => use(name, params);
  const x = (name: string) => use(name, inputs);
  const tiny = problem.setting === 'tiny-encoder';
  const weightName = tiny ? 'embeddings.word.weight' : 'weight';
  const biasName = tiny ? 'decoder.bias' : 'bias';
  const pool = (side: 'Queries' | 'Documents', R: number, T: number) => {
    const hidden = tiny ? encode(o, dims, p, x, side, R, T) : o.reshape(x(`hidden${side}`), [R * T, dims.d]);
    const logits = o.add(o.matmul(hidden, o.transpose(p(weightName), [1, 0])), p(biasName));
    const activations = o.mul(o.reshape(o.log1p(o.relu(logits)), [R, T, dims.V]), x(`tokenMask${side}`));
    return o.max(activations, 1);
  };
  const queries = pool('Queries', dims.B, dims.Tq);
  const documents = pool('Documents', 2 * dims.B, dims.Td);
  const loss = spladeObjective(o, hyper, dims.B, queries, documents, x('positives'));
  for (const a of [...Object.values(params), ...Object.values(inputs)]) o.drop(a);
  return loss;
}

function spladeObjective<A>(o: ArrayOps<A>, hyper: PeerHyper, B: number, queries: A, documents: A, positives: A): A {
  const scores = o.matmul(o.ref(queries), o.transpose(o.ref(documents), [1, 0]));
  const logProbabilities = o.logSoftmax(o.mul(scores, 1 / hyper.tau));
  const rank = o.mul(o.sum(o.mul(logProbabilities, positives)), -1 / B);
  // the pooled values are >= 0, so |x| = x in the FLOPS regulariser
  const flops = (vectors: A) => o.sum(o.square(o.mean(vectors, 0)));
  return o.add(o.add(rank, o.mul(flops(queries), hyper.lambdaQueries)), o.mul(flops(documents), hyper.lambdaDocuments));
}

/** BERT (post-norm, exact GELU) up to the MLM head's transform: (R·T, d). */
function encode<A>(
  o: ArrayOps<A>,
  dims: PeerDims,
  p: (name: string) => A,
  x: (name: string) => A,
  side: string,
  R: number,
  T: number,
): A {
  const { d, heads, normEps } = dims;
  const hd = d / heads;
  const norm = (a: A, name: string) => layerNorm(o, a, p(`${name}.weight`), p(`${name}.bias`), normEps);
  const linear = (a: A, name: string) => o.add(o.matmul(a, o.transpose(p(`${name}.weight`), [1, 0])), p(`${name}.bias`));
  const embedded = o.add(
    o.add(
      o.gather(p('embeddings.word.weight'), x(`ids${side}`)),
      o.gather(p('embeddings.position.weight'), x(`positions${side}`)),
    ),
    o.gather(p('embeddings.tokenType.weight'), x(`tokenTypes${side}`)),
  );
  let h = norm(o.reshape(embedded, [R * T, d]), 'embeddings.norm');
  for (let i = 0; i < dims.layers; i++) {
    const layer = `layers.${i}`;
    const split = (name: string, axes: number[]) =>
      o.transpose(o.reshape(linear(o.ref(h), `${layer}.${name}`), [R, T, heads, hd]), axes);
    const scores = o.add(
      o.mul(o.matmul(split('q', [0, 2, 1, 3]), split('k', [0, 2, 3, 1])), 1 / Math.sqrt(hd)),
      x(`attentionBias${side}`),
    );
    const context = o.reshape(o.transpose(o.matmul(o.softmax(scores), split('v', [0, 2, 1, 3])), [0, 2, 1, 3]), [R * T, d]);
    h = norm(o.add(h, linear(context, `${layer}.attnOut`)), `${layer}.attnOutNorm`);
    const mlp = linear(gelu(o, linear(o.ref(h), `${layer}.mlpIn`)), `${layer}.mlpOut`);
    h = norm(o.add(h, mlp), `${layer}.mlpOutNorm`);
  }
  return norm(gelu(o, linear(h, 'head.dense')), 'head.norm');
}

function gelu<A>(o: ArrayOps<A>, a: A): A {
  return o.mul(o.mul(o.ref(a), 0.5), o.add(o.erf(o.mul(a, Math.SQRT1_2)), 1));
}

function layerNorm<A>(o: ArrayOps<A>, a: A, scale: A, shift: A, eps: number): A {
  const centred = o.sub(o.ref(a), o.mean(a, -1, true));
  const variance = o.mean(o.square(o.ref(centred)), -1, true);
  return o.add(o.mul(o.div(centred, o.sqrt(o.add(variance, eps))), scale), shift);
}

/** AdamW's per-step scalars: the learning rate and the bias corrections 1 - β^t of step t (1-based). */
export interface AdamWScalars<S> {
  lr: S;
  correction1: S;
  correction2: S;
}

export function adamwScalars(hyper: PeerHyper, lr: number, t: number): AdamWScalars<number> {
  return { lr, correction1: 1 - hyper.beta1 ** t, correction2: 1 - hyper.beta2 ** t };
}

/** One AdamW update of every parameter (as src/kernels/reference/adamw.ts); consumes all its arguments. */
export function adamwUpdate<A>(
  o: ArrayOps<A>,
  hyper: PeerHyper,
  scalars: AdamWScalars<A | number>,
  state: { params: Record<string, A>; m: Record<string, A>; v: Record<string, A> },
  grads: Record<string, A>,
): { params: Record<string, A>; m: Record<string, A>; v: Record<string, A> } {
  const s = (value: A | number) => (typeof value === 'number' ? value : o.ref(value));
  const next = { params: {} as Record<string, A>, m: {} as Record<string, A>, v: {} as Record<string, A> };
  for (const name of Object.keys(state.params)) {
    const g = grads[name];
    const m = o.add(o.mul(state.m[name], hyper.beta1), o.mul(o.ref(g), 1 - hyper.beta1));
    const v = o.add(o.mul(state.v[name], hyper.beta2), o.mul(o.square(g), 1 - hyper.beta2));
    const step = o.div(
      o.div(o.ref(m), s(scalars.correction1)),
      o.add(o.sqrt(o.div(o.ref(v), s(scalars.correction2))), hyper.eps),
    );
    const param = state.params[name];
    next.params[name] = o.sub(o.ref(param), o.mul(o.add(step, o.mul(param, hyper.weightDecay)), s(scalars.lr)));
    next.m[name] = m;
    next.v[name] = v;
  }
  for (const value of Object.values(scalars)) if (typeof value !== 'number') o.drop(value);
  return next;
}
