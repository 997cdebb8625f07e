/**
 * The parent's side of `store-process.script.ts`, the one script the cross-process tests of every
 * store run as separate OS processes (with `startScript` from `child-script.ts`). Each process
 * opens the store through its driver with the conformance harness's factory (`openBackend` of a
 * `BackendSpec`).
 */
import { join } from 'node:path';
import type { BackendSpec } from '@agent-memory/test-conformance';

/** What one process does once released (all start together on `go`). */
export type StoreProcessRole =
  /** `writer <writer> <turns>`: saves `turns` turns `w<writer>-q<i>`, `w<writer>-a<i>` in order. */
  | 'writer'
  /**
   * `turn-writer <writer> <turns> [keyed]`: saves the same turns once each, no retry, and reports
   * which were acknowledged, refused (`ConcurrentUpdateError`) or failed otherwise (a server going
   * away). With `keyed`, each turn carries its own idempotency key (`w<writer>-t<i>`).
   */
  | 'turn-writer'
  /** `snapshot-racer <upTo> <summary>`: saves a snapshot with `prev` null. */
  | 'snapshot-racer'
  /** `compactor <keepRecent>`: compacts once (offline summariser, threshold 1 token). */
  | 'compactor'
  /** `migrate` (a PostgreSQL spec only): runs the memory migrations of its table. */
  | 'migrate';

/** What each role prints: the package's roles print what its processes suite reads. */
export type { RacerResult, WriterResult } from '../../libs/conformance/src/processes/store-process';
export interface TurnWriterResult {
  writer: string;
  /** The turn numbers whose save resolved: each must be stored. A turn that failed may or may not be. */
  acknowledged: number[];
  refused: number;
  failed: number;
  /** The first few failure messages, for a test's log. */
  errors: string[];
  /** The error code (`MemoryError.code`) of every failed or refused save. */
  failureCodes: string[];
  /** The longest a save took, resolved or not (ms). */
  slowestMs: number;
}
/** The script, for `startScript(STORE_PROCESS_SCRIPT, storeProcessArgs(…))`. */
export const STORE_PROCESS_SCRIPT = join(__dirname, 'store-process.script.ts');

/** The command line of one process: `<role> <store JSON> <session> …args`. */
export function storeProcessArgs(
  role: StoreProcessRole,
  store: BackendSpec,
  session: string,
  ...args: (string | number)[]
): string[] {
  return [role, JSON.stringify(store), session, ...args.map(String)];
}
