import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let version: string | undefined;

/** `@agent-memory/memory`'s version, read once from its package.json (beside `src` and `dist`). */
export function packageVersion(): string {
  if (version === undefined) {
    try {
      const manifest = readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8');
      version = (JSON.parse(manifest) as { version?: string }).version ?? '0.0.0';
    } catch {
      version = '0.0.0';
    }
  }
  return version;
}
