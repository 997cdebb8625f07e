import { encode } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { encode as encodeCl100k } from 'gpt-tokenizer/cjs/encoding/cl100k_base';
import { assistantMessage, toolResultMessage, userMessage } from '../core/message';
import {
  TOKENS_PER_IMAGE,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_REPLY,
  TOKENS_PER_TOOL_CALL,
  TokenCounter,
} from './token-counter';

describe('TokenCounter', () => {
  const counter = new TokenCounter();
  const roleTokens = (role: string) => encode(role).length;

  it('counts text with the o200k tokenizer plus the documented per-message overhead', () => {
    const text = 'The quick brown fox jumps over the lazy dog, twice: naïve café ☕.';
    expect(counter.countText(text)).toBe(encode(text).length);
    expect(counter.countMessage(userMessage(text))).toBe(
      TOKENS_PER_MESSAGE + roleTokens('user') + encode(text).length,
    );
    expect(counter.count([userMessage(text), userMessage(text)])).toBe(
      TOKENS_PER_REPLY + 2 * (TOKENS_PER_MESSAGE + roleTokens('user') + encode(text).length),
    );
    expect(counter.count([])).toBe(0);
  });

  it('knows the counts of well-known strings', () => {
    expect(counter.countText('hello world')).toBe(2);
    expect(new TokenCounter({ encoding: 'cl100k_base' }).countText('tokenization')).toBe(
      encodeCl100k('tokenization').length,
    );
  });

  it('counts tool calls by id, name and arguments, and tool results by their call id', () => {
    const args = '{"city":"Paris","units":"metric"}';
    const call = assistantMessage('', [
      { id: 'call_1', type: 'function', function: { name: 'weather', arguments: args } },
    ]);
    expect(counter.countMessage(call)).toBe(
      TOKENS_PER_MESSAGE +
        roleTokens('assistant') +
        TOKENS_PER_TOOL_CALL +
        encode('call_1').length +
        encode('weather').length +
        encode(args).length,
    );
    const result = toolResultMessage('call_1', 'sunny');
    expect(counter.countMessage(result)).toBe(
      TOKENS_PER_MESSAGE + roleTokens('tool') + encode('sunny').length + encode('call_1').length,
    );
  });

  it('counts an image at the fixed estimate, never by its base64 length', () => {
    const huge = 'A'.repeat(200_000);
    const message = userMessage([
      { type: 'image_base64', imageBase64: huge, mimeType: 'image/png' },
    ]);
    expect(counter.countMessage(message)).toBe(
      TOKENS_PER_MESSAGE + roleTokens('user') + TOKENS_PER_IMAGE,
    );
  });

  it('counts special-token text as text instead of refusing it', () => {
    expect(counter.countText('say <|endoftext|> now')).toBeGreaterThan(3);
  });

  it('caches per message object: a message changed in place keeps its first count', () => {
    const message = userMessage('short');
    const first = counter.countMessage(message);
    message.parts[0]!.text = 'a much longer text than before, with many more tokens in it';
    expect(counter.countMessage(message)).toBe(first);
    expect(counter.countMessage(userMessage(message.parts[0]!.text!))).toBeGreaterThan(first);
  });

  it('refuses an unknown encoding', () => {
    expect(() => new TokenCounter({ encoding: 'nope' as never })).toThrow(
      /unknown token encoding "nope"/,
    );
  });
});
