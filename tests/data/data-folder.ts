// Where the real-data tier reads from: the folder `npm run test:data -- <folder>` names (SPLADE_LAB_DATA), never a path
// of its own. Its sets (SciFact, MS MARCO) may not be redistributed, so they are never copied into the repository.
import { join } from 'node:path';

export function dataPath(relative: string): string {
  const folder = process.env.SPLADE_LAB_DATA;
  if (!folder) throw new Error('SPLADE_LAB_DATA is not set: run this tier with `npm run test:data -- <folder>`');
  return join(folder, relative);
}
