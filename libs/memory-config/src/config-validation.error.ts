/** The environment is invalid; `problems` holds one line per bad variable. */
export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}
