import type { Message, SessionPage, TranscriptPage } from '../lib/api-types';
import { formatCount } from '../lib/number-format';
import { relativeTime } from '../lib/time-format';

/**
 * The first view's rows drawn from the prefetched JSON while React and the app still load (a new
 * browser spends most of its first load there). Plain DOM in the views' own markup and classes,
 * every value set as text (`textContent`), never as HTML. React's first render into `#root`
 * replaces all of it; nothing is drawn once React has put anything there.
 */

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Puts `page` into `#root` inside the app's frame, unless React has rendered already. */
function show(page: HTMLElement): void {
  const root = document.getElementById('root');
  if (!root || root.firstChild) return;
  const app = el('div', 'app');
  const main = el('main', 'app-main');
  main.append(page);
  app.append(main);
  root.append(app);
}

function isSessionPage(body: unknown): body is SessionPage {
  return Array.isArray((body as SessionPage | null)?.items);
}

function snapshotCell(hasSnapshot: boolean): HTMLTableCellElement {
  const cell = el('td', 'col-number');
  cell.append(
    hasSnapshot ? el('span', 'badge badge-snapshot', 'snapshot') : el('span', 'muted', '–'),
  );
  return cell;
}

/** The sessions list's first page: the table as `SessionsList` draws it, without the controls. */
export function showEarlySessions(body: unknown): void {
  if (!isSessionPage(body) || body.items.length === 0) return;
  const section = el('section', 'page');
  section.setAttribute('aria-labelledby', 'sessions-heading');
  const head = el('div', 'page-head');
  const heading = el('h1', undefined, 'Sessions');
  heading.id = 'sessions-heading';
  head.append(heading);
  const table = el('table', 'sessions-table');
  const headRow = el('tr');
  for (const [label, className] of [
    ['Session', ''],
    ['Messages', 'num col-number'],
    ['Stored', 'num col-number'],
    ['Tokens', 'num col-number'],
    ['Snapshot', 'col-number'],
    ['Updated', ''],
  ]) {
    const th = el('th', className, label);
    th.scope = 'col';
    headRow.append(th);
  }
  table.append(el('thead'));
  table.tHead!.append(headRow);
  const tbody = el('tbody');
  for (const row of body.items) {
    const title = row.meta.title?.trim();
    const tr = el('tr', 'clickable');
    const titleCell = el('td', 'cell-title');
    const link = el('a', title ? undefined : 'untitled', title || 'Untitled');
    link.href = `?session=${encodeURIComponent(row.id)}`;
    const idLine = el('span', 'id-line');
    idLine.append(el('code', 'mono muted', row.id));
    const numbers = el(
      'span',
      'row-numbers',
      `${formatCount(row.messages)} ${row.messages === 1 ? 'message' : 'messages'} · ${formatCount(row.stored)} stored${row.hasSnapshot ? ' · snapshot' : ''}`,
    );
    titleCell.append(link, idLine, numbers);
    const time = el('time', undefined, relativeTime(row.updatedAt));
    time.dateTime = row.updatedAt;
    const timeCell = el('td', 'cell-time');
    timeCell.append(time);
    tr.append(
      titleCell,
      el('td', 'num col-number', formatCount(row.messages)),
      el('td', 'num col-number', formatCount(row.stored)),
      el('td', 'num muted col-number', '…'),
      snapshotCell(row.hasSnapshot),
      timeCell,
    );
    tbody.append(tr);
  }
  table.append(tbody);
  const card = el('div', 'card table-card');
  card.append(table);
  section.append(head, card);
  show(section);
}

const ROLE_LABEL: Record<Message['role'], string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
};

/** How many messages the early log draws: more than a screen holds. */
const EARLY_MESSAGES = 20;

function isTranscriptPage(body: unknown): body is TranscriptPage {
  return Array.isArray((body as TranscriptPage | null)?.items);
}

/**
 * A session's log, its first messages as `MessageCard` draws them: role, position, tokens and the
 * text parts (tool calls, images and reasoning wait for the app).
 */
export function showEarlyTranscript(body: unknown): void {
  if (!isTranscriptPage(body) || body.items.length === 0) return;
  const rows = el('div', 'transcript-rows');
  for (const entry of body.items.slice(0, EARLY_MESSAGES)) {
    const { message, cursor } = entry;
    const article = el('article', `message message-${message.role}`);
    article.dataset.cursor = String(cursor);
    article.setAttribute('aria-label', `${ROLE_LABEL[message.role]} message #${cursor}`);
    const header = el('header', 'message-head');
    const meta = el('span', 'message-meta');
    meta.append(
      el('span', 'mono', `#${cursor}`),
      el('span', undefined, `${formatCount(entry.tokens)} tok`),
    );
    header.append(el('span', `role role-${message.role}`, ROLE_LABEL[message.role]), meta);
    const messageBody = el('div', 'message-body');
    for (const part of message.parts) {
      if (part.type === 'text' && part.text)
        messageBody.append(el('div', 'message-text', part.text));
    }
    article.append(header, messageBody);
    const slot = el('div', 'transcript-slot transcript-slot-early');
    slot.append(article);
    rows.append(slot);
  }
  const transcript = el('div', 'transcript');
  transcript.append(rows);
  const section = el('section', 'page');
  section.append(transcript);
  show(section);
}
