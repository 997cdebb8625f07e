/**
 * `AgentMemorySession` as the SDK's `Session` and transactional history, on every store, checked
 * against the SDK's own in-memory session: the same operations give the same items.
 */
import {
  jsonFileHarness,
  natsHarness,
  postgresHarness,
  simpleHarness,
  type ConformanceHarness,
} from '@agent-memory/test-conformance';
import { MemorySession, type AgentInputItem } from '@openai/agents';
import { ExtractiveSummarizer, SummaryCompactor } from '../compaction';
import {
  ConcurrentUpdateError,
  IdempotencyKeyReusedError,
  SUMMARY_PREFIX,
  type MemoryBackend,
} from '../core';
import { AgentMemorySession } from '.';

const user = (text: string): AgentInputItem => ({ type: 'message', role: 'user', content: text });
const answer = (text: string): AgentInputItem => ({
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text }],
});
const call = (id: string): AgentInputItem => ({
  type: 'function_call',
  callId: id,
  name: 'weather',
  arguments: '{"city":"Oslo"}',
});
const result = (id: string): AgentInputItem => ({
  type: 'function_call_result',
  name: 'weather',
  callId: id,
  status: 'completed',
  output: { type: 'text', text: 'rain' },
});
/** One turn whose text and tool call are stored as one assistant message. */
const turn = (n: number): AgentInputItem[] => [
  user(`question ${n}`),
  answer(`let me check ${n}`),
  call(`call_${n}`),
  result(`call_${n}`),
  answer(`answer ${n}`),
];

describe.each<[string, () => ConformanceHarness]>([
  ['in-process', simpleHarness],
  ['JSON files', jsonFileHarness],
  ['PostgreSQL', postgresHarness],
  ['NATS', natsHarness],
])('AgentMemorySession on %s', (_name, makeHarness) => {
  const harness = makeHarness();
  let backend: MemoryBackend;
  let destroy: () => Promise<void>;
  let counter = 0;
  const open = (id: string) => AgentMemorySession.open(backend, id);
  const newId = () => `agents.s${++counter}`;

  beforeAll(async () => {
    ({ backend, destroy } = await harness.create());
  });
  afterAll(async () => {
    await destroy?.();
    await harness.destroy?.();
  });

  it('pops the newest item, one at a time, as the SDK session does (also inside one stored message)', async () => {
    const id = newId();
    const ours = await open(id);
    const reference = new MemorySession();
    for (const session of [ours, reference]) await session.addItems(turn(1));

    for (let i = 0; i < 3; i++) expect(await ours.popItem()).toEqual(await reference.popItem());
    // A new object reads the store: the pops are stored, not remembered.
    expect(await (await open(id)).getItems()).toEqual(await reference.getItems());
    expect(await (await open(id)).getItems()).toEqual([
      user('question 1'),
      answer('let me check 1'),
    ]);

    await ours.addItems([answer('again')]);
    await reference.addItems([answer('again')]);
    expect(await ours.getItems()).toEqual(await reference.getItems());
    expect(await ours.getItems(2)).toEqual([answer('let me check 1'), answer('again')]);
    expect(await ours.getItems(0)).toEqual([]);

    for (let i = 0; i < 3; i++) await ours.popItem();
    expect(await ours.popItem()).toBeUndefined();
    expect(await ours.getItems()).toEqual([]);
  });

  it('two sessions popping at once remove two different items', async () => {
    const id = newId();
    await (await open(id)).addItems([user('a'), answer('b'), user('c'), answer('d')]);
    const [first, second] = await Promise.all([
      (await open(id)).popItem(),
      (await open(id)).popItem(),
    ]);
    expect([first, second]).toEqual(expect.arrayContaining([answer('d'), user('c')]));
    expect(await (await open(id)).getItems()).toEqual([user('a'), answer('b')]);
  });

  it('clearSession empties the session; the next items start a fresh history', async () => {
    const id = newId();
    const session = await open(id);
    await session.addItems(turn(1));
    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await backend.inspect(id)).toBeNull();
    await session.addItems([user('new')]);
    expect(await (await open(id)).getItems()).toEqual([user('new')]);
  });

  it('applies an append once per operation id; another transaction under that id is refused', async () => {
    const id = newId();
    const session = await open(id);
    const append = {
      operationId: 'run-1:1:append:0:5',
      transaction: { type: 'append_items' as const, items: turn(1) },
    };
    await session.applyHistoryTransaction(append);
    await (await open(id)).applyHistoryTransaction(append); // a retry, from another object
    expect(await session.getItems()).toEqual(turn(1));

    await expect(
      session.applyHistoryTransaction({
        operationId: append.operationId,
        transaction: { type: 'append_items', items: [user('other')] },
      }),
    ).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    expect(await session.getItems()).toEqual(turn(1));
  });

  it('replaces a matching suffix atomically and once; a stale suffix changes nothing', async () => {
    const id = newId();
    const session = await open(id);
    const replace = {
      operationId: 'run-2:1:accepted_replace:3:5',
      transaction: {
        type: 'replace_suffix' as const,
        // Cuts into the stored message that holds both the text and the call.
        expectedSuffix: [call('call_1'), result('call_1'), answer('answer 1')],
        replacement: [call('call_1'), result('call_1'), answer('answer 1, corrected')],
      },
    };
    await session.addItems(turn(1));
    await session.applyHistoryTransaction(replace);
    const replaced = [...turn(1).slice(0, 4), answer('answer 1, corrected')];
    expect(await session.getItems()).toEqual(replaced);
    await (await open(id)).applyHistoryTransaction(replace); // retried after success: no change
    expect(await (await open(id)).getItems()).toEqual(replaced);

    const before = await session.getItems();
    await expect(
      session.applyHistoryTransaction({
        operationId: 'run-2:2:accepted_replace:3:5',
        transaction: {
          type: 'replace_suffix',
          expectedSuffix: [answer('answer 1')],
          replacement: [answer('never stored')],
        },
      }),
    ).rejects.toBeInstanceOf(ConcurrentUpdateError);
    expect(await session.getItems()).toEqual(before);
    await expect(
      session.applyHistoryTransaction({
        operationId: replace.operationId,
        transaction: { ...replace.transaction, replacement: [answer('other')] },
      }),
    ).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    expect(await session.getItems()).toEqual(before);
  });

  it('a replacement decided on a state another writer changed meanwhile takes no effect', async () => {
    const id = newId();
    const session = await open(id);
    await session.addItems([user('a'), answer('b')]);
    const store = await backend.open(id);
    // Another process appends between this session's read and its write.
    const load = store.loadSnapshot.bind(store);
    let raced = false;
    const racing = async (...args: Parameters<typeof load>) => {
      const state = await load(...args);
      if (!raced) {
        raced = true;
        await (await open(id)).addItems([user('meanwhile')]);
      }
      return state;
    };
    (session as unknown as { store: typeof store }).store = new Proxy(store, {
      get: (target, property) => {
        if (property === 'loadSnapshot') return racing;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await expect(
      session.applyHistoryTransaction({
        operationId: 'op-race',
        transaction: {
          type: 'replace_suffix',
          expectedSuffix: [answer('b')],
          replacement: [answer('b2')],
        },
      }),
    ).rejects.toBeInstanceOf(ConcurrentUpdateError);
    expect(await (await open(id)).getItems()).toEqual([user('a'), answer('b'), user('meanwhile')]);
  });

  it('compaction summarises only items in effect; popping never removes the summary', async () => {
    const id = newId();
    const compactor = new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent: 1 });
    const session = await AgentMemorySession.open(backend, id, {
      compaction: { compactor, thresholdTokens: 1 },
    });
    await session.addItems([
      user('We will ship the release on Friday.'),
      answer('Noted: the release ships on Friday.'),
      user('The password is hunter2.'),
    ]);
    expect(await session.popItem()).toEqual(user('The password is hunter2.'));
    await session.addItems([user('Which day do we ship?'), answer('Friday.')]);
    await session.runCompaction({ force: true });

    const { snapshot } = await (await backend.open(id)).loadSnapshot();
    expect(snapshot?.summary).toBeDefined();
    expect(JSON.stringify(snapshot)).not.toContain('hunter2');
    const items = await session.getItems();
    expect(JSON.stringify(items[0])).toContain(SUMMARY_PREFIX.trim());
    expect(items[items.length - 1]).toEqual(answer('Friday.'));

    while ((await session.getItems()).length > 0 && (await session.popItem()) !== undefined);
    expect(JSON.stringify(await session.getItems())).toContain(SUMMARY_PREFIX.trim());
  });
});
