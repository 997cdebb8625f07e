import type { Message } from '../core/message';
import { textContent } from '../core/message';
import {
  contentWords,
  namedFacts,
  novelty,
  sentenceKey,
  shortenAtWord,
  splitSentences,
} from './sentence-novelty';
import type { Summarizer, SummaryInput } from './summarizer.interface';

/** Items kept per list; the newest stay. */
const MAX_LATEST = 8;
const MAX_DECISIONS = 6;
const MAX_QUESTIONS = 4;
/** Items longer than this many characters are shortened at a word. */
const MAX_ITEM_CHARS = 180;
const MAX_GOAL_CHARS = 300;
const MAX_EARLIER_CHARS = 1000;
/** The new items may take this share of the covered text's characters, within the bounds below. */
const BUDGET_SHARE = 0.25;
const MIN_BUDGET_CHARS = 160;
const MAX_BUDGET_CHARS = 1600;
/** A sentence is worth keeping when at least this share of it is new to the reader. */
const MIN_NOVELTY = 0.5;
/** In this many of the newest covered messages, every sentence bringing new named facts is kept. */
const RECENT_MESSAGES = 4;

/** An older item sharing this share of its words (facts aside) with a newer one is replaced. */
const SUPERSEDED_OVERLAP = 0.7;
/** A sentence worth keeping names at least this many content words, or a new named fact. */
const MIN_CONTENT_WORDS = 3;
/** Decisions may take this share of the budget first, so that older ones are not crowded out. */
const DECISION_BUDGET_SHARE = 0.4;

const DECISION =
  /\b(decided|decide to|we will|we'll|i will|let's go|go with|agreed|we chose|the plan is|we should|settled on)\b/i;

interface Sections {
  goal: string | null;
  earlier: string | null;
  decisions: string[];
  questions: string[];
  tools: Map<string, { calls: number; failed: number }>;
  latest: string[];
}

/** A sentence that may go into the summary, with where it was said. */
interface Candidate {
  text: string;
  key: string;
  /** Index of its message among the covered ones, and of the sentence in that message. */
  message: number;
  position: number;
  decision: boolean;
}

/**
 * A summariser that needs no LLM: deterministic, offline, and bounded in size. It keeps the
 * user's goal (unless a pinned message already states it), decisions, open questions (the user's
 * questions not answered since), the tools used with their call and failure counts, and under
 * "Latest" the most recent points, merging them into the previous summary. Sentences are chosen
 * by what they add: a sentence whose words the reader has already seen (in the pinned messages,
 * the summary so far or a newer sentence) is left out, named facts (numbers, names) weigh double,
 * and no sentence appears twice. The default when no LLM is configured.
 */
export class ExtractiveSummarizer implements Summarizer {
  async summarize(input: SummaryInput): Promise<string> {
    const pinned = input.pinned ?? [];
    const sections = parseSummary(input.previous);
    const pinnedKeys = new Set(
      pinned.flatMap((message) => splitSentences(textContent(message))).map(sentenceKey),
    );
    if (sections.goal && splitSentences(sections.goal).every((s) => pinnedKeys.has(sentenceKey(s))))
      sections.goal = null;
    if (!sections.goal && pinned.length === 0) {
      const first = input.messages.find((m) => m.role === 'user' && textContent(m).trim());
      if (first) sections.goal = shortenAtWord(textContent(first), MAX_GOAL_CHARS);
    }
    countTools(sections, input.messages);
    sections.questions = openQuestions(sections.questions, input.messages, pinnedKeys);

    const summaryText = [
      sections.goal ?? '',
      ...sections.decisions,
      ...sections.latest,
      ...sections.questions,
      ...pinned.map(textContent),
    ];
    const seen = new Set(summaryText.flatMap(contentWords));
    const used = new Set([...pinnedKeys, ...summaryText.flatMap(splitSentences).map(sentenceKey)]);
    const picked = pickSentences(input.messages, seen, used);
    for (const candidate of picked) {
      const list = candidate.decision ? sections.decisions : sections.latest;
      removeSuperseded(sections.decisions, candidate.text);
      removeSuperseded(sections.latest, candidate.text);
      list.push(shortenAtWord(candidate.text, MAX_ITEM_CHARS));
    }
    keepNewest(sections.decisions, MAX_DECISIONS);
    keepNewest(sections.latest, MAX_LATEST);
    return renderSummary(sections);
  }
}

/**
 * Chooses sentences newest first, so the most recent points win the budget and an older sentence
 * repeating them adds nothing; decisions are chosen first, within their share of the budget.
 * Returns them oldest first.
 */
function pickSentences(
  messages: readonly Message[],
  seen: Set<string>,
  used: Set<string>,
): Candidate[] {
  const coveredChars = messages.reduce((sum, m) => sum + textContent(m).length, 0);
  const budget = Math.min(
    MAX_BUDGET_CHARS,
    Math.max(MIN_BUDGET_CHARS, Math.round(coveredChars * BUDGET_SHARE)),
  );
  const candidates = messages.map((message, index) => candidatesOf(message, index));
  const picked: Candidate[] = [];
  let spent = 0;
  const pass = (limit: number, only: (candidate: Candidate) => boolean) => {
    for (let index = messages.length - 1; index >= 0 && spent < limit; index--) {
      const recent = index >= messages.length - RECENT_MESSAGES;
      let takenHere = picked.filter((c) => c.message === index).length;
      // Within a message, the sentence adding most goes first; ties keep the earlier sentence.
      const ranked = candidates[index]!.filter(only)
        .map((candidate) => ({ candidate, gain: novelty(candidate.text, seen).gain }))
        .sort((a, b) => b.gain - a.gain || a.candidate.position - b.candidate.position);
      for (const { candidate } of ranked) {
        if (spent >= limit) break;
        if (used.has(candidate.key)) continue;
        // Scored again: a sentence taken just before may have made this one a repeat.
        const added = novelty(candidate.text, seen);
        const informative =
          contentWords(candidate.text).length >= MIN_CONTENT_WORDS || added.newFact;
        // A new named fact is worth keeping even in familiar words: it may be a value that changed.
        const wanted =
          informative &&
          (added.share >= MIN_NOVELTY || added.newFact) &&
          (takenHere === 0 || candidate.decision || (recent && added.newFact));
        if (!wanted) continue;
        picked.push(candidate);
        used.add(candidate.key);
        for (const word of contentWords(candidate.text)) seen.add(word);
        spent += Math.min(candidate.text.length, MAX_ITEM_CHARS) + 3;
        takenHere++;
      }
    }
  };
  pass(budget * DECISION_BUDGET_SHARE, (candidate) => candidate.decision);
  pass(budget, () => true);
  return picked.sort((a, b) => a.message - b.message || a.position - b.position);
}

/** The sentences of a user or assistant message that may be kept; none for other roles. */
function candidatesOf(message: Message, index: number): Candidate[] {
  if (message.role !== 'user' && message.role !== 'assistant') return [];
  return (
    splitSentences(textContent(message))
      .map((text, position) => ({
        text,
        key: sentenceKey(text),
        message: index,
        position,
        decision: DECISION.test(text),
      }))
      // Questions are kept while open (their own list); an answered one is in its answer.
      .filter((candidate) => !candidate.text.endsWith('?'))
  );
}

/** Marks an open question the assistant asked: the user's reply, not the assistant's, closes it. */
const ASKED_BY_ASSISTANT = ' (asked by the assistant)';

/**
 * The questions still open after these messages. A user's question stays open until the
 * assistant says something; an assistant's question (a budget, a date it needs) stays open until
 * the user states something, since a user who only asks questions back has not answered it.
 */
function openQuestions(
  previous: string[],
  messages: readonly Message[],
  pinnedKeys: ReadonlySet<string>,
): string[] {
  let open = [...previous];
  for (const message of messages) {
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    const sentences = splitSentences(textContent(message).trim());
    if (sentences.length === 0) continue;
    const fromAssistant = message.role === 'assistant';
    const statesSomething = sentences.some((sentence) => !sentence.endsWith('?'));
    // Each side answers the other: a reply with text closes the user's questions, a statement
    // by the user closes the assistant's.
    open = open.filter((question) =>
      question.endsWith(ASKED_BY_ASSISTANT) ? fromAssistant || !statesSomething : !fromAssistant,
    );
    for (const sentence of sentences) {
      if (!sentence.endsWith('?') || pinnedKeys.has(sentenceKey(sentence))) continue;
      const question =
        shortenAtWord(sentence, MAX_ITEM_CHARS) + (fromAssistant ? ASKED_BY_ASSISTANT : '');
      if (!open.includes(question)) open.push(question);
    }
  }
  keepNewest(open, MAX_QUESTIONS);
  return open;
}

function countTools(sections: Sections, messages: readonly Message[]): void {
  let lastTool: { calls: number; failed: number } | undefined;
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) {
      const tool = sections.tools.get(call.function.name) ?? { calls: 0, failed: 0 };
      tool.calls++;
      sections.tools.set(call.function.name, tool);
      lastTool = tool;
    }
    // The failed call's name is not on the result; count the failure under the latest tool.
    if (message.role === 'tool' && message.toolError && lastTool) lastTool.failed++;
  }
}

/**
 * Drops the older items that say what `newer` says with other facts (the same words around other
 * numbers or names): when a value changed, only its latest state stays.
 */
function removeSuperseded(list: string[], newer: string): void {
  const frame = (text: string) => {
    const facts = new Set(namedFacts(text).flatMap((fact) => contentWords(fact)));
    return new Set(contentWords(text).filter((word) => !facts.has(word)));
  };
  const words = frame(newer);
  for (let i = list.length - 1; i >= 0; i--) {
    const older = frame(list[i]!);
    const shared = [...older].filter((word) => words.has(word)).length;
    const union = new Set([...older, ...words]).size;
    if (union > 0 && shared / union >= SUPERSEDED_OVERLAP) list.splice(i, 1);
  }
}

function keepNewest(list: string[], max: number): void {
  if (list.length > max) list.splice(0, list.length - max);
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
  for (const key of ['decisions', 'latest', 'questions'] as const) {
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
    sections.earlier = shortenAtWord(previous, MAX_EARLIER_CHARS);
  return sections;
}
