/**
 * A tracer provider for tests that keeps every span it is given, implementing the
 * `@opentelemetry/api` interfaces directly (what an SDK would do, without an exporter).
 */
import {
  context,
  trace,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';

export interface RecordedSpan {
  name: string;
  attributes: Attributes;
  status: SpanStatus | null;
  exceptions: Exception[];
  ended: boolean;
  /** The span that was active when this one started, if any. */
  parentName: string | null;
}

class RecordingSpan implements Span {
  private readonly ids: SpanContext = {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: 1,
  };
  constructor(readonly record: RecordedSpan) {}
  spanContext(): SpanContext {
    return this.ids;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.record.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    Object.assign(this.record.attributes, attributes);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.record.status = status;
    return this;
  }
  updateName(name: string): this {
    this.record.name = name;
    return this;
  }
  end(): void {
    this.record.ended = true;
  }
  isRecording(): boolean {
    return !this.record.ended;
  }
  recordException(exception: Exception): void {
    this.record.exceptions.push(exception);
  }
}

export class RecordingTracer implements Tracer {
  readonly spans: RecordedSpan[] = [];

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    const parent = trace.getSpan(ctx);
    const record: RecordedSpan = {
      name,
      attributes: { ...options.attributes },
      status: null,
      exceptions: [],
      ended: false,
      parentName: parent instanceof RecordingSpan ? parent.record.name : null,
    };
    this.spans.push(record);
    return new RecordingSpan(record);
  }

  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: unknown[]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = (rest.length >= 2 ? rest[0] : {}) as SpanOptions;
    const ctx = (rest.length >= 3 ? rest[1] : context.active()) as Context;
    const span = this.startSpan(name, options, ctx);
    return context.with(trace.setSpan(ctx, span), () => fn(span)) as ReturnType<F>;
  }
}

export class RecordingTracerProvider implements TracerProvider {
  readonly tracer = new RecordingTracer();
  getTracer(): Tracer {
    return this.tracer;
  }
}
