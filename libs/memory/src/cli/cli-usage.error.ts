/** A mistake in how the command was called: the usage follows the message, exit code 2. */
export class UsageError extends Error {}
