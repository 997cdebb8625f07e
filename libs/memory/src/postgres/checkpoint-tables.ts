import type { MemoryTableNames } from './memory-table-names';

/** The tables of LangGraph checkpoints next to the memory tables of one `table` option. */
export interface CheckpointTables {
  /** `<table>_lg_cps`: one row per checkpoint. */
  checkpoints: string;
  /** `<table>_lg_blobs`: channel values, by thread, namespace, channel and version. */
  blobs: string;
  /** `<table>_lg_writes`: pending writes, by checkpoint, task and index. */
  writes: string;
  /** `<table>_lg_msgs`: each thread's message log, by position. */
  messages: string;
  /** Prefix of their index names. */
  base: string;
}

/** The checkpoint tables of `names` (each suffix fits the length `memoryTableNames` allows). */
export function checkpointTables(names: MemoryTableNames): CheckpointTables {
  const qualified = (name: string) => (names.schema ? `"${names.schema}"."${name}"` : `"${name}"`);
  return {
    checkpoints: qualified(`${names.base}_lg_cps`),
    blobs: qualified(`${names.base}_lg_blobs`),
    writes: qualified(`${names.base}_lg_writes`),
    messages: qualified(`${names.base}_lg_msgs`),
    base: names.base,
  };
}
