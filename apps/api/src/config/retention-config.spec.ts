import { ConfigValidationError, parseApiConfig } from './api-config';

const parse = (env: Record<string, string>) => parseApiConfig({ MEMORY_BACKEND: 'simple', ...env });

describe('MEMORY_RETENTION_* settings', () => {
  it('are off when no maximum is set', () => {
    expect(parse({}).retention).toBeNull();
  });

  it('read the policy and the sweep interval', () => {
    expect(
      parse({
        MEMORY_RETENTION_MAX_IDLE: '30d',
        MEMORY_RETENTION_MAX_AGE: '52w',
        MEMORY_RETENTION_ACTION: 'keep-summary',
        MEMORY_RETENTION_SWEEP_INTERVAL: '15m',
      }).retention,
    ).toEqual({
      policy: { maxIdle: '30d', maxAge: '52w', action: 'keep-summary' },
      sweepIntervalMs: 900_000,
    });
    expect(parse({ MEMORY_RETENTION_MAX_AGE: '2s' }).retention).toEqual({
      policy: { maxAge: '2s', action: 'delete' },
      sweepIntervalMs: 3_600_000,
    });
  });

  it('list every bad variable at once, by name', () => {
    let error: unknown;
    try {
      parse({
        MEMORY_RETENTION_MAX_IDLE: '30 days',
        MEMORY_RETENTION_MAX_AGE: '0d',
        MEMORY_RETENTION_SWEEP_INTERVAL: 'hourly',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    const message = (error as Error).message;
    expect(message).toMatch(/MEMORY_RETENTION_MAX_IDLE must be a positive duration/);
    expect(message).toMatch(/MEMORY_RETENTION_MAX_AGE must be a positive duration/);
    expect(message).toMatch(/MEMORY_RETENTION_SWEEP_INTERVAL must be a positive duration/);
  });

  it('refuse an action or interval while retention is off', () => {
    expect(() => parse({ MEMORY_RETENTION_SWEEP_INTERVAL: '1h' })).toThrow(
      /MEMORY_RETENTION_SWEEP_INTERVAL is set but retention is off/,
    );
  });
});
