import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { freePort } from '@agent-memory/test-support/services';
import { InvalidMessageError } from '../core/errors';
import {
  assistantMessage,
  systemMessage,
  toolResultMessage,
  userMessage,
  type Message,
} from '../core/message';
import { LlmRequestError } from './llm-request.error';
import { OpenAiCompatibleClient } from './openai-compatible.client';

describe('OpenAiCompatibleClient', () => {
  let llm: FakeLlm;
  let client: OpenAiCompatibleClient;

  beforeEach(async () => {
    llm = await startFakeLlm();
    client = new OpenAiCompatibleClient({
      baseUrl: llm.baseUrl,
      apiKey: 'sk-test',
      model: 'gpt-test',
    });
  });
  afterEach(() => llm.close());

  describe('request', () => {
    it('posts the model, the bearer key and max_tokens to /chat/completions', async () => {
      await client.complete([userMessage('hello')], { maxTokens: 321 });

      expect(llm.requests).toHaveLength(1);
      const [{ body, headers }] = llm.requests;
      expect(headers.authorization).toBe('Bearer sk-test');
      expect(headers['content-type']).toBe('application/json');
      expect(body).toEqual({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 321,
      });
    });

    it('leaves max_tokens out when not given', async () => {
      await client.complete([userMessage('hello')]);
      expect(llm.requests[0].body).not.toHaveProperty('max_tokens');
    });

    it('accepts a baseUrl with a trailing slash', async () => {
      const slashed = new OpenAiCompatibleClient({
        baseUrl: `${llm.baseUrl}/`,
        apiKey: 'k',
        model: 'm',
      });
      await expect(slashed.complete([userMessage('hi')])).resolves.toBeDefined();
      expect(llm.requests).toHaveLength(1);
    });

    it('maps a conversation with tool calls, tool results, images and names', async () => {
      const call = {
        id: 'call_1',
        type: 'function' as const,
        function: { name: 'weather', arguments: '{"city":"Oslo"}' },
      };
      const messages: Message[] = [
        systemMessage('be brief'),
        { ...userMessage('what is on this picture?'), name: 'alice' },
        userMessage([
          { type: 'text', text: 'compare' },
          { type: 'image_url', imageUrl: 'https://example.com/a.png' },
          { type: 'image_base64', imageBase64: 'aGVsbG8=', mimeType: 'image/jpeg' },
        ]),
        {
          role: 'assistant',
          parts: [{ type: 'reasoning', text: 'thinking…', signature: 'sig' }],
          toolCalls: [call],
        },
        toolResultMessage('call_1', '12°C'),
        toolResultMessage('call_1', 'service down', { error: true }),
        assistantMessage('It is 12°C.'),
      ];

      await client.complete(messages);

      expect(llm.requests[0].body.messages).toEqual([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'what is on this picture?', name: 'alice' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'compare' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,aGVsbG8=' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', content: '12°C', tool_call_id: 'call_1' },
        { role: 'tool', content: 'Error: service down', tool_call_id: 'call_1' },
        { role: 'assistant', content: 'It is 12°C.' },
      ]);
    });

    it('sends several text parts as a content-part array', async () => {
      await client.complete([
        userMessage([
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ]),
      ]);
      expect(llm.requests[0].body.messages[0].content).toEqual([
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ]);
    });

    it('rejects an image_base64 part without a MIME type before sending anything', async () => {
      const bad = userMessage([{ type: 'image_base64', imageBase64: 'aGVsbG8=' }]);
      await expect(client.complete([userMessage('ok'), bad])).rejects.toThrow(InvalidMessageError);
      await expect(client.complete([userMessage('ok'), bad])).rejects.toThrow(
        'messages[1].parts[0].mimeType',
      );
      expect(llm.requests).toHaveLength(0);
    });
  });

  describe('response', () => {
    it('returns the assistant text and the usage', async () => {
      llm.replyWith({ content: 'the summary', usage: { prompt_tokens: 42, completion_tokens: 7 } });

      const result = await client.complete([userMessage('summarise')]);

      expect(result).toEqual({
        message: { role: 'assistant', parts: [{ type: 'text', text: 'the summary' }] },
        usage: { inputTokens: 42, outputTokens: 7 },
      });
    });

    it('returns tool calls with null content as a message without parts', async () => {
      const toolCalls = [
        {
          id: 'call_a',
          type: 'function' as const,
          function: { name: 'search', arguments: '{"q":"x"}' },
        },
        { id: 'call_b', type: 'function' as const, function: { name: 'time', arguments: '{}' } },
      ];
      llm.replyWith({ toolCalls });

      const { message } = await client.complete([userMessage('go')]);

      expect(message).toEqual({ role: 'assistant', parts: [], toolCalls });
    });

    it('answers can depend on the request', async () => {
      llm.reply((body) => `you sent ${body.messages.length} messages`);
      const { message } = await client.complete([systemMessage('s'), userMessage('u')]);
      expect(message.parts).toEqual([{ type: 'text', text: 'you sent 2 messages' }]);
    });

    it('omits usage when the server reports none', async () => {
      llm.replyWith({ content: 'x', usage: null });
      const result = await client.complete([userMessage('go')]);
      expect(result).not.toHaveProperty('usage');
    });
  });

  describe('errors', () => {
    it('reports an HTTP error with its status and the provider message', async () => {
      llm.failNext(429, 'Rate limit reached for gpt-test', 'rate_limit_error');

      const error = await client.complete([userMessage('go')]).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(LlmRequestError);
      expect(error).toMatchObject({
        status: 429,
        providerMessage: 'Rate limit reached for gpt-test',
        code: 'LLM_REQUEST_FAILED',
      });
      expect((error as Error).message).toContain('HTTP 429: Rate limit reached for gpt-test');
    });

    it('reports a non-JSON error body by an excerpt of it', async () => {
      llm.replyRaw('<html>bad gateway</html>', 502, 'text/html');
      const error = await client.complete([userMessage('go')]).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 502, providerMessage: undefined });
      expect((error as Error).message).toContain('HTTP 502: <html>bad gateway</html>');
    });

    it('times out a call the server never answers', async () => {
      const impatient = new OpenAiCompatibleClient({
        baseUrl: llm.baseUrl,
        apiKey: 'k',
        model: 'm',
        // Long enough for the request to reach the server on a busy machine.
        timeoutMs: 500,
      });
      llm.hangNext();

      const error = await impatient.complete([userMessage('go')]).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(LlmRequestError);
      expect(error).toMatchObject({ status: undefined });
      expect((error as Error).message).toContain('timed out after 500 ms');
      expect(llm.requests).toHaveLength(1);
    });

    it("rejects with the caller's abort reason, not an LlmRequestError", async () => {
      llm.hangNext();
      const controller = new AbortController();
      const reason = new Error('user went away');

      const pending = client.complete([userMessage('go')], { signal: controller.signal });
      await llm.waitForRequests(1);
      controller.abort(reason);

      await expect(pending).rejects.toBe(reason);
    });

    it('does not send anything when the signal is already aborted', async () => {
      const reason = new Error('too late');
      await expect(
        client.complete([userMessage('go')], { signal: AbortSignal.abort(reason) }),
      ).rejects.toBe(reason);
      expect(llm.requests).toHaveLength(0);
    });

    it.each([
      ['a body that is not JSON', 'not json at all', 'the body is not JSON'],
      ['a body without choices', '{"choices":[]}', 'it has no choices'],
      ['a choice without a message', '{"choices":[{"index":0}]}', 'choices[0].message is missing'],
      [
        'a tool call without a name',
        '{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c"}]}}]}',
        'invalid message at choices[0].message.tool_calls[0].function: must be an object',
      ],
    ])('reports %s as a malformed response', async (_what, body, reason) => {
      llm.replyRaw(body);
      const error = await client.complete([userMessage('go')]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LlmRequestError);
      expect(error).toMatchObject({ status: 200 });
      expect((error as Error).message).toContain(`is not a chat completion: ${reason}`);
    });

    it('reports a refused connection as a network failure without status', async () => {
      const port = await freePort();
      const offline = new OpenAiCompatibleClient({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        apiKey: 'k',
        model: 'm',
      });
      const error = await offline.complete([userMessage('go')]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LlmRequestError);
      expect(error).toMatchObject({ status: undefined });
      expect((error as Error).message).toContain('ECONNREFUSED');
    });
  });

  describe('options', () => {
    it.each([
      [{ baseUrl: 'not a url', apiKey: 'k', model: 'm' }, 'baseUrl "not a url" is not a URL'],
      [{ baseUrl: 'ftp://example.com/v1', apiKey: 'k', model: 'm' }, 'must use http or https'],
      [{ baseUrl: 'http://127.0.0.1/v1', apiKey: 'k', model: ' ' }, 'model must be a non-empty'],
      [
        { baseUrl: 'http://127.0.0.1/v1', apiKey: 'k', model: 'm', timeoutMs: 0 },
        'timeoutMs must be a positive',
      ],
    ])('rejects %j', (options, message) => {
      expect(() => new OpenAiCompatibleClient(options)).toThrow(message);
    });

    it('sends no Authorization header with an empty apiKey', async () => {
      const keyless = new OpenAiCompatibleClient({ baseUrl: llm.baseUrl, apiKey: '', model: 'm' });
      await keyless.complete([userMessage('go')]);
      expect(llm.requests[0].headers).not.toHaveProperty('authorization');
    });
  });
});
