// The splade-lab CLI run inside the e2e file's own process: its calls share one Node GPU device, so a command compiles
// none of the pipelines an earlier one compiled (a fresh `node bin/splade-lab.mjs` compiles them all again).
import { main } from '../../src/cli/main.ts';

/** What `splade-lab ...argv` writes to stdout; a non-zero exit throws with what it wrote to stderr. */
export async function cliStdout(...argv: string[]): Promise<string> {
  let stdout = '';
  let stderr = '';
  const text = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  const writes = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += text(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += text(chunk)), true)) as typeof process.stderr.write;
  let code: number;
  try {
    code = await main(argv);
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
  }
  if (code !== 0) throw new Error(`splade-lab ${argv.join(' ')} exited with ${code}:\n${stderr}`);
  return stdout;
}
