import { RecordingTracer } from '@agent-memory/test-support/recording-tracer';
import { InvalidMessageError } from '../core/errors';
import { userMessage } from '../core/message';
import { simpleBackend } from '../simple';
import { instrumentBackend } from './instrumented.backend';
import type { MemoryOperationEvent } from './memory-observer.interface';

describe('instrumentBackend', () => {
  it('reports every call with its session and duration, and changes no result', async () => {
    const events: MemoryOperationEvent[] = [];
    const tracer = new RecordingTracer();
    const raw = simpleBackend({ capacity: 100 });
    const backend = instrumentBackend(raw, {
      observer: { operation: (e) => events.push(e) },
      tracer,
    });
    expect(backend.kind).toBe('simple');

    const store = await backend.open('s-1');
    await store.save([userMessage('hello'), userMessage('there')]);
    expect(await store.retrieve()).toEqual(await (await raw.open('s-1')).retrieve());
    expect((await backend.inspect('s-1'))!.messages).toBe(2);
    expect((await backend.list({})).items.map((i) => i.id)).toEqual(['s-1']);

    expect(events.map((e) => [e.operation, e.sessionId, e.errorCode])).toEqual([
      ['open', 's-1', null],
      ['save', 's-1', null],
      ['retrieve', 's-1', null],
      ['inspect', 's-1', null],
      ['list', null, null],
    ]);
    expect(events.every((e) => e.backend === 'simple' && e.durationMs >= 0)).toBe(true);
    expect(tracer.spans.map((s) => s.name)).toEqual([
      'memory.open',
      'memory.save',
      'memory.retrieve',
      'memory.inspect',
      'memory.list',
    ]);
    expect(tracer.spans[1]!.attributes).toEqual({
      'memory.backend': 'simple',
      'memory.operation': 'save',
      'memory.session_id': 's-1',
    });
    expect(tracer.spans.every((s) => s.ended && s.status === null)).toBe(true);
  });

  it('passes errors through unchanged and marks the span and event with their code', async () => {
    const events: MemoryOperationEvent[] = [];
    const tracer = new RecordingTracer();
    const backend = instrumentBackend(simpleBackend({ capacity: 100 }), {
      observer: { operation: (e) => events.push(e) },
      tracer,
    });
    const store = await backend.open('s-2');
    const bad = { role: 'nobody', parts: [] } as never;
    const error = await store.save([bad]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidMessageError);
    expect(events.at(-1)).toMatchObject({ operation: 'save', errorCode: 'INVALID_MESSAGE' });
    const span = tracer.spans.at(-1)!;
    expect(span.status).toMatchObject({ code: 2, message: 'INVALID_MESSAGE' });
    expect(span.attributes['memory.error_code']).toBe('INVALID_MESSAGE');
    // The span carries the error's name, not its message (which may quote stored text).
    expect(span.exceptions).toEqual([{ name: 'InvalidMessageError', message: 'INVALID_MESSAGE' }]);
    expect(await store.retrieve()).toEqual([]);
  });

  it('survives an observer that throws', async () => {
    const backend = instrumentBackend(simpleBackend({ capacity: 10 }), {
      observer: {
        operation: () => {
          throw new Error('observer bug');
        },
      },
    });
    const store = await backend.open('s-3');
    await store.save([userMessage('kept')]);
    expect(await store.retrieve()).toHaveLength(1);
  });
});
