// Lets TypeScript see `import source from '.../x.wgsl?raw'` and `'.../x.py?raw'` (Vite natively, Node through
// bin/raw-hooks.mjs, the browser tests through scripts/raw-import-plugin.mjs).
declare module '*.wgsl?raw' {
  const source: string;
  export default source;
}

declare module '*.py?raw' {
  const source: string;
  export default source;
}
