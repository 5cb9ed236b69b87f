// @web/dev-server plugin: serves `*.wgsl?raw` and `*.py?raw` as a module whose default export is the file's text (as
// Vite does).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

export function rawImportPlugin() {
  return {
    name: 'raw-import',
    async serve(context) {
      if (/\.(wgsl|py)$/.test(context.path) && context.URL.searchParams.has('raw')) {
        const text = await readFile(resolve('.' + context.path), 'utf8');
        return { body: `export default ${JSON.stringify(text)};`, type: 'js' };
      }
    },
  };
}
