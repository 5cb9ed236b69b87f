// Lets plain Node run the TypeScript sources: tsx for .ts, and `*.wgsl?raw` and `*.py?raw` imports as Vite serves them.
import { register } from 'node:module';
import { register as registerTypeScript } from 'tsx/esm/api';

registerTypeScript();
register('./raw-hooks.mjs', import.meta.url);
