// The real-data tier (`npm run test:data -- <folder>`): checks on sets that may not be redistributed, read from the
// folder in SPLADE_LAB_DATA (scripts/test-data.mjs sets it), never from the repository.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

export default defineConfig({ ...base, test: { ...base.test, include: ['tests/data/**/*.test.ts'] } });
