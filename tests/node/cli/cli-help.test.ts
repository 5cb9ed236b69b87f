// Every CLI command answers --help with its usage (exit 0, nothing run), and an unknown command is refused.
import { describe, expect, it } from 'vitest';
import { commands } from '../../../src/cli/commands.ts';
import { runCli } from '../../helpers/cli.ts';

describe('splade-lab --help', () => {
  it.each(Object.keys(commands))('%s --help prints its usage', async (name) => {
    const { code, stdout, stderr } = await runCli(name, '--help');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(new RegExp(`^usage: splade-lab ${name}`));
  });

  it('lists the commands, and refuses an unknown one with exit code 2', async () => {
    expect((await runCli('--help')).stdout).toMatch(/inspect[\s\S]*train/);
    const unknown = await runCli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
  });
});
