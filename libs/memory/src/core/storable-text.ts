/**
 * Text every store can keep: no NUL character (PostgreSQL's `text` and `jsonb` refuse `\u0000`)
 * and no lone surrogate (a half of a UTF-16 pair is not Unicode: it cannot be written as UTF-8 and
 * comes back as U+FFFD from a file or a KV value). One rule for every backend, checked before any
 * write, so the same input is refused everywhere instead of failing on one store only.
 * @returns why `text` cannot be stored, or null when it can.
 */
export function unstorableTextReason(text: string): string | null {
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    return `holds a NUL character (\\u0000) at offset ${nul}; remove it (not every store can keep it)`;
  }
  if (isWellFormed(text)) return null;
  const at = loneSurrogateOffset(text);
  const unit = text.charCodeAt(at).toString(16).toUpperCase();
  return `holds a lone surrogate (\\u${unit}) at offset ${at}: it is not valid Unicode, so it cannot be stored as UTF-8`;
}

function isWellFormed(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(text) : loneSurrogateOffset(text) < 0;
}

/** The offset of the first UTF-16 code unit that is half of a surrogate pair on its own, or -1. */
function loneSurrogateOffset(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return i;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return i;
    }
  }
  return -1;
}
