// splade-lab command line: dispatches `splade-lab <command> [options]` to one module per command.
import { commands } from './commands.ts';

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    const list = Object.entries(commands)
      .map(([n, c]) => `  ${n.padEnd(10)} ${c.summary}`)
      .join('\n');
    const out = name && name !== '--help' && name !== 'help' ? process.stderr : process.stdout;
    out.write(`${name && name !== '--help' && name !== 'help' ? `unknown command "${name}"\n\n` : ''}usage: splade-lab <command> [options]\n\n${list}\n`);
    return name && name !== '--help' && name !== 'help' ? 2 : 0;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.usage ?? `usage: splade-lab ${name} [options]\n\n${command.summary}`}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    process.stderr.write(`splade-lab ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.SPLADE_LAB_DEBUG) console.error(error);
    return 1;
  }
}
