// The TensorFlow.js peer (WebGPU backend on the same Dawn adapter): the shared step through tfjs ops and autodiff.
import * as tf from '@tensorflow/tfjs';
import { navigatorAdapterOnCpu } from './adapter-on-cpu.ts';
import type { ArrayOps } from './array-ops.ts';
import type { PeerStepper } from './peer-system.ts';
import { peerLearningRate, type PeerProblem } from './problem.ts';
import { adamwScalars, adamwUpdate, spladeLoss, stepInputs, uploadArrays } from './splade-step.ts';

type T = tf.Tensor;

export async function tfjsPeer(problem: PeerProblem): Promise<PeerStepper> {
  // registers itself only where navigator.gpu exists when it loads, so it loads here, after the caller set that up
  await import('@tensorflow/tfjs-backend-webgpu');
  if (!(await tf.setBackend('webgpu'))) throw new Error('TensorFlow.js could not start its WebGPU backend');
  await tf.ready();
  const ops = tfjsOps();
  const inputs = uploadArrays(ops, stepInputs(problem));
  let params = uploadArrays(ops, problem.trainable);
  let m = Object.fromEntries(Object.entries(params).map(([name, p]) => [name, tf.zerosLike(p)]));
  let v = Object.fromEntries(Object.entries(params).map(([name, p]) => [name, tf.zerosLike(p)]));
  const names = Object.keys(params);
  return {
    adapter: 'TensorFlow.js 4.22 webgpu backend',
    onCpu: await navigatorAdapterOnCpu(),
    async step(t) {
      const result = tf.tidy(() => {
        const loss = (...list: T[]) =>
          spladeLoss(ops, problem, Object.fromEntries(names.map((n, i) => [n, list[i]])), inputs) as tf.Scalar;
        const { value, grads } = tf.valueAndGrads(loss)(names.map((n) => params[n]));
        const scalars = adamwScalars(problem.hyper, peerLearningRate(problem.hyper, t), t + 1);
        const next = adamwUpdate(
          ops,
          problem.hyper,
          scalars,
          { params, m, v },
          Object.fromEntries(names.map((n, i) => [n, grads[i]])),
        );
        return { value, ...next };
      });
      tf.dispose([params, m, v]);
      ({ params, m, v } = result);
      const loss = (await result.value.data())[0];
      result.value.dispose();
      return loss;
    },
    gpuBytes: () => (tf.memory() as { numBytesAllocatedInGPU?: number }).numBytesAllocatedInGPU ?? null,
    dispose: () => tf.dispose([params, m, v, inputs]),
  };
}

function tfjsOps(): ArrayOps<T> {
  return {
    ref: (a) => a,
    drop: () => {},
    constant: ({ shape, data }) => tf.tensor(data, shape, data instanceof Int32Array ? 'int32' : 'float32'),
    matmul: (a, b) => tf.matMul(a, b),
    transpose: (a, axes) => tf.transpose(a, axes),
    reshape: (a, shape) => tf.reshape(a, shape),
    add: (a, b) => tf.add(a, b),
    sub: (a, b) => tf.sub(a, b),
    mul: (a, b) => tf.mul(a, b),
    div: (a, b) => tf.div(a, b),
    relu: (a) => tf.relu(a),
    log1p: (a) => tf.log1p(a),
    erf: (a) => tf.erf(a),
    sqrt: (a) => tf.sqrt(a),
    square: (a) => tf.square(a),
    max: (a, axis) => tf.max(a, axis),
    mean: (a, axis, keep = false) => tf.mean(a, axis, keep),
    sum: (a) => tf.sum(a),
    softmax: (a) => tf.softmax(a),
    logSoftmax: (a) => tf.logSoftmax(a),
    gather: (table, ids) => tf.gather(table, ids),
  };
}
