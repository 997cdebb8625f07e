/** Least time between two redraws of the progress line, in milliseconds. */
const REDRAW_INTERVAL_MS = 100;

/**
 * A one-line counter redrawn in place on a terminal (`\r`), at most every 100 ms; nothing at all
 * when the stream is not a terminal, so a redirected stderr or a pipe gets no progress noise.
 */
export class ProgressLine {
  private lastDrawMs = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  /** Shows `text` unless the last redraw was under 100 ms ago. */
  update(text: string): void {
    if (!this.stream.isTTY) return;
    const now = Date.now();
    if (now - this.lastDrawMs < REDRAW_INTERVAL_MS) return;
    this.lastDrawMs = now;
    this.draw(text);
  }

  /** Shows `text` one last time and ends the line. */
  done(text: string): void {
    if (!this.stream.isTTY) return;
    this.draw(text);
    this.stream.write('\n');
  }

  private draw(text: string): void {
    this.stream.write(`\r${text}\x1b[K`);
  }
}
