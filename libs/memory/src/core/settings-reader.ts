/** Where a setting's value comes from: environment variables, each maybe overridden by a flag. */
type Env = Record<string, string | undefined>;

/**
 * Reads settings from one environment (empty values count as unset), adding one line per bad
 * variable to `problems` so that a caller can report every problem at once. The apps' memory
 * configuration, the `agent-memory` command and each store's driver read through it, so a
 * variable means the same everywhere.
 */
export class SettingsReader {
  constructor(
    private readonly env: Env,
    /** One line per bad variable is added here (a line already there is not added twice). */
    readonly problems: string[] = [],
    /**
     * How a required setting missing is told: `env` (`DATABASE_URL is required with …`, the
     * servers) or `flags` (`no database: pass --url … or set DATABASE_URL`, the command).
     */
    readonly mode: 'env' | 'flags' = 'env',
  ) {}

  /** Adds a problem line, once. */
  report(problem: string): void {
    if (!this.problems.includes(problem)) this.problems.push(problem);
  }

  string(name: string): string | null {
    const value = this.env[name]?.trim();
    return value ? value : null;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.string(name);
    if (value === null) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.report(`${name}=${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
    return fallback;
  }

  integer(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.string(name);
    if (value === null) return fallback;
    const parsed = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      this.report(`${name}=${JSON.stringify(value)} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return parsed;
  }

  url(name: string, protocols: string[]): string | null {
    const value = this.string(name);
    if (value === null) return null;
    try {
      if (protocols.includes(new URL(value).protocol)) return value;
    } catch {
      // reported below
    }
    this.report(
      `${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    );
    return null;
  }

  matching(name: string, pattern: RegExp, fallback: string, what: string): string {
    const value = this.string(name) ?? fallback;
    if (!pattern.test(value)) this.report(`${name}=${JSON.stringify(value)} ${what}`);
    return value;
  }

  /**
   * Reports `setting` as missing when its variable is unset: what the chosen store cannot run
   * without (`DATABASE_URL` for PostgreSQL).
   * @param chosen how the store was chosen, for the message: `MEMORY_BACKEND=postgres`.
   */
  require(setting: RequiredSetting, chosen: string): void {
    if (this.string(setting.env) !== null) return;
    this.report(
      this.mode === 'flags' && setting.flag
        ? `no ${setting.what}: pass --${setting.flag} ${setting.example} or set ${setting.env}`
        : `${setting.env} is required with ${chosen} (${setting.example})`,
    );
  }
}

/** A setting a store cannot run without, as {@link SettingsReader.require} names it. */
export interface RequiredSetting {
  /** The environment variable: `DATABASE_URL`. */
  env: string;
  /** The command-line flag that overrides it, without dashes: `url`. */
  flag?: string;
  /** What it is, for `no <what>`: `database`. */
  what: string;
  /** A sample value: `postgres://user@host:5432/db`. */
  example: string;
}
