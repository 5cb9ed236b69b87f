// The splade-lab CLI run inside the e2e file's own process: its calls share one Node GPU device, so a command compiles
// none of the pipelines an earlier one compiled (a fresh `node bin/splade-lab.mjs` compiles them all again).
import { runCliCaptured } from '../helpers/cli-capture.ts';

/** What `splade-lab ...argv` writes to stdout; a non-zero exit throws with what it wrote to stderr. */
export async function cliStdout(...argv: string[]): Promise<string> {
  const { code, stdout, stderr } = await runCliCaptured(argv);
  if (code !== 0) throw new Error(`splade-lab ${argv.join(' ')} exited with ${code}:\n${stderr}`);
  return stdout;
}
