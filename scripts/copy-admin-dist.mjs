// Part of `npm run build`: copies the dashboard's build (apps/admin/dist, made by build-admin.mjs)
// to dist/apps/admin/dist, where the compiled server looks for it (ADMIN_DIST_DIR resolves to
// dist/apps/api/src/../../admin/dist once compiled). Source maps stay behind.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'apps', 'admin', 'dist');
const to = join(root, 'dist', 'apps', 'admin', 'dist');

if (!existsSync(join(from, 'index.html'))) {
  console.error('apps/admin/dist/index.html is missing: run "npm run build:admin" first');
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true, filter: (path) => !path.endsWith('.map') });
console.log('dashboard copied to dist/apps/admin/dist');
