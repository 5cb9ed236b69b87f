#!/usr/bin/env node
// The `splade-lab` command: runs src/cli/main.ts with the same sources the page uses.
import './register-hooks.mjs';

const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
