import { ServerNats, type NatsOptions } from '@nestjs/microservices';
import type { NatsConnection, Subscription } from 'nats';

/**
 * Nest's NATS server with a drain on close: it first stops taking checks (drains its
 * subscriptions, so the queue group hands new checks to the other workers), then awaits
 * `beforeClose` (the worker finishes or abandons what runs, and answers), flushes those answers,
 * and only then closes the connection.
 */
export class CompactionNatsServer extends ServerNats {
  private readonly owned: Subscription[] = [];
  /** Called after the subscriptions are drained, before the connection closes. */
  beforeClose: (() => Promise<void>) | null = null;

  constructor(options: Required<NatsOptions>['options']) {
    super({ ...options, gracefulShutdown: false });
  }

  override bindEvents(client: NatsConnection): void {
    const recording = {
      subscribe: (subject: string, opts: Parameters<NatsConnection['subscribe']>[1]) => {
        const subscription = client.subscribe(subject, opts);
        this.owned.push(subscription);
        return subscription;
      },
    };
    super.bindEvents(recording);
  }

  override async close(): Promise<void> {
    await Promise.all(
      this.owned.splice(0).map((subscription) => subscription.drain().catch(() => undefined)),
    );
    await this.beforeClose?.();
    // The last answers are published a few ticks after their checks settle.
    await new Promise((resolve) => setImmediate(resolve));
    const connection = this.unwrap<NatsConnection | null>();
    if (connection && !connection.isClosed()) await connection.flush().catch(() => undefined);
    await super.close();
  }
}
