import { assistantMessage, toolResultMessage, userMessage } from '../core/message';
import { ExtractiveSummarizer } from './extractive.summarizer';

describe('ExtractiveSummarizer', () => {
  const summarizer = new ExtractiveSummarizer();
  const conversation = [
    userMessage('Please migrate the billing service to Postgres. Can we keep the old IDs?'),
    assistantMessage('Yes, the IDs stay. I will write the migration first.', [
      { id: 'c1', type: 'function', function: { name: 'run_sql', arguments: '{}' } },
    ]),
    toolResultMessage('c1', 'syntax error', { error: true }),
    assistantMessage("We decided to use bigint keys. Let's run it again."),
    userMessage('What about the invoices table?'),
  ];

  it('keeps the goal, decisions, open questions and tools used', async () => {
    const summary = await summarizer.summarize({ previous: null, messages: conversation });
    expect(summary).toContain(
      'Goal: Please migrate the billing service to Postgres. Can we keep the old IDs?',
    );
    expect(summary).toContain('- We decided to use bigint keys.');
    expect(summary).toContain('- I will write the migration first.');
    expect(summary).toContain('Open questions:\n- What about the invoices table?');
    expect(summary).not.toContain('- Can we keep the old IDs?'); // answered since
    expect(summary).toContain('Tools used: run_sql (1 call, 1 failed)');
  });

  it('is deterministic', async () => {
    const input = { previous: null, messages: conversation };
    expect(await summarizer.summarize(input)).toBe(await summarizer.summarize(input));
  });

  it('merges into its previous summary instead of starting over', async () => {
    const first = await summarizer.summarize({ previous: null, messages: conversation });
    const second = await summarizer.summarize({
      previous: first,
      messages: [
        assistantMessage('The invoices table moves too.', [
          { id: 'c2', type: 'function', function: { name: 'run_sql', arguments: '{}' } },
        ]),
        toolResultMessage('c2', 'ok'),
      ],
    });
    expect(second).toContain('Goal: Please migrate the billing service to Postgres.');
    expect(second).toContain('- We decided to use bigint keys.');
    expect(second).toContain('Tools used: run_sql (2 calls, 1 failed)');
    expect(second).not.toContain('Open questions');
  });

  it('keeps a foreign previous summary, shortened, and stays bounded on long input', async () => {
    const messages = Array.from({ length: 500 }, (_, i) =>
      userMessage(`We will do step ${i}. ${'x'.repeat(300)}?`),
    );
    const summary = await summarizer.summarize({ previous: 'An LLM wrote this.', messages });
    expect(summary).toContain('Earlier: An LLM wrote this.');
    expect(summary.length).toBeLessThan(6000);
  });

  it("keeps the assistant's question open until the user states something", async () => {
    const asked = [
      userMessage('I am planning a trip to Lisbon in May.'),
      assistantMessage('Lovely! What is your budget?'),
      userMessage('What should I see on day 1?'),
      assistantMessage('On day 1, walk through Alfama.'),
    ];
    const open = await summarizer.summarize({ previous: null, messages: asked });
    expect(open).toContain('Open questions:\n- What is your budget? (asked by the assistant)');

    // Carried over in the previous summary until the user answers it.
    const later = await summarizer.summarize({
      previous: open,
      messages: [
        userMessage('What should I see on day 2?'),
        assistantMessage('On day 2, walk through Alfama.'),
      ],
    });
    expect(later).toContain('- What is your budget? (asked by the assistant)');
    const answered = await summarizer.summarize({
      previous: later,
      messages: [userMessage('About 1500 euros for the week.')],
    });
    expect(answered).not.toContain('budget?');
    expect(answered).toContain('- About 1500 euros for the week.');
  });
});
