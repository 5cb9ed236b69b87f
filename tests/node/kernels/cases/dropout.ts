// Dropout against its float64 reference (the same counter-based mask, bit for bit), in place and copying, on odd sizes.
import { DropoutSite } from '../../../../src/kernels/dropout.ts';
import { dropoutApply } from '../../../../src/kernels/reference/dropout.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

function dropoutCase(n: number, rate: number, key: number): KernelCase {
  return {
    name: `n=${n} rate ${rate} key ${key}: in place and copying equal the reference`,
    make: () => ({
      name: `dropout n=${n}`,
      tensors: { x: { shape: [n] }, src: { shape: [n] }, dst: { shape: [n] } },
      build: (ctx, t) => {
        const site = new DropoutSite(ctx, n, rate, 'test');
        site.setKey(key);
        return {
          record: (enc) => {
            site.inPlace(enc, t.x);
            site.copy(enc, t.src, t.dst);
          },
        };
      },
      reference: (h) => ({ x: dropoutApply(h.x, key, rate), dst: dropoutApply(h.src, key, rate) }),
      checks: { x: { tol: { rtol: 1e-6, atol: 0 } }, dst: { tol: { rtol: 1e-6, atol: 0 } } },
    }),
  };
}

export const dropout: KernelFamily = {
  family: 'dropout',
  groups: [
    {
      describe: 'dropout',
      cases: [
        dropoutCase(1, 0.1, 7),
        dropoutCase(333, 0.1, 0xdeadbeef),
        dropoutCase(70001, 0.5, 12345),
        dropoutCase(4099, 0.9, 1),
      ],
    },
  ],
};
