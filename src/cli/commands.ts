// The table of CLI commands; each command lives in its own module under src/cli/.
import type { Command } from './command.ts';

export const commands: Record<string, Command> = {};
