// The GPU systems of the peers bench, given how splade-lab gets its GPU context (Dawn in Node, the page in Chromium).
import type { GpuContext } from '../../src/gpu/context.ts';
import { jaxPeer } from './jax-peer.ts';
import type { PeerSystem, PeerSystemName } from './peer-system.ts';
import { spladeLabPeer } from './splade-lab-peer.ts';
import { tfjsPeer } from './tfjs-peer.ts';

export function gpuPeerSystems(acquire: () => Promise<GpuContext>): Partial<Record<PeerSystemName, PeerSystem>> {
  return { 'splade-lab': (problem) => spladeLabPeer(problem, acquire), 'tfjs-webgpu': tfjsPeer, 'jax-js': jaxPeer };
}
