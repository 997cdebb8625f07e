/**
 * What the recall specs (`recall.backend.spec.ts`, `recall.indexing.spec.ts`,
 * `recall.other-stores.spec.ts`) share: an embedder they can hold or fail, a conversation whose
 * early part a snapshot covers, and the recall message read back. Test code: not in the build.
 */
import type { SessionStore } from '../../core/memory.interface';
import { assistantMessage, textContent, userMessage, type Message } from '../../core/message';
import type { EmbedOptions, Embedder } from '../embedder.interface';
import { HashedNgramEmbedder } from '../hashed-ngram.embedder';
import { RECALL_HEADER } from '../recall.engine';

/** A real embedder that counts its calls and can be made to fail or wait (no mocks). */
export class ControlledEmbedder implements Embedder {
  readonly inner = new HashedNgramEmbedder({ dimensions: 128 });
  readonly model = this.inner.model;
  readonly dimensions = this.inner.dimensions;
  calls: string[][] = [];
  failuresLeft = 0;
  gate: Promise<void> | null = null;
  private onCall: (() => void) | null = null;
  /** Resolves at the next call. */
  readonly nextCall = (): Promise<void> => new Promise((resolve) => (this.onCall = resolve));

  async embed(texts: readonly string[], opts?: EmbedOptions): Promise<number[][]> {
    this.calls.push([...texts]);
    this.onCall?.();
    if (this.gate) await this.gate;
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('embedding service down');
    }
    return this.inner.embed(texts, opts);
  }
}

/** A long conversation whose early part is covered by a snapshot (out of the context). */
export const HISTORY: Message[] = [
  userMessage('Please plan a trip to Lisbon in May'),
  assistantMessage('Sure, Lisbon in May is warm. Any budget?'),
  userMessage('My budget is 1200 euros and I am allergic to peanuts'),
  assistantMessage('Noted: 1200 euros, no peanuts.'),
  userMessage('I prefer trains over planes whenever possible'),
  assistantMessage('Trains it is.'),
  userMessage('Also my sister Marta joins on the second day'),
  assistantMessage('Great, a room for two from day two.'),
  userMessage('Now let us talk about museums'),
  assistantMessage('The Gulbenkian and MAAT are good choices.'),
];

/** Saves a snapshot of `session` covering its first `covered` messages, pinning the first. */
export async function compactFirst(session: SessionStore, covered: number): Promise<void> {
  const { tail } = await session.loadSnapshot();
  await session.saveSnapshot(
    { summary: 'Trip planning so far.', pinned: [HISTORY[0]!] },
    tail[covered - 1]!.cursor,
    null,
  );
}

/** The text of the recall message `messages` starts with, or null when there is none. */
export function recallText(messages: Message[]): string | null {
  const first = messages[0];
  return first?.role === 'system' && textContent(first).startsWith(RECALL_HEADER)
    ? textContent(first)
    : null;
}
