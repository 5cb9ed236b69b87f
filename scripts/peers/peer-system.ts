// What each system of the peers bench provides: one training step at a time, and the GPU bytes it holds.
import type { PeerProblem } from './problem.ts';

export type PeerSystemName = 'splade-lab' | 'tfjs-webgpu' | 'jax-js' | 'pytorch-cpu';

export interface PeerStepper {
  /** Runs step t (0-based) to completion and returns its loss (read back, so the step's GPU work is done). */
  step(t: number): Promise<number>;
  /** GPU buffer bytes allocated by the system (its own pool included), or null where it does not say. */
  gpuBytes(): number | null;
  /** The adapter the system runs on, in words. */
  adapter: string;
  /** Whether it computes on the CPU: PyTorch-CPU, or a CPU adapter such as SwiftShader. */
  onCpu: boolean;
  dispose(): void;
}

export type PeerSystem = (problem: PeerProblem) => Promise<PeerStepper>;

/** Each system's process prints its result as one line: this prefix, then the JSON. */
export const RESULT_PREFIX = 'PEER_RESULT ';
