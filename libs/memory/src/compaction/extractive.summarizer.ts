import type { Message } from '../core/message';
import { textContent } from '../core/message';
import type { Summarizer, SummaryInput } from './summarizer.interface';

/** At most this many items per list, the newest kept. */
const MAX_ITEMS = 8;
/** Items longer than this many characters are shortened. */
const MAX_ITEM_CHARS = 200;
const MAX_GOAL_CHARS = 300;
const MAX_EARLIER_CHARS = 1000;

const DECISION =
  /\b(decided|decide to|we will|we'll|i will|i'll|let's|agreed|chose|choose|going to|the plan is|we should|use)\b/i;

interface Sections {
  goal: string | null;
  earlier: string | null;
  decisions: string[];
  questions: string[];
  tools: Map<string, { calls: number; failed: number }>;
  latest: string[];
}

/**
 * A summariser that needs no LLM: deterministic, offline, and bounded in size. It keeps the
 * user's first goal, decisions, open questions (the user's questions not answered since), the
 * tools used with their call and failure counts, and the latest assistant points, merging them
 * into the previous summary. The default when no LLM is configured.
 */
export class ExtractiveSummarizer implements Summarizer {
  async summarize(input: SummaryInput): Promise<string> {
    const sections = parseSummary(input.previous);
    for (const message of input.messages) absorb(sections, message);
    return renderSummary(sections);
  }
}

function absorb(sections: Sections, message: Message): void {
  const text = textContent(message).trim();
  const sentences = splitSentences(text);
  if (message.role === 'user') {
    if (!sections.goal && text) sections.goal = shorten(text, MAX_GOAL_CHARS);
    for (const sentence of sentences)
      if (sentence.endsWith('?')) pushNewest(sections.questions, sentence);
  }
  if (message.role === 'assistant') {
    // An assistant answer after a question closes it: keep only questions asked since.
    if (text) sections.questions = [];
    const first = sentences[0];
    if (first) pushNewest(sections.latest, first);
  }
  if (message.role === 'user' || message.role === 'assistant') {
    for (const sentence of sentences)
      if (DECISION.test(sentence) && !sentence.endsWith('?'))
        pushNewest(sections.decisions, sentence);
  }
  for (const call of message.toolCalls ?? []) {
    const tool = sections.tools.get(call.function.name) ?? { calls: 0, failed: 0 };
    tool.calls++;
    sections.tools.set(call.function.name, tool);
  }
  if (message.role === 'tool' && message.toolError) {
    // The failed call's name is not on the result; count the failure under the latest tool.
    const lastTool = [...sections.tools.values()].pop();
    if (lastTool) lastTool.failed++;
  }
}

function pushNewest(list: string[], item: string): void {
  const short = shorten(item, MAX_ITEM_CHARS);
  const existing = list.indexOf(short);
  if (existing >= 0) list.splice(existing, 1);
  list.push(short);
  if (list.length > MAX_ITEMS) list.splice(0, list.length - MAX_ITEMS);
}

function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

const HEADINGS = {
  decisions: 'Decisions:',
  questions: 'Open questions:',
  latest: 'Latest:',
} as const;

function renderSummary(s: Sections): string {
  const lines: string[] = [];
  if (s.goal) lines.push(`Goal: ${s.goal}`);
  if (s.earlier) lines.push(`Earlier: ${s.earlier}`);
  for (const key of ['decisions', 'questions', 'latest'] as const) {
    if (s[key].length === 0) continue;
    lines.push(HEADINGS[key], ...s[key].map((item) => `- ${item}`));
  }
  if (s.tools.size > 0) {
    const tools = [...s.tools].map(
      ([name, t]) =>
        `${name} (${t.calls} call${t.calls === 1 ? '' : 's'}${t.failed ? `, ${t.failed} failed` : ''})`,
    );
    lines.push(`Tools used: ${tools.join(', ')}`);
  }
  return lines.length > 0 ? lines.join('\n') : 'Nothing of note yet.';
}

/** Reads a summary this class wrote; any other text is kept, shortened, as `Earlier`. */
function parseSummary(previous: string | null): Sections {
  const sections: Sections = {
    goal: null,
    earlier: null,
    decisions: [],
    questions: [],
    tools: new Map(),
    latest: [],
  };
  if (!previous) return sections;
  let list: string[] | null = null;
  let understood = false;
  for (const line of previous.split('\n')) {
    const heading = (Object.keys(HEADINGS) as (keyof typeof HEADINGS)[]).find(
      (key) => HEADINGS[key] === line,
    );
    if (heading) {
      list = sections[heading];
      understood = true;
    } else if (line.startsWith('- ') && list) {
      list.push(line.slice(2));
    } else if (line.startsWith('Goal: ')) {
      sections.goal = line.slice('Goal: '.length);
      understood = true;
    } else if (line.startsWith('Earlier: ')) {
      sections.earlier = line.slice('Earlier: '.length);
    } else if (line.startsWith('Tools used: ')) {
      for (const match of line
        .slice('Tools used: '.length)
        .matchAll(/([^,()]+?) \((\d+) calls?(?:, (\d+) failed)?\)/g)) {
        sections.tools.set(match[1]!.trim(), {
          calls: Number(match[2]),
          failed: Number(match[3] ?? 0),
        });
      }
      understood = true;
    }
  }
  if (!understood && previous !== 'Nothing of note yet.')
    sections.earlier = shorten(previous, MAX_EARLIER_CHARS);
  return sections;
}
