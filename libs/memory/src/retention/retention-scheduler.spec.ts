import { userMessage } from '../core/message';
import { simpleBackend } from '../simple/simple.backend';
import { RetentionScheduler } from './retention-scheduler';
import { RetentionSweeper, type RetentionSweepResult } from './retention-sweeper';

const waitFor = async (done: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('RetentionScheduler', () => {
  it('sweeps every interval until stopped, and says when the next sweep starts', async () => {
    const backend = simpleBackend({ capacity: 10 });
    await (await backend.open('old')).save([userMessage('hi')]);
    const swept: RetentionSweepResult[] = [];
    // The sweeper's clock runs an hour ahead: every session is idle past maxIdle.
    const sweeper = new RetentionSweeper(backend, {
      policy: { maxIdle: '1m', action: 'delete' },
      now: () => Date.now() + 3_600_000,
    });
    const scheduler = new RetentionScheduler(sweeper, {
      intervalMs: 20,
      onSwept: (result) => swept.push(result),
    });
    expect(scheduler.nextSweepAt).toBeNull();
    const before = Date.now();
    scheduler.start();
    expect(scheduler.nextSweepAt).toBeGreaterThanOrEqual(before + 20);

    await waitFor(() => swept.length >= 2);
    expect(swept[0].expired).toEqual(['old']);
    expect(swept[1].expired).toEqual([]);
    expect(await backend.inspect('old')).toBeNull();

    await scheduler.stop();
    expect(scheduler.nextSweepAt).toBeNull();
    const count = swept.length;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(swept.length).toBe(count);
  });

  it('stop() ends a running sweep between two sessions without reporting an error', async () => {
    const backend = simpleBackend({ capacity: 10 });
    for (const id of ['a', 'b', 'c']) await (await backend.open(id)).save([userMessage(id)]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let listing = false;
    const slow = new Proxy(backend, {
      get(target, property, receiver) {
        if (property !== 'list') return Reflect.get(target, property, receiver);
        return async (q: Parameters<typeof backend.list>[0]) => {
          listing = true;
          await held;
          return target.list(q);
        };
      },
    });
    const errors: unknown[] = [];
    const scheduler = new RetentionScheduler(
      new RetentionSweeper(slow, {
        policy: { maxIdle: '1m', action: 'delete' },
        now: () => Date.now() + 3_600_000,
      }),
      { intervalMs: 10, onError: (error) => errors.push(error) },
    );
    scheduler.start();
    await waitFor(() => listing);
    const stopped = scheduler.stop();
    release();
    await stopped;
    expect(errors).toEqual([]);
    expect((await backend.list({})).items).toHaveLength(3);
  });

  it('refuses an interval that is not a positive whole number of ms', () => {
    const sweeper = new RetentionSweeper(simpleBackend({ capacity: 1 }), {
      policy: { maxAge: '1d', action: 'delete' },
    });
    expect(() => new RetentionScheduler(sweeper, { intervalMs: 0 })).toThrow(/interval/);
  });
});
