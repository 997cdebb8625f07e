import { createInterface } from 'node:readline';
import { textContent, type Message } from '@agent-memory/memory';
import type { ChatService } from './chat.service';

export const REPL_HELP = `Type a message to talk to the model, or a command:
  /history   the stored log, with cursors
  /context   what the model will see next turn (summary, pinned, recent)
  /stats     messages, tokens in context, snapshot
  /compact   compact the session now
  /clear     forget the session
  /help      this text
  /exit      leave (Ctrl-D too)`;

type Print = (line: string) => void;

function formatMessage(message: Message): string {
  const calls = message.toolCalls?.map((call) => ` [calls ${call.function.name}]`).join('') ?? '';
  return `${message.role}: ${textContent(message)}${calls}`;
}

/** Runs one command; returns false for `/exit`. */
async function runCommand(chat: ChatService, command: string, print: Print): Promise<boolean> {
  switch (command) {
    case '/exit':
    case '/quit':
      return false;
    case '/help':
      print(REPL_HELP);
      break;
    case '/history': {
      const entries = await chat.history();
      if (entries.length === 0) print('(no messages)');
      for (const { cursor, message } of entries) print(`#${cursor} ${formatMessage(message)}`);
      break;
    }
    case '/context': {
      const context = await chat.context();
      if (context.length === 0) print('(empty: the model will see only your next message)');
      else
        print(
          `What the model sees next turn, before your message (${context.length} message${context.length === 1 ? '' : 's'}):`,
        );
      for (const message of context) print(formatMessage(message));
      break;
    }
    case '/stats': {
      const { info, contextTokens, contextMessages } = await chat.stats();
      print(
        `session ${chat.sessionId}: ${info?.messages ?? 0} messages saved, ${info?.stored ?? 0} stored; ` +
          `context ${contextMessages} messages, ${contextTokens} tokens; ` +
          `snapshot ${info?.snapshotUpTo != null ? `up to #${info.snapshotUpTo}` : 'none'}`,
      );
      break;
    }
    case '/compact': {
      const result = await chat.compact();
      print(
        result.compacted
          ? `compacted up to #${result.upTo}: ${result.tokensBefore} → ${result.tokensAfter} tokens`
          : result.reason === 'no-gain'
            ? `not compacted (no-gain): with a summary the context would go from ${result.tokensBefore} to ${result.tokensAfter} tokens`
            : `not compacted (${result.reason}): ${result.tokensBefore} tokens`,
      );
      break;
    }
    case '/clear':
      await chat.clear();
      print(`session ${chat.sessionId} cleared`);
      break;
    default:
      print(`unknown command ${command}; /help lists them`);
  }
  return true;
}

/**
 * Reads lines from `input` one at a time (piped stdin included), each a message or a command,
 * and resolves when the input ends or on `/exit`.
 */
export async function runRepl(
  chat: ChatService,
  input: NodeJS.ReadableStream,
  print: Print,
  interactive: boolean,
): Promise<void> {
  const lines = createInterface({ input, terminal: interactive });
  const prompt = () => interactive && process.stdout.write('you> ');
  prompt();
  try {
    for await (const raw of lines) {
      const line = raw.trim();
      if (line !== '') {
        try {
          if (line.startsWith('/')) {
            if (!(await runCommand(chat, line.split(/\s+/)[0]!, print))) break;
          } else {
            print(`assistant> ${await chat.turn(line)}`);
          }
        } catch (error) {
          // A failed model call or store call ends the turn, not the chat.
          print(`error: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      prompt();
    }
  } finally {
    lines.close();
  }
}
