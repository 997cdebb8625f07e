/**
 * Input no store can keep is a 400 naming the field on every backend, never a 503 that tells the
 * client to retry, and it changes nothing stored.
 */
import { ALL_BACKENDS, useTestServer } from './support/api-test-server';

describe.each(ALL_BACKENDS)('bad input on the %s backend', (kind) => {
  const api = useTestServer(kind);

  const raw = (path: string, method: string, body: string) =>
    api.request(path, { method, body, headers: { 'content-type': 'application/json' } });

  it('answers a NUL or a lone surrogate in a message with 400 naming the path', async () => {
    await api.request('/api/sessions/text/messages', {
      method: 'POST',
      json: { messages: [{ role: 'user', parts: [{ type: 'text', text: 'kept' }] }] },
    });
    for (const [body, field] of [
      [
        '{"messages":[{"role":"user","parts":[{"type":"text","text":"a\\u0000b"}]}]}',
        'messages[0].parts[0].text',
      ],
      [
        '{"messages":[{"role":"assistant","parts":[],"toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"\\ud800"}}]}]}',
        'messages[0].toolCalls[0].function.arguments',
      ],
    ] as const) {
      const response = await raw('/api/sessions/text/messages', 'POST', body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_MESSAGE', field });
    }
    const info = await (await api.request('/api/sessions/text')).json();
    expect(info).toMatchObject({ messages: 1 });
  });

  it('answers reserved or unstorable metadata with 400 INVALID_META, changing nothing', async () => {
    await api.request('/api/sessions/meta/meta', { method: 'PATCH', json: { title: 't' } });
    for (const [body, field] of [
      ['{"__proto__":"x"}', '__proto__'],
      ['{"constructor":"x"}', 'constructor'],
      ['{"title":"a\\u0000"}', 'title'],
    ]) {
      const response = await raw('/api/sessions/meta/meta', 'PATCH', body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_META', field });
    }
    const info = await (await api.request('/api/sessions/meta')).json();
    expect(info.meta).toEqual({ title: 't' });
  });

  it('answers a forged list token with 400 INVALID_QUERY on "after"', async () => {
    const forged = Buffer.from(JSON.stringify(['2026-99-01T00:00:00.000Z', 'x'])).toString(
      'base64url',
    );
    for (const after of ['garbage', forged]) {
      const response = await api.request(`/api/sessions?after=${after}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_QUERY', field: 'after' });
    }
  });
});
