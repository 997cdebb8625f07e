import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One stored message of the default `conversation_memory` table (created by the migrations, not
 * by `synchronize`). `seq` is the message's cursor; TypeORM returns bigint as a string.
 */
@Entity({ name: 'conversation_memory', synchronize: false })
export class ConversationMemoryEntity {
  @PrimaryColumn({ name: 'session_id', type: 'text' })
  sessionId!: string;

  @PrimaryGeneratedColumn({ name: 'seq', type: 'bigint' })
  seq!: string;

  /** The message as stored JSON (see the message model). */
  @Column({ type: 'jsonb' })
  message!: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}

/** The latest snapshot of a session in `conversation_memory_snapshots`. */
@Entity({ name: 'conversation_memory_snapshots', synchronize: false })
export class ConversationMemorySnapshotEntity {
  @PrimaryColumn({ name: 'session_id', type: 'text' })
  sessionId!: string;

  /** The cursor (`seq`) of the last message the snapshot covers. */
  @Column({ name: 'upto_seq', type: 'bigint' })
  uptoSeq!: string;

  /** `{ summary, pinned? }`. */
  @Column({ type: 'jsonb' })
  snapshot!: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}

/**
 * Per-session counters and metadata in `conversation_memory_sessions`, kept in step with writes:
 * by the store's own statements, and by statement triggers on the messages table for rows other
 * writers (Phero, plain SQL) insert or delete.
 */
@Entity({ name: 'conversation_memory_sessions', synchronize: false })
@Index('conversation_memory_recent_idx', ['updatedAt', 'sessionId'])
export class ConversationMemorySessionEntity {
  @PrimaryColumn({ name: 'session_id', type: 'text' })
  sessionId!: string;

  /** Messages ever saved (outlives pruning). */
  @Column({ type: 'bigint', default: 0 })
  saved!: string;

  /** Messages kept now. */
  @Column({ type: 'bigint', default: 0 })
  stored!: string;

  /** Last write, truncated to milliseconds. */
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;

  @Column({ type: 'jsonb', default: () => "'{}'::jsonb" })
  meta!: Record<string, string>;
}

/** The entities of the default table names, for a DataSource's explicit `entities` array. */
export const MEMORY_ENTITIES = [
  ConversationMemoryEntity,
  ConversationMemorySnapshotEntity,
  ConversationMemorySessionEntity,
];
