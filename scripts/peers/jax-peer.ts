// The jax-js peer (WebGPU device on the same Dawn adapter): the shared step, differentiated by valueAndGrad and
// compiled whole (forward, backward and AdamW) by jit, as jax-js recommends for GPU work.
import * as jax from '@jax-js/jax';
import { navigatorAdapterOnCpu } from './adapter-on-cpu.ts';
import type { ArrayOps } from './array-ops.ts';
import type { PeerStepper } from './peer-system.ts';
import { peerLearningRate, type PeerProblem } from './problem.ts';
import { adamwScalars, adamwUpdate, spladeLoss, stepInputs, uploadArrays, type AdamWScalars } from './splade-step.ts';

type J = jax.numpy.Array;
type Tree = Record<string, J>;
const np = jax.numpy;

export async function jaxPeer(problem: PeerProblem): Promise<PeerStepper> {
  const devices = await jax.init();
  if (!devices.includes('webgpu')) throw new Error(`jax-js found no WebGPU device (it has ${devices.join(', ')})`);
  jax.defaultDevice('webgpu');
  const ops = jaxOps();
  const refTree = (tree: Tree): Tree => Object.fromEntries(Object.entries(tree).map(([name, a]) => [name, a.ref]));
  const inputs = uploadArrays(ops, stepInputs(problem));
  let state = { params: uploadArrays(ops, problem.trainable), m: {} as Tree, v: {} as Tree };
  for (const [name, p] of Object.entries(state.params)) {
    state.m[name] = np.zeros(p.shape);
    state.v[name] = np.zeros(p.shape);
  }
  const lossOf = (params: Tree, stepInputs: Tree) => spladeLoss(ops, problem, params, stepInputs);
  const trainStep = jax.jit((current: { params: Tree; m: Tree; v: Tree }, stepInputs: Tree, scalars: AdamWScalars<J>) => {
    const [loss, grads] = jax.valueAndGrad(lossOf)(refTree(current.params), stepInputs);
    return { loss, ...adamwUpdate(ops, problem.hyper, scalars, current, grads as Tree) };
  });
  return {
    adapter: 'jax-js 0.1.25 webgpu device',
    onCpu: await navigatorAdapterOnCpu(),
    async step(t) {
      const scalars = adamwScalars(problem.hyper, peerLearningRate(problem.hyper, t), t + 1);
      const { loss, ...next } = trainStep(state, refTree(inputs), {
        lr: np.array(scalars.lr),
        correction1: np.array(scalars.correction1),
        correction2: np.array(scalars.correction2),
      });
      state = next;
      return (await loss.data())[0];
    },
    gpuBytes: () => null,
    dispose: () => {
      for (const tree of [state.params, state.m, state.v, inputs]) for (const a of Object.values(tree)) a.dispose();
    },
  };
}

function jaxOps(): ArrayOps<J> {
  return {
    ref: (a) => a.ref,
    drop: (a) => a.dispose(),
    constant: ({ shape, data }) => np.array(data, { dtype: data instanceof Int32Array ? np.int32 : np.float32 }).reshape(shape),
    matmul: (a, b) => np.matmul(a, b),
    transpose: (a, axes) => np.transpose(a, axes),
    reshape: (a, shape) => np.reshape(a, shape),
    add: (a, b) => np.add(a, b),
    sub: (a, b) => np.subtract(a, b),
    mul: (a, b) => np.multiply(a, b),
    div: (a, b) => np.divide(a, b),
    relu: (a) => jax.nn.relu(a),
    log1p: (a) => np.log1p(a),
    erf: (a) => jax.scipySpecial.erf(a),
    sqrt: (a) => np.sqrt(a),
    square: (a) => np.square(a),
    max: (a, axis) => np.max(a, axis),
    mean: (a, axis, keep = false) => np.mean(a, axis, { keepdims: keep }),
    sum: (a) => np.sum(a),
    softmax: (a) => jax.nn.softmax(a, -1),
    logSoftmax: (a) => jax.nn.logSoftmax(a, -1),
    gather: (table, ids) => np.take(table, ids, 0),
  };
}
