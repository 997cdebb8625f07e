import { ConsoleLogger } from '@nestjs/common';

/** Keeps what the server logs, to check what it does not say. */
export class RecordingLogger extends ConsoleLogger {
  readonly lines: string[] = [];
  protected override printMessages(messages: unknown[], context = '', logLevel = 'log'): void {
    for (const message of messages) {
      this.lines.push(`${logLevel} [${context}] ${String(message)}`);
    }
  }
  override error(message: unknown, ...rest: unknown[]): void {
    this.lines.push(`error ${String(message)} ${rest.map(String).join(' ')}`);
  }
}
