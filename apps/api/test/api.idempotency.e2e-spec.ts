/**
 * `POST /api/sessions/:id/messages` with an `Idempotency-Key` header, once per backend: a retry
 * stores nothing and answers as the first time; the answer is what the save stored; the key with
 * another body is refused.
 */
import { ALL_BACKENDS, userText, useTestServer } from './support/api-test-server';

describe.each(ALL_BACKENDS)('idempotent appends on the %s backend', (kind) => {
  const api = useTestServer(kind);

  const append = (id: string, texts: string[], key?: string) =>
    api.request(`/api/sessions/${id}/messages`, {
      method: 'POST',
      json: { messages: texts.map(userText) },
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });

  it('answers a retry with the first answer, replayed, and stores the batch once', async () => {
    const first = await append('retry-1', ['a', 'b'], 'turn-1');
    expect(first.status).toBe(201);
    const stored = await first.json();
    expect(stored).toEqual({
      appended: 2,
      first: expect.any(Number),
      last: stored.first + 1,
      replayed: false,
    });

    const again = await append('retry-1', ['a', 'b'], 'turn-1');
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual({ ...stored, replayed: true });

    const next = await (await append('retry-1', ['c'], 'turn-2')).json();
    expect(next).toMatchObject({ appended: 1, replayed: false });
    expect(next.first).toBeGreaterThan(stored.last);

    const page = await (await api.request('/api/sessions/retry-1/messages')).json();
    expect(page.items.map((entry: { cursor: number }) => entry.cursor)).toEqual([
      stored.first,
      stored.last,
      next.first,
    ]);
    const info = await (await api.request('/api/sessions/retry-1')).json();
    expect(info).toMatchObject({ messages: 3, stored: 3 });
  });

  it('refuses the key with another body with 422 IDEMPOTENCY_KEY_REUSED, storing nothing', async () => {
    const first = await (await append('reused', ['a', 'b'], 'turn-1')).json();
    const reused = await append('reused', ['a', 'c'], 'turn-1');
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const again = await append('reused', ['a', 'b'], 'turn-1');
    expect(await again.json()).toEqual({ ...first, replayed: true });
    const page = await (await api.request('/api/sessions/reused/messages')).json();
    expect(
      page.items.map((entry: { message: { parts: Array<{ text: string }> } }) => {
        return entry.message.parts[0]!.text;
      }),
    ).toEqual(['a', 'b']);
  });

  it('stores every request without a key', async () => {
    const first = await (await append('no-key', ['a'])).json();
    const second = await (await append('no-key', ['a'])).json();
    expect(second).toMatchObject({ appended: 1, replayed: false });
    expect(second.first).toBeGreaterThan(first.last);
    const info = await (await api.request('/api/sessions/no-key')).json();
    expect(info).toMatchObject({ messages: 2 });
  });

  it('refuses a malformed key with 400 naming the header, storing nothing', async () => {
    for (const bad of ['has space', 'x'.repeat(256)]) {
      const response = await append('bad-key', ['a'], bad);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: 'INVALID_IDEMPOTENCY_KEY',
        field: 'Idempotency-Key',
      });
    }
    expect((await api.request('/api/sessions/bad-key')).status).toBe(404);
  });
});
