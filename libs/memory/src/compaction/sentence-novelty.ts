/**
 * Plain-text helpers of the extractive summariser: sentences, their content words, the named facts
 * they carry, and how much of a sentence is new against what a reader has already seen.
 */

/** Words too common to say anything about what a sentence adds. */
const STOPWORDS = new Set(
  (
    'the and for are but not you your yours with this that these those from have has had was were ' +
    'will would can could should shall may might must our ours out over under into onto about ' +
    'above after again all also any because been before being both each few more most other some ' +
    "such than then there their them they its it's what when where which while who whom why how " +
    "very just only own same too yes okay sure please thanks thank let let's lets i'm i'll we'll " +
    "we're you're that's here now one two get got does did doing done say said see like make"
  ).split(' '),
);

/** Splits text into sentences at `.`, `!`, `?` followed by white space, and at line breaks. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.replace(/^[-*•]\s+/, '').trim())
    .filter((sentence) => /[\p{L}\p{N}]/u.test(sentence));
}

/** The lower-cased content words of a sentence (stop words and one- or two-letter words left out). */
export function contentWords(text: string): string[] {
  return (
    text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'_.-]*[\p{L}\p{N}]|\p{N}/gu) ?? []
  ).filter((word) => (word.length > 2 || /\p{N}/u.test(word)) && !STOPWORDS.has(word));
}

/**
 * Named facts: numbers (amounts, dates, versions, ids) and names (a capitalised word that does
 * not open the sentence, or an identifier mixing letters and digits).
 */
export function namedFacts(sentence: string): string[] {
  const facts: string[] = [];
  const words = sentence.split(/\s+/);
  words.forEach((raw, index) => {
    const word = raw.replace(/^[^\p{L}\p{N}#$€£]+|[^\p{L}\p{N}%]+$/gu, '');
    if (!word) return;
    if (/\p{N}/u.test(word)) facts.push(word);
    else if (index > 0 && /^\p{Lu}/u.test(word) && word.toLowerCase() !== 'i') facts.push(word);
  });
  return facts;
}

/** The same sentence however it is spaced or cased: the key that keeps a summary free of repeats. */
export function sentenceKey(sentence: string): string {
  return sentence
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** What a sentence adds to what the reader has seen. */
export interface Novelty {
  /** The share of its content words that are new, from 0 to 1 (named facts weigh double). */
  share: number;
  /** How many new content words it brings, named facts counted twice. */
  gain: number;
  /** Whether one of its named facts is new. */
  newFact: boolean;
}

/** How much a sentence adds to `seen`, the content words already in front of the reader. */
export function novelty(sentence: string, seen: ReadonlySet<string>): Novelty {
  const words = [...new Set(contentWords(sentence))];
  const facts = new Set(namedFacts(sentence).flatMap((fact) => contentWords(fact)));
  let total = 0;
  let gain = 0;
  let newFact = false;
  for (const word of words) {
    const weight = facts.has(word) ? 2 : 1;
    total += weight;
    if (seen.has(word)) continue;
    gain += weight;
    if (facts.has(word)) newFact = true;
  }
  return { share: total === 0 ? 0 : gain / total, gain, newFact };
}

/** Shortens at a word boundary, marking the cut with an ellipsis. */
export function shortenAtWord(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '')}…`;
}
