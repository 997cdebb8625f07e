import type { DocumentChange, UnknownOutcome, UpdateOptions } from '../core/document-store';
import type { SessionDocument } from '../core/session-document';

/** One caller's change waiting for the next group commit, with how to answer that caller. */
export interface PendingChange {
  change: DocumentChange;
  opts?: UpdateOptions;
  /** Set once a write of this change went unanswered and a write on its revision was found stored. */
  unknownOutcome?: UnknownOutcome;
  /** The document right after this caller's change (null: the change wrote nothing). */
  resolve(doc: SessionDocument | null): void;
  reject(error: unknown): void;
}

type QueueItem =
  { kind: 'changes'; changes: PendingChange[] } | { kind: 'exclusive'; run: () => Promise<void> };

/**
 * The per-session write queue of one process (a group commit): while one batch is being written,
 * every change that arrives waits; the next batch takes all of them, in arrival order, and
 * `commit` writes them with one compare-and-swap. Exclusive work (a `clear`) runs alone, between
 * batches, in its place in the order.
 */
export class WriteQueue {
  private readonly items: QueueItem[] = [];
  private running = false;

  constructor(
    /** Writes one batch; must settle every change in it and never reject. */
    private readonly commit: (batch: PendingChange[]) => Promise<void>,
  ) {}

  /** Queues `change`; resolves with the document right after it once its batch is written. */
  change(change: DocumentChange, opts?: UpdateOptions): Promise<SessionDocument | null> {
    return new Promise((resolve, reject) => {
      const pending: PendingChange = { change, opts, resolve, reject };
      const last = this.items[this.items.length - 1];
      if (last?.kind === 'changes') last.changes.push(pending);
      else this.items.push({ kind: 'changes', changes: [pending] });
      this.pump();
    });
  }

  /** Runs `run` alone, after everything queued before it and before anything queued after it. */
  exclusive(run: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.items.push({
        kind: 'exclusive',
        run: () => run().then(resolve, (error: unknown) => reject(error)),
      });
      this.pump();
    });
  }

  private pump(): void {
    if (this.running) return;
    this.running = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    try {
      for (let item = this.items.shift(); item; item = this.items.shift()) {
        if (item.kind === 'exclusive') await item.run();
        else {
          const { changes } = item;
          // commit settles each change itself; this only guards against a bug leaving one waiting.
          await this.commit(changes).catch((error: unknown) => {
            for (const pending of changes) pending.reject(error);
          });
        }
      }
    } finally {
      this.running = false;
    }
  }
}
