import { simpleBackend } from '@agent-memory/memory';
import { assertMemoryBackendInitializer, InvalidInitializerError } from './initializer';
import { MissingTestRunnerError } from './runner';
import { resolveRunner } from './test-api';

describe('what the suite accepts', () => {
  const createBackend = () => simpleBackend({ capacity: 10 });

  it.each([
    [null, /got null/],
    ['store', /got string/],
    [{ createBackend }, /`name` must be a non-empty string/],
    [{ name: ' ', createBackend }, /`name` must be a non-empty string/],
    [{ name: 'x' }, /`createBackend` of "x" must be a function/],
    [{ name: 'x', createBackend, destroyBackend: 1 }, /`destroyBackend` of "x" must be a function/],
    [
      { name: 'x', createBackend, capabilities: { crossProcess: true } },
      /"x" says crossProcess but has no storageOf, openStorage, processModule/,
    ],
  ])('refuses %p, saying what is wrong', (value, message) => {
    expect(() => assertMemoryBackendInitializer(value)).toThrow(InvalidInitializerError);
    expect(() => assertMemoryBackendInitializer(value)).toThrow(message);
  });

  it('takes the module it was loaded from as the processModule a store names none of', () => {
    const initializer = {
      name: 'x',
      createBackend,
      storageOf: () => ({}),
      openStorage: createBackend,
      capabilities: { crossProcess: true },
    };
    const checked = assertMemoryBackendInitializer(initializer, '/stores/x.ts');
    expect(checked.processModule).toEqual({ path: '/stores/x.ts' });
    expect(checked.createBackend).toBe(createBackend);
    expect(initializer).not.toHaveProperty('processModule');
  });

  it('finds jest globals, takes the runner passed instead, and names what is missing', () => {
    expect(resolveRunner().it).toBe(it);
    const mine = jest.fn();
    expect(resolveRunner({ describe: mine }).describe).toBe(mine);
    const saved = globalThis.afterEach;
    try {
      (globalThis as { afterEach?: unknown }).afterEach = undefined;
      expect(() => resolveRunner()).toThrow(MissingTestRunnerError);
      expect(() => resolveRunner()).toThrow(/needs the test runner's afterEach/);
    } finally {
      globalThis.afterEach = saved;
    }
  });
});
