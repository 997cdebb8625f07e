/**
 * The long-term memory example: a fact told in one session of a user is recalled in a later,
 * new session of the same user (another process, the offline embedder), and never in another
 * user's session.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExample } from '@agent-memory/test-support/example-process';

describe('long-term memory example', () => {
  const dir = mkdtempSync(join(tmpdir(), 'long-term-example-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const say = (user: string, session: string, text: string) =>
    runExample('long-term-memory', ['--user', user, '--session', session, text], {
      env: { MEMORY_DIR: dir },
    });

  it("recalls a user's fact from an earlier session, for that user only", async () => {
    const monday = await say('ada', 'monday', 'I am allergic to peanuts, so no peanut snacks.');
    expect(monday.code).toBe(0);
    await say('ada', 'tuesday', 'Book a table for two in Lisbon on Saturday.');

    const friday = await say('ada', 'friday', 'Which snacks should I avoid?');
    expect(friday.stderr).toBe('');
    const given = friday.stdout.slice(friday.stdout.indexOf('--- the model is given:'));
    expect(given).toContain('Recalled from earlier conversation');
    expect(given).toContain('I am allergic to peanuts, so no peanut snacks.');
    expect(given).toContain('user: Which snacks should I avoid?');

    const bob = await say('bob', 'bob-1', 'Which snacks should I avoid?');
    expect(bob.code).toBe(0);
    expect(bob.stdout).not.toContain('Recalled from earlier conversation');
    expect(bob.stdout).not.toContain('peanuts');
  }, 180_000);
});
