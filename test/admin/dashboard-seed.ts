/**
 * Sessions for the dashboard's browser test and screenshots, written through the admin API: a
 * support conversation with tool calls (one failing), reasoning, an image and a snapshot, plus a
 * few dozen others, one of them holding HTML that must render as text; and the README tour's
 * `tour` session, for the pictures the README shows next to it.
 */
import type { DashboardServer } from './dashboard-server';

type Json = Record<string, unknown>;
const text = (value: string) => ({ type: 'text', text: value });
const user = (value: string): Json => ({ role: 'user', parts: [text(value)] });
const assistant = (value: string, toolCalls?: Json[]): Json => ({
  role: 'assistant',
  parts: value ? [text(value)] : [],
  ...(toolCalls ? { toolCalls } : {}),
});
const call = (id: string, name: string, args: Json): Json => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});
const result = (id: string, value: string, error = false): Json => ({
  role: 'tool',
  parts: [text(value)],
  toolCallId: id,
  ...(error ? { toolError: true } : {}),
});

const CHART_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="100" viewBox="0 0 160 100">' +
    '<rect width="160" height="100" fill="#f4f6fb"/>' +
    '<rect x="14" y="50" width="22" height="40" fill="#2f6fde"/>' +
    '<rect x="48" y="30" width="22" height="60" fill="#2f6fde"/>' +
    '<rect x="82" y="62" width="22" height="28" fill="#e0912f"/>' +
    '<rect x="116" y="18" width="22" height="72" fill="#7356d6"/></svg>',
).toString('base64');

/** The session the browser test works on. */
export const SUPPORT_SESSION = 'support-ticket-4711';
export const SUPPORT_TITLE = 'Refund for order #4711';

/** The support conversation: one turn is the task, then tool-using turns. */
export function supportConversation(turns: number): Json[] {
  const messages: Json[] = [
    user(
      'I was charged twice for order #4711 (a standing desk). Please refund the duplicate charge and confirm by email.',
    ),
  ];
  for (let turn = 0; turn < turns; turn += 1) {
    const id = `call_${turn}`;
    if (turn === 1) {
      messages.push({
        role: 'user',
        parts: [
          text('Here is the statement page showing both charges.'),
          { type: 'image_base64', imageBase64: CHART_SVG, mimeType: 'image/svg+xml' },
        ],
      });
    } else {
      messages.push(user(`Any news on the refund? (follow-up ${turn + 1})`));
    }
    messages.push({
      role: 'assistant',
      parts: [
        {
          type: 'reasoning',
          text: `The customer follows up (${turn + 1}). Look up the payment ledger before answering.`,
        },
      ],
      toolCalls: [call(id, 'lookup_payments', { orderId: 4711, attempt: turn + 1 })],
    });
    messages.push(
      turn === 2
        ? result(id, 'payments service timed out after 5000 ms', true)
        : result(
            id,
            JSON.stringify({ orderId: 4711, charges: [{ amount: 649.0 }, { amount: 649.0 }] }),
          ),
    );
    messages.push(
      assistant(
        turn === 2
          ? 'The payments service did not answer; I will retry shortly.'
          : 'I can see both charges of $649.00. The duplicate refund is queued; it takes 3 to 5 business days.',
      ),
    );
  }
  return messages;
}

/** The README's five-minute tour session. */
export const TOUR_SESSION = 'tour';

/**
 * The tour's saves, as the README's curl commands make them: the trip and the assistant's budget
 * question, then twelve day-by-day turns (26 messages).
 */
export function tourSaves(): Json[][] {
  return [
    [user('I am planning a trip to Lisbon in May.'), assistant('Lovely! What is your budget?')],
    ...Array.from({ length: 12 }, (_, i) => [
      user(`What should I see on day ${i + 1}?`),
      assistant(`On day ${i + 1}, walk through Alfama.`),
    ]),
  ];
}

/** Writes the tour session as the README does, one save per curl command. */
export async function seedTour(server: DashboardServer): Promise<void> {
  for (const messages of tourSaves()) {
    const saved = await server.request(`/api/sessions/${TOUR_SESSION}/messages`, {
      method: 'POST',
      json: { messages },
    });
    if (saved.status !== 201) throw new Error(`seeding the tour: ${saved.status}`);
  }
}

const TOPICS = [
  'Migrate billing to the new invoice API',
  'Summarise Q3 incident reports',
  'Draft the onboarding email sequence',
  'Triage flaky CI jobs on main',
  'Plan a team offsite in Lisbon',
  'Review the Postgres index proposal',
  'Translate the pricing page to German',
  'Answer a GDPR data export request',
  'Debug the websocket reconnect loop',
  'Compare vector databases for search',
  'Write release notes for 2.4',
  'Estimate cloud costs for next quarter',
];

/** Seeds the sessions; returns the ids written. */
export async function seedDashboard(server: DashboardServer): Promise<string[]> {
  const ids: string[] = [];
  const post = async (id: string, messages: Json[], meta?: Json) => {
    const saved = await server.request(`/api/sessions/${id}/messages`, {
      method: 'POST',
      json: { messages },
    });
    if (saved.status !== 201)
      throw new Error(`seeding ${id}: ${saved.status} ${await saved.text()}`);
    if (meta) {
      const patched = await server.request(`/api/sessions/${id}/meta`, {
        method: 'PATCH',
        json: meta,
      });
      if (!patched.ok) throw new Error(`seeding ${id} meta: ${patched.status}`);
    }
    ids.push(id);
  };
  for (let i = 0; i < 30; i += 1) {
    const topic = TOPICS[i % TOPICS.length]!;
    await post(
      `agent-run-${String(1000 + i)}`,
      [
        user(topic),
        assistant(`Working on: ${topic}.`),
        user('Thanks, go ahead.'),
        assistant('Done.'),
      ],
      i % 5 === 4 ? undefined : { title: topic, team: i % 2 ? 'platform' : 'support' },
    );
  }
  await post('html-in-content', [
    user('<img src=x onerror="document.title=\'owned\'"><b>not bold</b>'),
    assistant('<script>document.title="owned"</script> stays text'),
  ]);
  await post(SUPPORT_SESSION, supportConversation(8), {
    title: SUPPORT_TITLE,
    customer: 'C-20931',
  });
  return ids;
}

/** Starts a compaction job and waits for it to settle; returns the job. */
export async function compactNow(
  server: DashboardServer,
  id: string,
  body: Json,
): Promise<{ state: string; result?: Json; error?: Json }> {
  const accepted = await server.request(`/api/sessions/${id}/compact`, {
    method: 'POST',
    json: body,
  });
  const { jobId } = (await accepted.json()) as { jobId: string };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const job = (await (await server.request(`/api/compactions/${jobId}`)).json()) as {
      state: string;
    };
    if (job.state === 'done' || job.state === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`compaction job ${jobId} of ${id} did not finish within 60 s`);
}
