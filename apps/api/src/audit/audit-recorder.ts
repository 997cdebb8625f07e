import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import {
  MEMORY_ERROR_HTTP_STATUS,
  type AuditLog,
  type MemoryErrorCode,
  type NewAuditEntry,
} from '@agent-memory/memory';
import type { MemoryMcpToolOutcome } from '@agent-memory/memory/mcp';
import type { Request, Response } from 'express';
import { Counter } from 'prom-client';
import type { AuditDetailsView } from '@agent-memory/api-contract';
import type { GateDecision } from '../auth/admin-auth.middleware';
import type { TokenIdentity } from '../auth/admin-tokens';
import { MemoryMetrics } from '../metrics/memory-metrics';
import { AUDIT_LOG } from './audit.injection';
import { auditDetails } from './audit-details';
import { boundedAuditParam } from './audit-bounds';
import { RefusedEntryBudget } from './refused-entry-budget';

/** Entries that may wait for a slow audit log; more are dropped (and counted as failures). */
const MAX_QUEUED_ENTRIES = 10_000;

/** How long shutdown waits for the entries still queued before the backend closes (ms). */
const SHUTDOWN_FLUSH_MS = 5_000;

/** The status recorded for a request whose client went away before the answer was sent. */
const CLIENT_CLOSED_STATUS = 499;

/** The status the REST route would have answered, for a tool call's error code. */
function statusOfToolCode(code: string): number {
  if (code === 'INVALID_ARGUMENTS') return 400;
  if (code === 'FORBIDDEN_ROLE') return 403;
  if (code === 'SESSION_NOT_FOUND') return 404;
  return MEMORY_ERROR_HTTP_STATUS[code as MemoryErrorCode] ?? 500;
}

/** An entry's details with what it says of refusals skipped before it, or none when empty. */
function withRefusal(
  details: AuditDetailsView | null,
  refusal: Record<string, number>,
): { details?: Record<string, unknown> } {
  const merged = { ...details, ...refusal };
  return Object.keys(merged).length > 0 ? { details: merged } : {};
}

/**
 * Records every change request that reached a route (allowed or refused by its role) in the
 * audit log once it is answered: who, which route (the pattern the request matched, whatever its
 * spelling), which session or resource (cut at `MAX_AUDIT_PARAM_CHARS`), when, the status, the
 * error code and what the change did when its route says (`setAuditDetails`). The entry is
 * written after the answer, off the request's path, so a failing audit log never fails nor delays
 * the change: it is logged and counted (`agent_memory_audit_failures_total`).
 *
 * Refusals by role are recorded one by one up to a budget per actor and hour
 * ({@link RefusedEntryBudget}); past it they are counted
 * (`agent_memory_audit_refused_unrecorded_total`), so a low role cannot flush the changes that
 * happened out of the bounded log.
 */
@Injectable()
export class AuditRecorder implements OnModuleDestroy {
  private readonly logger = new Logger('AuditLog');
  private readonly failures: Counter;
  private readonly refusedUnrecorded: Counter;
  private readonly refusedBudget = new RefusedEntryBudget();
  /** The last append in line: each waits for the one before. */
  private tail: Promise<void> = Promise.resolve();
  /** Entries recorded and not yet written. */
  private queued = 0;

  constructor(
    @Inject(AUDIT_LOG) private readonly log: AuditLog,
    metrics: MemoryMetrics,
  ) {
    this.failures = new Counter({
      name: 'agent_memory_audit_failures_total',
      help: 'Audit entries that could not be written (the change itself was made or refused as answered)',
      registers: [metrics.registry],
    });
    this.refusedUnrecorded = new Counter({
      name: 'agent_memory_audit_refused_unrecorded_total',
      help: "Requests refused by role past an actor's budget of audit entries, counted instead of recorded",
      registers: [metrics.registry],
    });
  }

  /** Watches `res` and records the request once it is answered (or its client goes away). */
  watch(req: Request, res: Response, { identity, route, allowed }: GateDecision): void {
    let code: string | null = null;
    // Error answers are `{ statusCode, code, message }`: keep the code on its way out.
    const json = res.json.bind(res);
    res.json = (body?: unknown) => {
      if (res.statusCode >= 400 && body && typeof body === 'object' && 'code' in body) {
        code = typeof body.code === 'string' ? body.code : null;
      }
      return json(body);
    };
    res.once('close', () => {
      const finished = res.writableFinished;
      const refusal = allowed ? {} : this.refusalDetails(identity.name);
      if (refusal === null) return;
      const details = withRefusal(auditDetails(req), refusal);
      this.record({
        at: new Date().toISOString(),
        actor: { name: identity.name, role: identity.role },
        action: `${req.method.toUpperCase()} ${route.pattern}`,
        sessionId: boundedAuditParam(route.params.id),
        resource: boundedAuditParam(route.params.resource),
        status: finished ? res.statusCode : CLIENT_CLOSED_STATUS,
        code: finished ? code : 'CLIENT_CLOSED',
        ...details,
      });
    });
  }

  /**
   * Records a call of an MCP tool that changes data (`/mcp`), refused or not, as a route's change
   * is recorded: action `POST /mcp <tool>`, the call's session or resource, and the status the
   * matching REST route would have answered (200 when it succeeded).
   */
  recordToolCall(identity: TokenIdentity, outcome: MemoryMcpToolOutcome): void {
    const refused = outcome.code === 'FORBIDDEN_ROLE';
    const refusal = refused ? this.refusalDetails(identity.name) : {};
    if (refusal === null) return;
    this.record({
      at: new Date().toISOString(),
      actor: { name: identity.name, role: identity.role },
      action: `POST /mcp ${outcome.tool}`,
      sessionId: boundedAuditParam(outcome.sessionId ?? undefined),
      resource: boundedAuditParam(outcome.resource ?? undefined),
      status: outcome.code === null ? 200 : statusOfToolCode(outcome.code),
      code: outcome.code,
      ...withRefusal(null, refusal),
    });
  }

  /**
   * A refusal by role takes one of its actor's budgeted entries: null when the budget is spent
   * (the refusal is counted instead of recorded), else what the entry says of refusals skipped
   * before it.
   */
  private refusalDetails(actor: string): Record<string, number> | null {
    const budget = this.refusedBudget.take(actor);
    if (!budget.record) {
      this.refusedUnrecorded.inc();
      return null;
    }
    return budget.skippedBefore > 0 ? { refusedNotRecorded: budget.skippedBefore } : {};
  }

  /**
   * Shutdown: waits (at most {@link SHUTDOWN_FLUSH_MS}) for the queued entries, so the answers
   * given before it are recorded before the backend's connections close (which comes after).
   */
  async onModuleDestroy(): Promise<void> {
    await Promise.race([this.settled(), delay(SHUTDOWN_FLUSH_MS, undefined, { ref: false })]);
  }

  /** Resolves once every entry recorded so far is written (or has failed). */
  async settled(): Promise<void> {
    await this.tail;
  }

  /**
   * Appends `entry` after the ones before it, so this process's entries keep the order their
   * requests were answered in. Past {@link MAX_QUEUED_ENTRIES} waiting (an audit log that hangs),
   * an entry is dropped and counted as a failure rather than held in memory.
   */
  private record(entry: NewAuditEntry): void {
    if (this.queued >= MAX_QUEUED_ENTRIES) {
      this.failed(entry, new Error(`${MAX_QUEUED_ENTRIES} entries already wait for the audit log`));
      return;
    }
    this.queued++;
    this.tail = this.tail
      .then(() => this.log.append(entry))
      .then(
        () => undefined,
        (error: unknown) => this.failed(entry, error),
      )
      .finally(() => this.queued--);
  }

  private failed(entry: NewAuditEntry, error: unknown): void {
    this.failures.inc();
    this.logger.error(
      `could not record ${entry.action} by "${entry.actor.name}" (status ${entry.status}): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
