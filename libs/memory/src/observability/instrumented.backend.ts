import { SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { MemoryBackend } from '../core/backend.interface';
import { MemoryError } from '../core/errors';
import type { SessionStore } from '../core/memory.interface';
import type { WrappingBackend } from '../core/wrapping-backend';
import type { MemoryObserver } from './memory-observer.interface';

/** The tracer name the spans are created under. */
export const MEMORY_TRACER_NAME = '@agent-memory/memory';

/** Options of {@link instrumentBackend}. */
export interface InstrumentBackendOptions {
  /** Told about every call (metrics, logs). */
  observer?: MemoryObserver;
  /**
   * Where spans go; default the global tracer provider's tracer {@link MEMORY_TRACER_NAME}
   * (`@opentelemetry/api`): a no-op until the application registers an OpenTelemetry SDK.
   */
  tracer?: Tracer;
}

/** Backend methods that are not about one session. */
const BACKEND_WIDE = new Set(['list', 'check', 'close']);

/**
 * A {@link MemoryBackend} decorator: every call on the backend and on the stores it opens is
 * timed and reported to `observer` (backend kind, operation, session id, duration, error code),
 * and runs inside an OpenTelemetry span `memory.<operation>` (attributes `memory.backend`,
 * `memory.operation`, `memory.session_id`, `memory.error_code`; status ERROR on failure). The
 * stores themselves are unchanged: results, errors and `this` are theirs. Message contents are
 * never reported. `unwrap()` returns `backend`.
 */
export function instrumentBackend(
  backend: MemoryBackend,
  options: InstrumentBackendOptions = {},
): WrappingBackend {
  const tracer = options.tracer ?? trace.getTracer(MEMORY_TRACER_NAME);
  const observe = (operation: string, sessionId: string | null, call: () => unknown) =>
    instrumentCall(tracer, options.observer, backend.kind, operation, sessionId, call);
  const unwrap = () => backend;
  return new Proxy(backend as WrappingBackend, {
    get(target, property, receiver) {
      if (property === 'unwrap') return unwrap;
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || typeof value !== 'function') return value;
      if (property === 'open') {
        return (sessionId: string) =>
          (observe('open', sessionId, () => target.open(sessionId)) as Promise<SessionStore>).then(
            (store) => instrumentStore(store, sessionId, observe),
          );
      }
      return (...args: unknown[]) =>
        observe(
          property,
          BACKEND_WIDE.has(property) || typeof args[0] !== 'string' ? null : args[0],
          () => (value as (...a: unknown[]) => unknown).apply(target, args),
        );
    },
  });
}

function instrumentStore(
  store: SessionStore,
  sessionId: string,
  observe: (operation: string, sessionId: string | null, call: () => unknown) => unknown,
): SessionStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        observe(property, sessionId, () =>
          (value as (...a: unknown[]) => unknown).apply(target, args),
        );
    },
  });
}

/**
 * Runs `call` in a span and reports it once it settles. Calls that return no promise (plain
 * getters) are passed through untimed.
 */
function instrumentCall(
  tracer: Tracer,
  observer: MemoryObserver | undefined,
  backend: MemoryBackend['kind'],
  operation: string,
  sessionId: string | null,
  call: () => unknown,
): unknown {
  return tracer.startActiveSpan(
    `memory.${operation}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'memory.backend': backend,
        'memory.operation': operation,
        ...(sessionId !== null ? { 'memory.session_id': sessionId } : {}),
      },
    },
    (span) => {
      const startedAt = performance.now();
      const finish = (error: unknown, failed: boolean) => {
        const errorCode = failed ? codeOf(error) : null;
        endSpan(span, error, errorCode);
        try {
          observer?.operation({
            backend,
            operation,
            sessionId,
            durationMs: performance.now() - startedAt,
            errorCode,
          });
        } catch {
          // An observer must not break the call it observes.
        }
      };
      let result: unknown;
      try {
        result = call();
      } catch (error) {
        finish(error, true);
        throw error;
      }
      if (!isPromise(result)) {
        span.end();
        return result;
      }
      return result.then(
        (value) => {
          finish(null, false);
          return value;
        },
        (error: unknown) => {
          finish(error, true);
          throw error;
        },
      );
    },
  );
}

function endSpan(span: Span, error: unknown, errorCode: string | null): void {
  if (errorCode !== null) {
    span.setAttribute('memory.error_code', errorCode);
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode });
    // The error's name only: a message may quote stored text.
    span.recordException({
      name: error instanceof Error ? error.name : 'Error',
      message: errorCode,
    });
  }
  span.end();
}

function codeOf(error: unknown): string {
  return error instanceof MemoryError ? error.code : 'UNKNOWN';
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | null)?.then === 'function';
}
