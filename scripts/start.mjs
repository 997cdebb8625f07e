// `npm start`: runs the admin server from the TypeScript sources, no build step. @swc-node/register
// compiles on load with the repo's tsconfig (decorator metadata and the `@agent-memory/*` path
// aliases included). `npm run start:dev` runs this under `node --watch`, restarting on changes.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.env.SWC_NODE_PROJECT ??= join(root, 'tsconfig.json');
const require = createRequire(import.meta.url);
(await import('./build-admin.mjs')).ensureAdminBuild();
require('@swc-node/register');
require(join(root, 'apps', 'api', 'src', 'main.ts'));
