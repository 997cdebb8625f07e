/**
 * Cuts `text` into chunks of at most `maxChars` characters, at paragraph, sentence or word
 * boundaries when one is near, each chunk starting `overlapChars` before the previous one ended.
 * Linear in the text's length.
 */
export function chunkText(text: string, maxChars: number, overlapChars: number): string[] {
  const clean = text.trim();
  if (clean === '') return [];
  if (clean.length <= maxChars) return [clean];
  const chunks: string[] = [];
  let start = 0;
  while (start < clean.length) {
    let end = Math.min(start + maxChars, clean.length);
    if (end < clean.length) {
      const window = clean.slice(start, end);
      const floor = Math.floor(maxChars / 2);
      const cut = Math.max(
        window.lastIndexOf('\n\n'),
        window.lastIndexOf('. '),
        window.lastIndexOf('? '),
        window.lastIndexOf('! '),
      );
      const space = window.lastIndexOf(' ');
      if (cut >= floor) end = start + cut + 1;
      else if (space >= floor) end = start + space;
    }
    const chunk = clean.slice(start, end).trim();
    if (chunk) chunks.push(chunk);
    if (end >= clean.length) break;
    start = Math.max(end - overlapChars, start + 1);
  }
  return chunks;
}
