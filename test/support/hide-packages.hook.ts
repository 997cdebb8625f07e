/**
 * A `--require` hook that makes the packages named in `HIDE_PACKAGES` (comma-separated; default
 * `typeorm,pg,nats`) impossible to find, as if they were not installed: their `require` throws
 * `MODULE_NOT_FOUND` with Node's own message. For running the `agent-memory` command as a user
 * who installed none of the optional drivers.
 */
import Module from 'node:module';

const hidden = new Set((process.env.HIDE_PACKAGES ?? 'typeorm,pg,nats').split(','));

type Resolve = (request: string, ...rest: unknown[]) => string;
const internals = Module as unknown as { _resolveFilename: Resolve };
const resolveFilename = internals._resolveFilename;

internals._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
  const [first, second] = request.split('/');
  const name = first!.startsWith('@') ? `${first}/${second}` : first!;
  if (hidden.has(name)) {
    throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
  }
  return resolveFilename.call(this, request, ...rest);
};
