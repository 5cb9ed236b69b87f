#!/usr/bin/env node
// The `splade-lab` command: runs src/cli/main.ts with the same sources the page uses.
import './register-hooks.mjs';

// A closed pipe (`splade-lab tokenize ... | head -1`) ends the command quietly, as Unix tools do.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
