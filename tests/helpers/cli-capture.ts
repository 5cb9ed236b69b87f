// Runs the splade-lab CLI in the calling process and captures what it writes to stdout and stderr (no test runner
// needed: the Node suites and the e2e files both use it).
import { main } from '../../src/cli/main.ts';

export async function runCliCaptured(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const text = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  const writes = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += text(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += text(chunk)), true)) as typeof process.stderr.write;
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
  }
}
