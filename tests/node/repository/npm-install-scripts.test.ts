// A plain `npm ci` on a machine that reaches only the npm registry: package.json's allowScripts (npm 11's install
// script policy) decides every dependency with an install script in the lockfile, and denies onnxruntime-node's, which
// would fetch its CUDA provider from api.nuget.org.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const json = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'));

describe('install scripts', () => {
  it('allowScripts decides every package of the lockfile that has an install script, and denies onnxruntime-node', () => {
    const policy = json('package.json').allowScripts as Record<string, boolean>;
    const lock = json('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = new Set(
      Object.entries(lock.packages)
        .filter(([, entry]) => entry.hasInstallScript)
        .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
    );
    expect([...withScripts].filter((name) => typeof policy[name] !== 'boolean')).toEqual([]);
    expect(Object.keys(policy).filter((name) => !withScripts.has(name))).toEqual([]);
    expect(policy['onnxruntime-node']).toBe(false);
  });
});
