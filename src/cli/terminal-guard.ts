// Everything the CLI writes passes one guard: a control character that came from a file (a run name, an id, a tensor
// name, a line quoted in a message) is escaped, so that no file can drive the terminal that shows it.
import { printable } from '../util/printable.ts';

/** The controls the CLI's own output formats use: line ends, trec_eval's tabs and the progress lines' carriage return. */
const FORMAT_CONTROLS = '\n\t\r';

/**
 * Escapes (util/printable.ts) every other control character in the text written to stdout and stderr until the
 * returned function is called. Commands also escape the file-derived strings they lay out (a table cell, a warning),
 * tabs and line ends included; this is the net under all of them. Bytes (which the CLI never writes) pass as they are.
 */
export function guardTerminalOutput(): () => void {
  const restores = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write;
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      const text = typeof chunk === 'string' ? printable(chunk, FORMAT_CONTROLS) : chunk;
      return (write as (...args: unknown[]) => boolean).call(this, text, ...rest);
    } as typeof stream.write;
    return () => void (stream.write = write);
  });
  return () => restores.forEach((restore) => restore());
}
