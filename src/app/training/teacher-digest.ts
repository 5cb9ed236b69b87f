// A cross-encoder teacher's identity as one SHA-256: its configs, its tokenizer's definition and every tensor it
// computes with (name, shape, bytes), so that two teachers whose scores could differ never share a digest.
import { tokenizerDigest } from '../../io/tokenizer/tokenizer-fingerprint.ts';
import type { HostTensor } from '../../io/host-tensor.ts';
import type { LoadedClassifier } from '../../model/load-classifier.ts';
import { sha256Hex } from '../../util/sha256.ts';

/** The SHA-256 (64 hex digits) of what the loaded teacher scores with; the same files always give the same digest. */
export async function teacherDigest(loaded: LoadedClassifier): Promise<string> {
  const { head } = loaded;
  const tensors: [string, HostTensor][] = [...loaded.params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (head.pooler) tensors.push(['head pooler weight', head.pooler.weight], ['head pooler bias', head.pooler.bias]);
  tensors.push(['head classifier weight', head.classifierWeight], ['head classifier bias', head.classifierBias]);
  const parts = [
    JSON.stringify({ config: loaded.config, classifier: loaded.classifier }),
    await tokenizerDigest(loaded.tokenizer),
  ];
  for (const [name, { shape, data }] of tensors)
    parts.push(`${name} [${shape.join('x')}] ${await sha256Hex(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))}`);
  return sha256Hex(parts.join('\n'));
}
