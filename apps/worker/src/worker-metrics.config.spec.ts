import { ConfigValidationError } from '@agent-memory/memory-config';
import { workerMetricsAddress } from './worker-metrics.config';

describe('workerMetricsAddress', () => {
  it('serves nothing unless METRICS_PORT is set, on HOST or 127.0.0.1', () => {
    expect(workerMetricsAddress({})).toEqual({ host: '127.0.0.1', port: null });
    expect(workerMetricsAddress({ METRICS_PORT: '9464', HOST: '0.0.0.0' })).toEqual({
      host: '0.0.0.0',
      port: 9464,
    });
    expect(workerMetricsAddress({ METRICS_PORT: '0' })).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it.each(['http', '-1', '65536', '94.64'])('refuses METRICS_PORT=%s, naming it', (value) => {
    const attempt = () => workerMetricsAddress({ METRICS_PORT: value });
    expect(attempt).toThrow(ConfigValidationError);
    expect(attempt).toThrow(`METRICS_PORT must be an integer from 0 to 65535`);
  });
});
