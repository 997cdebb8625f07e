/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { inlineEarlyScript, inlineStylesheets } from './vite.inline.mjs';
import { precompress, prefetchDynamicEntries } from './vite.precompress.mjs';

/**
 * The dashboard's build (`apps/admin/dist`, served by apps/api at `/`), its dev server
 * (`npm run dev:admin`: proxies `/api` and `/health` to `ADMIN_API_URL`, default
 * `http://127.0.0.1:3000`) and its component tests (vitest on jsdom).
 */
const apiUrl = process.env.ADMIN_API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [
    react(),
    inlineEarlyScript('/src/early-load.ts'),
    inlineStylesheets(),
    prefetchDynamicEntries(['src/app/boot.tsx', 'src/app/session-page.tsx']),
    precompress(),
  ],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: {
    proxy: {
      '/api': { target: apiUrl, changeOrigin: true },
      '/health': { target: apiUrl, changeOrigin: true },
    },
  },
  test: {
    root: import.meta.dirname,
    environment: 'jsdom',
    include: ['src/**/*.test.tsx', 'src/**/*.test.ts'],
    setupFiles: ['./src/test/setup.ts'],
  },
});
