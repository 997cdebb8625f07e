/** Browser-safe types of `GET /api/sessions/:id/recall?q=` (shared by the API and the dashboard). */

/** One quoted message. */
export interface RecalledMessageView {
  cursor: number;
  role: 'system' | 'user' | 'assistant' | 'tool';
  text: string;
  /** ISO time it was indexed, when known. */
  at: string | null;
  /** Cosine similarity when the query found it; null for a neighbour. */
  score: number | null;
}

/** The answer: what `retrieve(q)` would add, as ranges and as the one system message's text. */
export interface RecallView {
  query: string;
  ranges: { session: string; messages: RecalledMessageView[] }[];
  /** The text of the system message `retrieve(q)` would put first; null when nothing is recalled. */
  message: string | null;
}
