/**
 * Checks a session log written by turn-writer processes (`w<writer>-q<i>` then `w<writer>-a<i>`)
 * against what each writer was told was stored.
 */

/** What the log shows about the writers' turns. */
export interface TurnLogReport {
  /** Acknowledged turns missing from the log. */
  lost: number;
  /** Turns present more than once. */
  duplicated: number;
  /** Questions not directly followed by their own answer, and answers not preceded by theirs. */
  split: number;
  /** Writers whose turns appear out of the order they were saved in. */
  outOfOrder: number;
  /** Turns present in the log (acknowledged or not). */
  present: number;
}

/**
 * @param texts the session's message texts, oldest first.
 * @param acknowledged per writer id, the turn numbers whose save resolved.
 */
export function checkTurnLog(texts: string[], acknowledged: Map<string, number[]>): TurnLogReport {
  const report: TurnLogReport = { lost: 0, duplicated: 0, split: 0, outOfOrder: 0, present: 0 };
  const seen = new Map<string, number>();
  const order = new Map<string, number[]>();
  for (let i = 0; i < texts.length; i++) {
    const match = /^w(\w+)-([qa])(\d+)$/.exec(texts[i]!);
    if (!match) continue;
    const [, writer, kind, turn] = match as unknown as [string, string, string, string];
    if (kind === 'q') {
      if (texts[i + 1] !== `w${writer}-a${turn}`) report.split++;
      const key = `${writer}/${turn}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      order.set(writer, [...(order.get(writer) ?? []), Number(turn)]);
    } else if (texts[i - 1] !== `w${writer}-q${turn}`) {
      report.split++;
    }
  }
  for (const count of seen.values()) if (count > 1) report.duplicated += count - 1;
  report.present = seen.size;
  for (const [writer, turns] of acknowledged) {
    for (const turn of turns) if (!seen.has(`${writer}/${turn}`)) report.lost++;
  }
  for (const turns of order.values()) {
    if (turns.some((turn, i) => i > 0 && turn <= turns[i - 1]!)) report.outOfOrder++;
  }
  return report;
}
