import { JsonFileMemory, userMessage, assistantMessage } from '@agent-memory/memory';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { texts } from '../../../../test/conformance/fixtures';
import { STORE_PROCESS_SCRIPT, storeProcessArgs } from '../../../../test/support/store-process';

const repoRoot = resolve(__dirname, '../../../..');
const childScript = STORE_PROCESS_SCRIPT;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-jsonfile-xproc-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Child {
  ready: Promise<void>;
  /** The last line the child printed, parsed, once it exited with 0. */
  result: Promise<Record<string, unknown>>;
  go(): void;
}

/** Starts the child script as a real node process, from the repo root so the path aliases resolve. */
function startChild(args: string[]): Child {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['-r', '@swc-node/register', childScript, ...args],
    {
      cwd: repoRoot,
      stdio: 'pipe',
    },
  );
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const reader = createInterface({ input: child.stdout });
  const ready = new Promise<void>((resolveReady) => {
    reader.on('line', (line) => {
      if (line === 'ready') resolveReady();
      else lines.push(line);
    });
  });
  const result = new Promise<Record<string, unknown>>((resolveResult, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0 && lines.length > 0) resolveResult(JSON.parse(lines[lines.length - 1]!));
      else reject(new Error(`child ${args.join(' ')} exited with ${code}: ${stderr}`));
    });
  });
  return { ready, result, go: () => child.stdin.end('go\n') };
}

async function runTogether(children: Child[]): Promise<Array<Record<string, unknown>>> {
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.go();
  return Promise.all(children.map((c) => c.result));
}

describe('JsonFileMemory across processes', () => {
  it('loses nothing when 4 processes each save 50 turns to one file', async () => {
    const file = join(dir, 'shared.json');
    const writers = ['0', '1', '2', '3'];
    await runTogether(
      writers.map((w) =>
        startChild(storeProcessArgs('writer', { kind: 'jsonfile', file }, '', w, 50)),
      ),
    );

    const got = texts(await (await JsonFileMemory.open(file)).retrieve());
    expect(got).toHaveLength(400);
    for (let i = 0; i < got.length; i += 2) expect(got[i + 1]).toBe(got[i]!.replace('-q', '-a'));
    for (const w of writers) {
      const mine = got.filter((t) => t.startsWith(`w${w}-q`));
      expect(mine).toEqual(Array.from({ length: 50 }, (_, i) => `w${w}-q${i}`));
    }
    expect(await JsonFileMemory.inspect(file)).toMatchObject({ messages: 400, stored: 400 });
    expect(readdirSync(dir).sort()).toEqual(['shared.json', 'shared.log-1.jsonl']);
  }, 120_000);

  it('lets exactly one of two processes racing saveSnapshot with the same prev win', async () => {
    const file = join(dir, 'race.json');
    const memory = await JsonFileMemory.open(file);
    await memory.save([
      userMessage('u0'),
      assistantMessage('a1'),
      userMessage('u2'),
      assistantMessage('a3'),
    ]);
    const racers = ['2', '3'];
    const results = await runTogether(
      racers.map((upTo) =>
        startChild(
          storeProcessArgs('snapshot-racer', { kind: 'jsonfile', file }, '', upTo, `by ${upTo}`),
        ),
      ),
    );

    const outcomes = results.map((r) => r.outcome).sort();
    expect(outcomes).toEqual(['lost', 'won']);
    expect(results.find((r) => r.outcome === 'lost')?.code).toBe('SNAPSHOT_CONFLICT');
    const winner = racers[results.findIndex((r) => r.outcome === 'won')];
    const { snapshot } = await memory.loadSnapshot();
    expect(snapshot?.summary).toBe(`by ${winner}`);
  }, 60_000);
});
