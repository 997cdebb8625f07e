import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { startScript } from '@agent-memory/test-support/child-script';
import { supportScriptPath } from '@agent-memory/test-support/paths';
import { PATHOLOGICAL_TEXTS, randomText } from '@agent-memory/test-support/random-text';
import type { TokenCountResult } from '@agent-memory/test-support/token-count.script';
import { assistantMessage, toolResultMessage, userMessage } from '../core/message';
import {
  TOKENS_PER_IMAGE,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_REPLY,
  TOKENS_PER_TOOL_CALL,
  TokenCounter,
} from './token-counter';

// The reference: the same tokenizer on the whole text, with no chunking.
const o200k = get_encoding('o200k_base');
const encode = (text: string) => o200k.encode_ordinary(text);

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
    // Each encoding loads its own vocabulary: o200k has the most CJK tokens, r50k the fewest.
    const tokyo = '東京は晴れ';
    expect(counter.countText(tokyo)).toBe(4);
    expect(new TokenCounter({ encoding: 'o200k_harmony' }).countText(tokyo)).toBe(4);
    expect(new TokenCounter({ encoding: 'cl100k_base' }).countText(tokyo)).toBe(7);
    expect(new TokenCounter({ encoding: 'r50k_base' }).countText(tokyo)).toBe(9);
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

/** `length` characters (code points) drawn from `alphabet`, as one flat string like a parsed body. */
const MB = 1 << 20;
const wholeTextCount = (text: string) => encode(text).length;
const ROOT = join(__dirname, '../../../..');

describe('TokenCounter on long and pathological text', () => {
  it('counts ordinary text exactly as a whole-text count does', () => {
    const counter = new TokenCounter();
    const ordinary = [
      // Markdown table rules are runs of '-' longer than 128 characters: the documented margin
      // case, tested below, so they are left out of the exact comparison.
      readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/^\|[-| :]+\|$/gm, ''),
      readFileSync(join(ROOT, 'libs/memory/src/postgres/postgres.store.ts'), 'utf8'),
      JSON.stringify(
        Array.from({ length: 200 }, (_, i) => ({ id: i, city: 'Paris', note: `note ${i}` })),
      ),
      'Grüße aus Köln! 東京は晴れ。 Ça va ? '.repeat(300),
      'line one\n\n   indented line two\r\n\ttabbed 12345 67890\n'.repeat(300),
    ];
    for (const text of ordinary) {
      expect(text.length).toBeGreaterThan(4096);
      expect(counter.countText(text)).toBe(wholeTextCount(text));
    }
    // Counted again, in another order and with other neighbours: the counter has seen every piece
    // by now and counts from its cache of pieces, still exactly.
    const again = [...ordinary].reverse().join('\n\n').repeat(3);
    expect(counter.countText(again)).toBe(wholeTextCount(again));
    expect(new TokenCounter().countText(again)).toBe(wholeTextCount(again));
    // The other encodings split text with patterns of their own, and cache by them.
    for (const encoding of ['cl100k_base', 'r50k_base'] as const) {
      const other = get_encoding(encoding);
      const warm = new TokenCounter({ encoding });
      for (const text of [...ordinary, again]) {
        expect(warm.countText(text)).toBe(other.encode_ordinary(text).length);
      }
      other.free();
    }
  });

  it('counts text of every kind of character the split patterns tell apart as tiktoken does', () => {
    // Letters of each case class, marks, digits and other numbers, punctuation, every whitespace
    // kind (U+0085 is White_Space, U+FEFF is not, unlike JavaScript's \s), contractions (ſ
    // case-folds to s), astral characters and a lone surrogate.
    const characters = [
      ...'aZ ǅʰא\u0301é的😀𝒜0٣½Ⅻ.,!?/-\'"()\t\n\r\u000b\u000c\u0085\u00a0\u2028\u3000\ufeff\u200b',
      "'s",
      "'S",
      "'ſ",
      "'ll",
      "'RE",
      "'d",
      '\r\n',
      '\ud800',
    ];
    const text = fc
      .array(fc.constantFrom(...characters), { maxLength: 60 })
      .map((parts) => parts.join(''));
    for (const encoding of ['o200k_base', 'cl100k_base', 'r50k_base'] as const) {
      const reference = get_encoding(encoding);
      const counter = new TokenCounter({ encoding });
      fc.assert(
        fc.property(
          text,
          (sample) => counter.countText(sample) === reference.encode_ordinary(sample).length,
        ),
        { numRuns: 3000, seed: 42 },
      );
      reference.free();
    }
  });

  it('stays within one token per 128 characters of a whole-text count on long runs', () => {
    const counter = new TokenCounter();
    const pathological = [
      ' '.repeat(6000),
      '='.repeat(6000),
      '-'.repeat(6000),
      Buffer.alloc(4500).toString('base64'),
      randomText(4000, 'abcdefghijklmnopqrstuvwxyz'),
      randomText(2000, '的一是不了人我在有他这为之大来以个中上们'),
    ];
    for (const text of pathological) {
      const whole = wholeTextCount(text);
      const chunked = counter.countText(text);
      expect(chunked).toBeGreaterThanOrEqual(whole);
      expect(chunked - whole).toBeLessThanOrEqual(Math.ceil(text.length / 128));
    }
  });

  it('counts megabyte runs of one character', async () => {
    const counter = new TokenCounter();
    const inputs = [
      ' '.repeat(1 << 20),
      'x'.repeat(1 << 20),
      '='.repeat(1 << 20),
      '-'.repeat(1 << 20),
      Buffer.alloc(786_432).toString('base64'),
      randomText(256 * 1024, 'abcdefghijklmnopqrstuvwxyz'),
    ];
    const counts: number[] = [];
    for (const text of inputs) counts.push(await counter.countAsync([userMessage(text)]));
    // How long a count holds the event loop is measured below, in a process of its own.
    // A space run tokenizes 128 characters to one token, the other runs 8 or 64 to a token.
    const overhead = TOKENS_PER_REPLY + TOKENS_PER_MESSAGE + encode('user').length;
    expect(counts[0]! - overhead).toBe((1 << 20) / 128);
    expect(counts[4]! - overhead).toBe((1 << 20) / 8);
    expect(counts[5]).toBeGreaterThan(100_000);
  }, 30_000);

  describe('a message as large as the admin API takes (4 MB)', () => {
    /**
     * CPU time allowed for 4 MB of any kind: under a second. The time each kind takes, with this
     * counter and with `tiktoken` counting the pieces, is in docs/benchmarks.md; a quadratic piece
     * costs minutes.
     */
    const CPU_BUDGET_MS = 1000;

    it.each(Object.keys(PATHOLOGICAL_TEXTS))(
      '%s: counts within its CPU budget, never blocking the event loop',
      async (kind) => {
        // Counted in a process of its own (test/support/token-count.script.ts), so that the test
        // runner's heap and collections stay out of what is measured.
        const count = startScript<TokenCountResult>(supportScriptPath('token-count.script.ts'), [
          kind,
          String(4 * MB),
        ]);
        await count.ready;
        count.go();
        const result = await count.result;
        console.log(
          `4 MB of ${kind}: ${result.tokens} tokens, ${result.cpuMs.toFixed(0)} ms CPU, loop held ` +
            `at most ${result.maxHoldCpuMs.toFixed(1)} ms CPU (wall delay ${result.maxDelayMs.toFixed(1)} ms)`,
        );
        expect(result.bytes).toBeGreaterThan(4 * MB - 4);
        expect(result.tokens).toBeGreaterThan((4 * MB) / 130);
        // CPU time, the least another process's load can skew.
        expect(result.cpuMs).toBeLessThan(CPU_BUDGET_MS);
        // The longest the count held the loop, in CPU time: waits for a CPU on a busy machine
        // (which the wall-clock delay, also measured, includes) are not the count's doing.
        expect(result.maxHoldCpuMs).toBeLessThan(100);
      },
      60_000,
    );
  });

  it('gives the same count in one go and in slices, and caches it for the next call', async () => {
    const counter = new TokenCounter();
    const message = userMessage(`${'ab '.repeat(5000)}${'-'.repeat(20_000)}`);
    const sliced = await counter.countAsync([message]);
    expect(new TokenCounter().count([message])).toBe(sliced);
    expect(counter.count([message])).toBe(sliced);
  });

  it('stops an async count when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const text = randomText(512 * 1024, 'abcdefghijklmnopqrstuvwxyz');
    await expect(
      new TokenCounter().countAsync([userMessage(text)], { signal: controller.signal }),
    ).rejects.toThrow('stop');
  });
});
