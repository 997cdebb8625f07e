/**
 * A retention sweep against writers, on JSON files, PostgreSQL and NATS through the admin server:
 * idle sessions, writers appending into them while `POST /api/retention/sweep {"dryRun": false}`
 * runs, then every acknowledged append is read back (none may be lost); and three sweeps sent at
 * once, whose receipts together may list each idle session once. Sizes: `reliability-scale.ts`.
 * Unlike the forced races of `apps/api/test/api.retention-safety.e2e-spec.ts`, the timing here
 * is whatever the machine gives; it measures, and fails on any loss.
 */
import {
  startTestServer,
  backendEnv,
  userText,
  type BackendEnv,
  type TestServer,
} from '../../apps/api/test/support/api-test-server';
import { FULL } from './reliability-scale';

const IDLE_SESSIONS = FULL ? 200 : 40;
const WRITERS = 8;
const RUNS = FULL ? 3 : 1;
const IDLE_MS = 2000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface RunResult {
  /** Sessions the sweep expired. */
  expired: number;
  /** Appends answered 201 while the sweep ran (and just after). */
  acked: number;
  /**
   * Appends sent less than the idle time before the sweep answered: their session was never idle
   * long enough when the sweep judged it after them, so none of them may be missing.
   */
  protectedAppends: number;
  lost: number;
  /**
   * Earlier appends missing because the sweep judged their session idle again (nothing written
   * for over the idle time before it got there): the policy, not a loss.
   */
  expiredByPolicy: number;
}

describe.each(['jsonfile', 'postgres', 'nats'] as const)('retention sweeps on %s', (kind) => {
  let data: BackendEnv;
  let api: TestServer;
  beforeAll(async () => {
    data = backendEnv(kind);
    api = await startTestServer({
      ...data.env,
      MEMORY_RETENTION_MAX_IDLE: `${IDLE_MS / 1000}s`,
      MEMORY_RETENTION_SWEEP_INTERVAL: '1h',
    });
  });
  afterAll(async () => {
    await api.dispose();
    await data.cleanup();
  });

  async function seedIdle(prefix: string): Promise<string[]> {
    const ids = Array.from({ length: IDLE_SESSIONS }, (_, i) => `${prefix}-${i}`);
    for (let i = 0; i < ids.length; i += 20) {
      const answers = await Promise.all(
        ids.slice(i, i + 20).map((id) => api.append(id, [userText(`${id}#seed`)])),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    }
    await pause(IDLE_MS + 300);
    return ids;
  }

  it(`loses no acknowledged append to a sweep (${RUNS} run(s), ${IDLE_SESSIONS} idle sessions, ${WRITERS} writers)`, async () => {
    const results: RunResult[] = [];
    for (let run = 0; run < RUNS; run++) {
      const ids = await seedIdle(`run${run}`);
      const acked: { id: string; text: string; sentAt: number }[] = [];
      let stopping = false;
      const writer = async (w: number) => {
        for (let n = 0; !stopping; n++) {
          const id = ids[(w * 7919 + n * 31) % ids.length]!;
          const text = `${id}#w${w}n${n}`;
          const sentAt = Date.now();
          const answer = await api.append(id, [userText(text)]);
          if (answer.status !== 201) throw new Error(`append answered ${answer.status}`);
          await answer.arrayBuffer();
          acked.push({ id, text, sentAt });
        }
      };
      const writing = Array.from({ length: WRITERS }, (_, w) => writer(w));
      const swept = await api.request('/api/retention/sweep', {
        method: 'POST',
        json: { dryRun: false },
      });
      expect(swept.status).toBe(200);
      const sweptAt = Date.now();
      const { expired } = (await swept.json()) as { expired: string[] };
      stopping = true;
      await Promise.all(writing);

      const kept = new Map<string, Set<string>>();
      for (const id of new Set(acked.map((a) => a.id))) {
        const page = (await (
          await api.request(`/api/sessions/${id}/messages?limit=500`)
        ).json()) as {
          items?: { message: { parts: { text: string }[] } }[];
        };
        kept.set(id, new Set((page.items ?? []).map((e) => e.message.parts[0]!.text)));
      }
      // A session written at or after `sentAt` was idle for less than `sweptAt - sentAt` whenever
      // the sweep looked at it after that write (100 ms kept for the clocks' granularity).
      const isProtected = (a: (typeof acked)[number]) => sweptAt - a.sentAt < IDLE_MS - 100;
      const missing = acked.filter((a) => !kept.get(a.id)!.has(a.text));
      results.push({
        expired: expired.length,
        acked: acked.length,
        protectedAppends: acked.filter(isProtected).length,
        lost: missing.filter(isProtected).length,
        expiredByPolicy: missing.filter((a) => !isProtected(a)).length,
      });
    }
    console.log(`${kind}: retention sweep against ${WRITERS} writers: ${JSON.stringify(results)}`);
    expect(results.map((r) => r.lost)).toEqual(results.map(() => 0));
  }, 180_000);

  it('three sweeps at once: the receipts list each idle session once', async () => {
    const ids = await seedIdle('three');
    const answers = await Promise.all(
      [0, 1, 2].map(() =>
        api.request('/api/retention/sweep', { method: 'POST', json: { dryRun: false } }),
      ),
    );
    const expired: string[] = [];
    let busy = 0;
    for (const answer of answers) {
      const body = (await answer.json()) as { expired?: string[]; code?: string };
      if (answer.status === 409) {
        expect(body.code).toBe('RETENTION_SWEEP_BUSY');
        busy++;
      } else {
        expect(answer.status).toBe(200);
        expired.push(...body.expired!);
      }
    }
    const ours = expired.filter((id) => ids.includes(id));
    console.log(
      `${kind}: three sweeps at once on ${ids.length} idle sessions: ${answers.length - busy} ran, ${busy} busy, ${ours.length} of them expired, ${expired.length - new Set(expired).size} listed twice`,
    );
    expect([...ours].sort()).toEqual([...ids].sort());
    expect(new Set(expired).size).toBe(expired.length);
  }, 60_000);
});
