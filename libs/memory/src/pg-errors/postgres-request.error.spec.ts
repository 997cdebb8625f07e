import { DataSource } from 'typeorm';
import { BackendError, BackendUnavailableError } from '@agent-memory/memory';
import {
  PostgresQueryError,
  PostgresRequestError,
  isPostgresUnavailable,
} from '@agent-memory/memory/postgres';
import { pgRequest } from './postgres-request.error';
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';

const schemas = new TestSchemas('pgerr');
const dataSource = useTestDataSource(schemas, { poolSize: 2 });

/** The error a real request raises, as `pgRequest` reports it. */
async function failureOf(sql: string, params: unknown[] = [], on = dataSource): Promise<unknown> {
  try {
    await pgRequest('probe', 'errors', () => on.query(sql, params));
  } catch (error) {
    return error;
  }
  throw new Error(`"${sql}" did not fail`);
}

describe('PostgreSQL errors', () => {
  it('calls an unreachable server BACKEND_UNAVAILABLE', async () => {
    const nowhere = new DataSource({
      type: 'postgres',
      url: 'postgres://postgres@127.0.0.1:1/test',
      connectTimeoutMS: 2000,
    });
    const error = await pgRequest('connect', null, () => nowhere.initialize()).catch((e) => e);
    expect(error).toBeInstanceOf(PostgresRequestError);
    expect(error).toBeInstanceOf(BackendUnavailableError);
    expect(error).toMatchObject({ code: 'BACKEND_UNAVAILABLE', pgCode: 'ECONNREFUSED' });
  });

  it('calls missing tables and a statement timeout BACKEND_UNAVAILABLE', async () => {
    expect(await failureOf(`SELECT * FROM "${schemas.next()}".nothing`)).toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      pgCode: '42P01',
    });
    const timeout = await dataSource.transaction(async (tx) => {
      await tx.query('SET LOCAL statement_timeout = 50');
      return pgRequest('sleep', 'errors', () => tx.query('SELECT pg_sleep(2)')).catch((e) => e);
    });
    expect(timeout).toMatchObject({ code: 'BACKEND_UNAVAILABLE', pgCode: '57014' });
  });

  it.each([
    ['a NUL in jsonb', 'SELECT $1::jsonb', ['{"text":"a\\u0000b"}'], '22P05'],
    ['a division by zero', 'SELECT 1 / 0', [], '22012'],
    ['a syntax error', 'SELEC 1', [], '42601'],
  ])('calls %s BACKEND_ERROR, without the server text', async (_, sql, params, sqlstate) => {
    const error = (await failureOf(sql, params)) as PostgresQueryError;
    expect(error).toBeInstanceOf(PostgresQueryError);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).not.toBeInstanceOf(BackendUnavailableError);
    expect(error).toMatchObject({ code: 'BACKEND_ERROR', pgCode: sqlstate });
    const driverText = (error.cause as Error).message;
    expect(driverText.length).toBeGreaterThan(0);
    expect(error.message).not.toContain(driverText);
    expect(error.message).toBe(
      `PostgreSQL refused the request with error code ${sqlstate}: probe of session "errors" (details in the server log)`,
    );
  });

  it('reads connection failures without a code from their message', () => {
    expect(isPostgresUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isPostgresUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isPostgresUnavailable(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
    expect(isPostgresUnavailable(Object.assign(new Error('x'), { code: '23505' }))).toBe(false);
    expect(isPostgresUnavailable(new Error('something else'))).toBe(false);
  });
});
