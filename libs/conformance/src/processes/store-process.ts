/**
 * The parent's side of `store-process.script`, the script the cross-process tests run as
 * separate OS processes (with `startScript`): each process loads the store's `processModule`
 * and opens the storage with its `openStorage`.
 */
import { extname, join } from 'node:path';
import type { ProcessModule } from '../initializer';

/** What one process does once released (all start together on `go`). */
export type StoreProcessRole =
  /** `writer <writer> <turns>`: saves `turns` turns `w<writer>-q<i>`, `w<writer>-a<i>` in order. */
  | 'writer'
  /** `snapshot-racer <upTo> <summary>`: saves a snapshot with `prev` null. */
  | 'snapshot-racer'
  /** `compactor <keepRecent>`: compacts once (offline summariser, threshold 1 token). */
  | 'compactor';

/** What a writer prints. */
export interface WriterResult {
  writer: string;
  /** Saves tried again after a `ConcurrentUpdateError`. */
  retries: number;
}
/** What a snapshot racer prints. */
export interface RacerResult {
  outcome: 'won' | 'lost';
  /** The loser's error code, such as `SNAPSHOT_CONFLICT`. */
  code?: string;
}

/** The script (TypeScript in the repository, JavaScript once built). */
export const STORE_PROCESS_SCRIPT = join(__dirname, `store-process.script${extname(__filename)}`);

/** The command line of one process: `<module JSON> <role> <storage JSON> <session> …args`. */
export function storeProcessArgs(
  module: ProcessModule,
  role: StoreProcessRole,
  storage: unknown,
  session: string,
  ...args: (string | number)[]
): string[] {
  return [JSON.stringify(module), role, JSON.stringify(storage), session, ...args.map(String)];
}
