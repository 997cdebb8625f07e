import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An inline `<script>` (no `src`) and its body. The dashboard's `index.html` is our own build's
 * output (apps/admin `vite.inline.mts` writes its one inline script), so a pattern reads it; no
 * HTML parser is needed for that one file.
 */
const INLINE_SCRIPT = /<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi;

/**
 * The CSP sources (`'sha256-…'`) that allow exactly the inline scripts of `html`, as the
 * browser hashes them (the script's text as UTF-8).
 */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(INLINE_SCRIPT)].map(
    ([, body]) => `'sha256-${createHash('sha256').update(body!, 'utf8').digest('base64')}'`,
  );
}

/**
 * The CSP sources for the inline scripts of the dashboard's built `index.html` in `distDir`, read
 * once at start-up (none when the dashboard is not built). A rebuild while the server runs needs
 * a restart for its new script to run; the app still loads without it, only later.
 */
export function dashboardScriptHashes(distDir: string): string[] {
  const index = join(distDir, 'index.html');
  return existsSync(index) ? inlineScriptHashes(readFileSync(index, 'utf8')) : [];
}
