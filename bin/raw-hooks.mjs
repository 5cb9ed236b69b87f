// Node module hooks: `import source from './x.wgsl?raw'` (a shader) or './x.py?raw' (a hand-off script) yields the
// file's text, exactly as Vite's ?raw does.
import { readFile } from 'node:fs/promises';

const RAW = /\.(wgsl|py)\?raw$/;

export async function resolve(specifier, context, nextResolve) {
  if (RAW.test(specifier) && context.parentURL) {
    return { url: new URL(specifier, context.parentURL).href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && RAW.test(url)) {
    const text = await readFile(new URL(url.slice(0, -'?raw'.length)), 'utf8');
    return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
  }
  return nextLoad(url, context);
}
