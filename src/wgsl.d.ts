// Lets TypeScript see `import source from '.../x.wgsl?raw'` (Vite natively, Node through src/cli/wgsl-loader.ts).
declare module '*.wgsl?raw' {
  const source: string;
  export default source;
}
