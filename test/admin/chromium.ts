/**
 * Debian's chromium for the browser tests, driven by playwright-core. Installed with apt when it is
 * missing (under `flock /tmp/apt.lock`, so parallel set-ups do not collide); never downloaded by
 * playwright itself.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Installs Debian's chromium when it is not there. @throws when apt fails. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  execFileSync(
    'flock',
    ['/tmp/apt.lock', 'apt-get', 'install', '-y', '--no-install-recommends', 'chromium'],
    { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } },
  );
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`apt installed chromium, but ${CHROMIUM_PATH} is missing`);
  return CHROMIUM_PATH;
}

/** Headless chromium with the flags this machine needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
